package dev.quarry.server.test;

import dev.quarry.core.Callback;
import dev.quarry.io.Connection;
import dev.quarry.io.EndPoint;
import java.io.ByteArrayOutputStream;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * An endpoint that, like a TLS endpoint holding bytes for its reader, answers the first fill interest by waking the
 * reader on another thread right away, and returns only once that wake-up ran: the worst case of the race between a
 * connection still inside its read loop and the wake-up it caused, made certain. Later interests wait, as a socket
 * with nothing to read does. Writes complete at once. Shared by the server's and the client's wake-up tests.
 */
public final class WakesAtOnceEndPoint implements EndPoint {
    private final ArrayDeque<ByteBuffer> inbound = new ArrayDeque<>();
    private final ByteArrayOutputStream outbound = new ByteArrayOutputStream();
    private final SocketAddress local;
    private final SocketAddress remote;
    private volatile ByteBuffer firstInterest;
    private volatile Connection connection;
    private volatile boolean open = true;

    /** The interest registered last, which waits (the first one is answered at once); null before. */
    public volatile Callback pendingInterest;

    /** The thread inside {@link #fillInterested} while the wake-up it caused runs on another thread, else null. */
    public volatile Thread registering;

    /** How many fill interests were registered. */
    public volatile int interests;

    /**
     * @param local this side's address
     * @param remote the peer's address
     */
    public WakesAtOnceEndPoint(SocketAddress local, SocketAddress remote) {
        this.local = local;
        this.remote = remote;
    }

    /** @param bytes bytes the next fills read (flipped: from position to limit) */
    public void arrive(ByteBuffer bytes) {
        synchronized (inbound) {
            inbound.add(bytes);
        }
    }

    /** @param bytes bytes that arrive with the first fill interest, whose wake-up runs on another thread at once */
    public void onFirstInterest(ByteBuffer bytes) {
        firstInterest = bytes;
    }

    /** @return every byte written so far */
    public byte[] written() {
        synchronized (outbound) {
            return outbound.toByteArray();
        }
    }

    @Override
    public int fill(ByteBuffer buffer) {
        synchronized (inbound) {
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
            return total;
        }
    }

    @Override
    public void fillInterested(Callback callback) {
        interests++;
        ByteBuffer bytes = firstInterest;
        if (bytes == null) {
            pendingInterest = callback;
            return;
        }
        firstInterest = null;
        arrive(bytes);
        registering = Thread.currentThread();
        Thread waker = Thread.ofPlatform().name("tls-wake-up").start(callback::succeeded);
        try {
            waker.join();
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(x);
        } finally {
            registering = null;
        }
    }

    @Override
    public boolean isFillInterested() {
        return pendingInterest != null;
    }

    @Override
    public boolean flush(ByteBuffer... buffers) {
        synchronized (outbound) {
            for (ByteBuffer buffer : buffers) {
                while (buffer.hasRemaining()) {
                    outbound.write(buffer.get());
                }
            }
        }
        return true;
    }

    @Override
    public void write(Callback callback, ByteBuffer... buffers) {
        flush(buffers);
        callback.succeeded();
    }

    @Override
    public SocketAddress localAddress() {
        return local;
    }

    @Override
    public SocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isSecure() {
        return true;
    }

    @Override
    public void shutdownOutput() {}

    @Override
    public boolean isOutputShutdown() {
        return !open;
    }

    @Override
    public boolean isInputShutdown() {
        return !open;
    }

    @Override
    public void close() {
        open = false;
    }

    @Override
    public void close(Throwable cause) {
        open = false;
    }

    @Override
    public void abort() {
        open = false;
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
        return 0;
    }

    @Override
    public long bytesOut() {
        return 0;
    }

    @Override
    public long createdNanos() {
        return 0;
    }
}
