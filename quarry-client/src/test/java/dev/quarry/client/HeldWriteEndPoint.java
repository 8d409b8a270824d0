package dev.quarry.client;

import dev.quarry.core.Callback;
import dev.quarry.io.Connection;
import dev.quarry.io.EndPoint;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An endpoint whose peer the test plays: the server's bytes arrive when the test says, then the end of the stream. A
 * write can be held pending once it was written, as when the writing thread is preempted between a socket write and
 * its completion; closing fails that write before it tells the connection, in the order the socket endpoint closes.
 * Lock-free, as the connection's writers may call it from threads that must not block.
 */
final class HeldWriteEndPoint implements EndPoint {
    private final ConcurrentLinkedQueue<ByteBuffer> inbound = new ConcurrentLinkedQueue<>();
    private final AtomicReference<Callback> heldWrite = new AtomicReference<>();
    private final AtomicBoolean open = new AtomicBoolean(true);
    private volatile boolean holdWrites;
    private volatile boolean ended;
    private volatile Callback fillInterest;
    private volatile Connection connection;
    private volatile long bytesIn;
    private volatile long bytesOut;

    /** @param bytes bytes the next fills read (flipped: from position to limit) */
    void arrive(ByteBuffer bytes) {
        inbound.add(bytes);
    }

    /** The server closed its side: once the bytes that arrived are read, fills return -1. */
    void end() {
        ended = true;
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
    public int fill(ByteBuffer buffer) {
        int total = 0;
        ByteBuffer next;
        while ((next = inbound.peek()) != null && buffer.hasRemaining()) {
            int n = Math.min(next.remaining(), buffer.remaining());
            buffer.put(next.slice(next.position(), n));
            next.position(next.position() + n);
            total += n;
            if (!next.hasRemaining()) {
                inbound.poll();
            }
        }
        bytesIn += total;
        return total == 0 && ended && inbound.isEmpty() ? -1 : total;
    }

    @Override
    public boolean flush(ByteBuffer... buffers) {
        for (ByteBuffer buffer : buffers) {
            bytesOut += buffer.remaining();
            buffer.position(buffer.limit());
        }
        return true;
    }

    @Override
    public void write(Callback callback, ByteBuffer... buffers) {
        flush(buffers);
        if (holdWrites) {
            heldWrite.set(callback);
        } else {
            callback.succeeded();
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
    public SocketAddress localAddress() {
        return new InetSocketAddress("127.0.0.1", 40000);
    }

    @Override
    public SocketAddress remoteAddress() {
        return new InetSocketAddress("127.0.0.1", 8080);
    }

    @Override
    public boolean isOpen() {
        return open.get();
    }

    @Override
    public void shutdownOutput() {}

    @Override
    public boolean isOutputShutdown() {
        return !open.get();
    }

    @Override
    public boolean isInputShutdown() {
        return !open.get();
    }

    @Override
    public void close() {
        close(null);
    }

    @Override
    public void close(Throwable cause) {
        if (!open.compareAndSet(true, false)) {
            return;
        }
        Throwable failure = cause != null ? cause : new ClosedChannelException();
        Callback write = heldWrite.getAndSet(null);
        if (write != null) {
            write.failed(failure);
        }
        Connection current = connection;
        if (current != null) {
            current.onClose(cause);
        }
    }

    @Override
    public void abort() {
        close();
    }

    @Override
    public Connection connection() {
        return connection;
    }

    @Override
    public void setConnection(Connection connection) {
        this.connection = connection;
    }

    @Override
    public long idleTimeout() {
        return 0;
    }

    @Override
    public void setIdleTimeout(long millis) {}

    @Override
    public long bytesIn() {
        return bytesIn;
    }

    @Override
    public long bytesOut() {
        return bytesOut;
    }

    @Override
    public long createdNanos() {
        return 0;
    }
}
