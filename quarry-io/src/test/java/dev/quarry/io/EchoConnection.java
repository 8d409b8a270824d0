package dev.quarry.io;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Echoes what it reads, one buffer at a time: reads only when the previous echo was written (so back pressure from a
 * client that does not read propagates to a client that writes), and can be paused to stop reading altogether.
 */
final class EchoConnection extends AbstractConnection {
    final AtomicLong echoed = new AtomicLong();
    final CountDownLatch closed = new CountDownLatch(1);
    final AtomicBoolean paused = new AtomicBoolean();
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
    private final Callback afterWrite = Callback.from(InvocationType.NON_BLOCKING, this::afterWrite, this::failed);

    EchoConnection(EndPoint endPoint) {
        super(endPoint);
    }

    @Override
    public String protocol() {
        return "echo";
    }

    @Override
    protected InvocationType readInvocationType() {
        return InvocationType.NON_BLOCKING;
    }

    private final AtomicBoolean opened = new AtomicBoolean();
    private final AtomicBoolean reading = new AtomicBoolean();

    @Override
    public void onOpen() {
        opened.set(true);
        if (!paused.get()) {
            startReading();
        }
    }

    /**
     * Starts reading after {@link #paused} was set before open. The test may call this before the selector opened the
     * connection: whichever of the two comes second starts reading, once.
     */
    void resume() {
        paused.set(false);
        if (opened.get()) {
            startReading();
        }
    }

    private void startReading() {
        if (reading.compareAndSet(false, true)) {
            fillInterested();
        }
    }

    @Override
    protected void onFillable() {
        try {
            buffer.clear();
            int read = endPoint().fill(buffer);
            if (read < 0) {
                endPoint().shutdownOutput();
                return;
            }
            if (read == 0) {
                fillInterested();
                return;
            }
            buffer.flip();
            echoed.addAndGet(read);
            endPoint().write(afterWrite, buffer);
        } catch (IOException x) {
            endPoint().close(x);
        }
    }

    private void afterWrite() {
        if (!paused.get()) {
            fillInterested();
        }
    }

    private void failed(Throwable x) {
        endPoint().close(x);
    }

    volatile Throwable closeCause;

    @Override
    public void onClose(Throwable cause) {
        closeCause = cause != null ? cause : new Exception("orderly close, from here");
        closed.countDown();
    }

    @Override
    public String toString() {
        java.io.StringWriter trace = new java.io.StringWriter();
        if (closeCause != null) {
            closeCause.printStackTrace(new java.io.PrintWriter(trace));
        }
        return super.toString() + " closed by: " + trace;
    }
}
