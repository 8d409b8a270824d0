package dev.quarry.server.internal.h2;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.buffer.RetainableByteBuffer;
import dev.quarry.io.EndPoint;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The input buffer of one HTTP/2 connection (flush mode: the unparsed bytes between position and limit). Request
 * content may still reference the buffer after it was parsed (large DATA payloads are slices that share it, through
 * {@link #share()}): then the unparsed bytes move to a fresh buffer rather than overwrite them. The buffer goes back to the pool whenever the
 * socket has nothing more to read and nothing references it.
 *
 * <p>Threading: the producer only (one at a time), also for {@link #release}. O(1) per fill; a copy of the unparsed
 * bytes only when the buffer is still referenced.
 */
final class Http2InputBuffer {
    private final ByteBufferPool buffers;
    private final EndPoint endPoint;
    private final int size;
    private final Http2ContentBudget budget;
    private RetainableByteBuffer input;
    // How payloads share `input`; made on the first share, dropped whenever `input` changes.
    private Http2SharedInput shared;
    private boolean drained;

    /**
     * @param buffers the pool
     * @param endPoint what to read from
     * @param size the buffer size: at least a frame of the largest size we accept, with its header
     * @param budget what payloads sharing the buffer are charged to
     */
    Http2InputBuffer(ByteBufferPool buffers, EndPoint endPoint, int size, Http2ContentBudget budget) {
        this.buffers = buffers;
        this.endPoint = endPoint;
        this.size = size;
        this.budget = budget;
    }

    /** @return the buffer in flush mode, or null when none is held (nothing unparsed) */
    RetainableByteBuffer buffer() {
        return input;
    }

    /**
     * @return how payloads share the current buffer (which must exist: a payload was just parsed from it); the object
     *     is made once per buffer that a payload shares, never for content that is copied
     */
    Http2SharedInput share() {
        Http2SharedInput current = shared;
        if (current == null) {
            current = new Http2SharedInput(input, budget);
            shared = current;
        }
        return current;
    }

    /** Appends bytes already read (after the preface, or after an upgrade request). */
    void prime(ByteBuffer buffered) {
        if (buffered.hasRemaining()) {
            ensureInput(buffered.remaining());
            ByteBuffer in = input.byteBuffer();
            in.compact();
            in.put(buffered);
            in.flip();
        }
    }

    /**
     * Reads more bytes.
     *
     * @return how many bytes were read, if any; 0 if none are available now (the caller registers fill interest);
     *     negative at the end of input
     */
    int fill() throws IOException {
        if (drained) {
            // The last read did not fill the buffer: the socket had nothing more, so reading now would return 0.
            drained = false;
            releaseIfUnused();
            return 0;
        }
        ensureInput(0);
        ByteBuffer in = input.byteBuffer();
        in.compact();
        int space = in.remaining();
        int read;
        try {
            read = endPoint.fill(in);
        } finally {
            in.flip();
        }
        if (read > 0) {
            drained = read < space;
            return read;
        }
        if (read == 0) {
            releaseIfUnused();
            return 0;
        }
        return -1;
    }

    private void releaseIfUnused() {
        if (input != null && !input.byteBuffer().hasRemaining() && !input.isRetained()) {
            input.release();
            input = null;
            shared = null;
        }
    }

    private void ensureInput(int minimum) {
        int capacity = Math.max(minimum, size);
        if (input == null) {
            input = buffers.acquire(capacity, true);
            input.byteBuffer().flip();
            return;
        }
        if (input.isRetained()) {
            // Request content still references this buffer: move the unparsed bytes to a fresh one.
            RetainableByteBuffer fresh =
                    buffers.acquire(Math.max(capacity, input.byteBuffer().remaining()), true);
            fresh.byteBuffer().put(input.byteBuffer());
            fresh.byteBuffer().flip();
            input.release();
            input = fresh;
            shared = null;
        }
    }

    /** Gives the buffer back (the connection closed). */
    void release() {
        RetainableByteBuffer current = input;
        if (current != null) {
            input = null;
            shared = null;
            current.release();
        }
    }

    @Override
    public String toString() {
        RetainableByteBuffer current = input;
        return "Http2InputBuffer{"
                + (current == null ? "none" : current.byteBuffer().remaining() + " unparsed") + "}";
    }
}
