package dev.quarry.server.internal.h1;

import dev.quarry.core.Callback;
import dev.quarry.server.test.FakeEndPoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadPendingException;
import java.nio.channels.WritePendingException;
import java.nio.charset.StandardCharsets;
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
final class HoldingEndPoint extends FakeEndPoint {
    private final AtomicReference<Callback> writing = new AtomicReference<>();
    private final AtomicReference<Callback> interest = new AtomicReference<>();
    private volatile Predicate<String> hold = bytes -> false;
    private volatile Consumer<String> beforeWrite = bytes -> {};
    private volatile Callback held;
    /** The first write or flush that found another one pending, or null. */
    volatile WritePendingException overlap;

    HoldingEndPoint() {
        super(new InetSocketAddress("127.0.0.1", 8080), new InetSocketAddress("127.0.0.1", 40000));
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

    private static String ascii(ByteBuffer... buffers) {
        StringBuilder text = new StringBuilder();
        for (ByteBuffer buffer : buffers) {
            text.append(StandardCharsets.US_ASCII.decode(buffer.duplicate()));
        }
        return text.toString();
    }

    private void claim(Callback callback) {
        if (!writing.compareAndSet(null, callback)) {
            overlapped();
        }
    }

    private void overlapped() {
        WritePendingException x = new WritePendingException();
        if (overlap == null) {
            overlap = x;
        }
        throw x;
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
            overlapped();
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
    protected void onClosed(Throwable cause) {
        Callback callback = interest.getAndSet(null);
        if (callback != null) {
            callback.failed(new ClosedChannelException());
        }
    }

    @Override
    public String toString() {
        return "HoldingEndPoint{" + (isOpen() ? "open" : "closed") + (held != null ? ", holding a write" : "") + "}";
    }
}
