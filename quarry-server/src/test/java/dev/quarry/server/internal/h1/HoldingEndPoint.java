package dev.quarry.server.internal.h1;

import dev.quarry.core.Callback;
import dev.quarry.io.Connection;
import dev.quarry.io.EndPoint;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadPendingException;
import java.nio.channels.WritePendingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * An endpoint that makes write races certain: a write it is told to hold stays pending (its bytes recorded, its
 * callback not completed) until {@link #releaseHeld()}, and a hook runs as each write begins, before it claims the
 * endpoint, to let another thread act in that window. Like a socket endpoint, a second write or a flush while one is
 * pending throws {@link WritePendingException}. Reads come from bytes given with {@link #arrive}; a fill interest waits
 * until {@link #wakeFill()}. Files are "transferred" by copying them into the recorded bytes.
 */
final class HoldingEndPoint implements EndPoint {
    private final ArrayDeque<ByteBuffer> inbound = new ArrayDeque<>();
    private final ByteArrayOutputStream outbound = new ByteArrayOutputStream();
    private final AtomicReference<Callback> writing = new AtomicReference<>();
    private final AtomicReference<Callback> interest = new AtomicReference<>();
    private volatile Connection connection;
    private volatile boolean open = true;
    private volatile Predicate<String> hold = bytes -> false;
    private volatile Consumer<String> beforeWrite = bytes -> {};
    private volatile Callback held;
    /** The first write or flush that found another one pending, or null. */
    volatile WritePendingException overlap;

    /** @param bytes bytes the next fills read */
    void arrive(String bytes) {
        synchronized (inbound) {
            inbound.add(ByteBuffer.wrap(bytes.getBytes(StandardCharsets.US_ASCII)));
        }
    }

    /** @param hold which writes (by their bytes, as ASCII) stay pending until {@link #releaseHeld()} */
    void holdWrites(Predicate<String> hold) {
        this.hold = hold;
    }

    /** @param hook run on the writing thread as a write begins, before it claims the endpoint */
    void beforeWrite(Consumer<String> hook) {
        this.beforeWrite = hook;
    }

    /** Completes the write held pending. */
    void releaseHeld() {
        Callback callback = held;
        held = null;
        writing.set(null);
        callback.succeeded();
    }

    /** @return whether a write is held pending */
    boolean isHolding() {
        return held != null;
    }

    /** @return every byte written so far, as ASCII */
    String written() {
        synchronized (outbound) {
            return outbound.toString(StandardCharsets.US_ASCII);
        }
    }

    /**
     * Waits until the bytes written contain {@code text}.
     *
     * @return the bytes written then
     */
    String awaitWritten(String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        synchronized (outbound) {
            while (!outbound.toString(StandardCharsets.US_ASCII).contains(text)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("never written: " + text + "; written: " + written());
                }
                TimeUnit.NANOSECONDS.timedWait(outbound, left);
            }
            return outbound.toString(StandardCharsets.US_ASCII);
        }
    }

    private void record(ByteBuffer... buffers) {
        synchronized (outbound) {
            for (ByteBuffer buffer : buffers) {
                while (buffer.hasRemaining()) {
                    outbound.write(buffer.get());
                }
            }
            outbound.notifyAll();
        }
    }

    private static String ascii(ByteBuffer... buffers) {
        StringBuilder text = new StringBuilder();
        for (ByteBuffer buffer : buffers) {
            text.append(StandardCharsets.US_ASCII.decode(buffer.duplicate()));
        }
        return text.toString();
    }

    private void claim(Callback callback) {
        if (!writing.compareAndSet(null, callback)) {
            WritePendingException x = new WritePendingException();
            if (overlap == null) {
                overlap = x;
            }
            throw x;
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
        if (!interest.compareAndSet(null, callback)) {
            throw new ReadPendingException();
        }
    }

    @Override
    public boolean isFillInterested() {
        return interest.get() != null;
    }

    @Override
    public boolean wakeFill() {
        Callback callback = interest.getAndSet(null);
        if (callback == null) {
            return false;
        }
        callback.succeeded();
        return true;
    }

    @Override
    public boolean flush(ByteBuffer... buffers) {
        if (writing.get() != null) {
            WritePendingException x = new WritePendingException();
            if (overlap == null) {
                overlap = x;
            }
            throw x;
        }
        record(buffers);
        return true;
    }

    @Override
    public void write(Callback callback, ByteBuffer... buffers) {
        String text = ascii(buffers);
        beforeWrite.accept(text);
        claim(callback);
        record(buffers);
        if (hold.test(text)) {
            held = callback;
            return;
        }
        writing.set(null);
        callback.succeeded();
    }

    @Override
    public boolean canTransferFiles() {
        return true;
    }

    @Override
    public void transfer(Callback callback, FileChannel file, long position, long count) {
        claim(callback);
        ByteBuffer bytes = ByteBuffer.allocate((int) count);
        try {
            while (bytes.hasRemaining() && file.read(bytes, position + bytes.position()) >= 0) {
                // reads the region whole
            }
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
        record(bytes.flip());
        writing.set(null);
        callback.succeeded();
    }

    @Override
    public SocketAddress localAddress() {
        return new InetSocketAddress("127.0.0.1", 8080);
    }

    @Override
    public SocketAddress remoteAddress() {
        return new InetSocketAddress("127.0.0.1", 40000);
    }

    @Override
    public boolean isOpen() {
        return open;
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
        failInterest();
    }

    @Override
    public void close(Throwable cause) {
        close();
    }

    @Override
    public void abort() {
        close();
    }

    private void failInterest() {
        Callback callback = interest.getAndSet(null);
        if (callback != null) {
            callback.failed(new java.nio.channels.ClosedChannelException());
        }
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

    @Override
    public String toString() {
        return "HoldingEndPoint{" + (open ? "open" : "closed") + (held != null ? ", holding a write" : "") + "}";
    }
}
