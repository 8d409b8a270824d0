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

    @Override
    public void onOpen() {
        if (!paused.get()) {
            fillInterested();
        }
    }

    /** Starts reading again after {@link #paused} was set before open. */
    void resume() {
        paused.set(false);
        fillInterested();
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

    @Override
    public void onClose(Throwable cause) {
        closed.countDown();
    }
}
