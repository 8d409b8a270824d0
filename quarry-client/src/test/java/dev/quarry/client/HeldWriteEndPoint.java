package dev.quarry.client;

import dev.quarry.core.Callback;
import dev.quarry.io.Connection;
import dev.quarry.server.test.FakeEndPoint;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An endpoint whose peer the test plays: the server's bytes arrive when the test says, then the end of the stream
 * ({@link #end()}). A write can be held pending once it was written, as when the writing thread is preempted between a
 * socket write and its completion; closing fails that write before it tells the connection, in the order the socket
 * endpoint closes. Lock-free where the connection's writers call it from threads that must not block.
 */
final class HeldWriteEndPoint extends FakeEndPoint {
    private final AtomicReference<Callback> heldWrite = new AtomicReference<>();
    private volatile boolean holdWrites;
    private volatile Callback fillInterest;

    HeldWriteEndPoint() {
        super(new InetSocketAddress("127.0.0.1", 40000), new InetSocketAddress("127.0.0.1", 8080));
    }

    /** From now on, writes are written but their completion is held, until the endpoint closes. */
    void holdWrites() {
        holdWrites = true;
    }

    /** @return whether a write waits for its completion */
    boolean holdsAWrite() {
        return heldWrite.get() != null;
    }

    @Override
    public void write(Callback callback, ByteBuffer... buffers) {
        if (holdWrites) {
            record(buffers);
            heldWrite.set(callback);
        } else {
            super.write(callback, buffers);
        }
    }

    @Override
    public void fillInterested(Callback callback) {
        fillInterest = callback;
    }

    @Override
    public boolean isFillInterested() {
        return fillInterest != null;
    }

    @Override
    protected void onClosed(Throwable cause) {
        Throwable failure = cause != null ? cause : new ClosedChannelException();
        Callback write = heldWrite.getAndSet(null);
        if (write != null) {
            write.failed(failure);
        }
        Connection current = connection();
        if (current != null) {
            current.onClose(cause);
        }
    }
}
