package dev.quarry.server.test;

import dev.quarry.core.Callback;
import dev.quarry.io.Connection;
import dev.quarry.io.EndPoint;
import java.io.ByteArrayOutputStream;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What every test endpoint shares: bytes the test makes arrive, and then optionally the end of the stream; every byte
 * written recorded (writes complete at once unless a subclass says otherwise); open until closed once; addresses given;
 * no idle timeout. Subclasses decide how fill interests and writes behave, which is what each race test needs to make certain.
 *
 * <p>Reading is lock-free (a connection may fill on a selector thread); the record of written bytes is synchronized,
 * which is fine for tests whose writers may block.
 */
public abstract class FakeEndPoint implements EndPoint {
    private final ConcurrentLinkedQueue<ByteBuffer> inbound = new ConcurrentLinkedQueue<>();
    private final ByteArrayOutputStream outbound = new ByteArrayOutputStream();
    private final AtomicBoolean open = new AtomicBoolean(true);
    private final SocketAddress local;
    private final SocketAddress remote;
    private volatile boolean ended;
    private volatile Connection connection;
    private volatile long bytesIn;
    private volatile long bytesOut;

    /**
     * @param local this side's address
     * @param remote the peer's address
     */
    protected FakeEndPoint(SocketAddress local, SocketAddress remote) {
        this.local = local;
        this.remote = remote;
    }

    /** @param bytes bytes the next fills read (flipped: from position to limit) */
    public void arrive(ByteBuffer bytes) {
        inbound.add(bytes);
    }

    /** @param ascii bytes the next fills read */
    public void arrive(String ascii) {
        arrive(ByteBuffer.wrap(ascii.getBytes(StandardCharsets.US_ASCII)));
    }

    /** The peer closed its side: once the bytes that arrived are read, fills return -1. */
    public void end() {
        ended = true;
    }

    /** @return every byte written so far */
    public byte[] written() {
        synchronized (outbound) {
            return outbound.toByteArray();
        }
    }

    /** @return every byte written so far, as ASCII */
    public String writtenAscii() {
        synchronized (outbound) {
            return outbound.toString(StandardCharsets.US_ASCII);
        }
    }

    /**
     * Waits up to 10 s until the bytes written contain {@code text}.
     *
     * @return the bytes written then, as ASCII
     */
    public String awaitWritten(String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        synchronized (outbound) {
            while (!outbound.toString(StandardCharsets.US_ASCII).contains(text)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("never written: " + text + "; written: " + writtenAscii());
                }
                TimeUnit.NANOSECONDS.timedWait(outbound, left);
            }
            return outbound.toString(StandardCharsets.US_ASCII);
        }
    }

    /** Records the buffers' remaining bytes as written, consuming them. */
    protected void record(ByteBuffer... buffers) {
        long total = 0;
        synchronized (outbound) {
            for (ByteBuffer buffer : buffers) {
                total += buffer.remaining();
                while (buffer.hasRemaining()) {
                    outbound.write(buffer.get());
                }
            }
            outbound.notifyAll();
        }
        bytesOut += total;
    }

    /** Records the bytes; a socket that always takes everything. */
    @Override
    public boolean flush(ByteBuffer... buffers) {
        record(buffers);
        return true;
    }

    /** Records the bytes and completes the callback at once, on the writing thread. */
    @Override
    public void write(Callback callback, ByteBuffer... buffers) {
        record(buffers);
        callback.succeeded();
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
    public SocketAddress localAddress() {
        return local;
    }

    @Override
    public SocketAddress remoteAddress() {
        return remote;
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
        if (open.compareAndSet(true, false)) {
            onClosed(cause);
        }
    }

    /**
     * The endpoint just closed (once): fail what is pending, tell the connection, as the subclass's real model does.
     *
     * @param cause why, or null for a normal close
     */
    protected void onClosed(Throwable cause) {}

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
