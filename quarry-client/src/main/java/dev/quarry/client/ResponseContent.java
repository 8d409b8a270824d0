package dev.quarry.client;

import dev.quarry.core.buffer.RetainableByteBuffer;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The content of one response as an {@link InputStream} with demand: the connection hands over one chunk at a time
 * (a slice of its network buffer, retained for as long as the reader holds it) and parses nothing more until the
 * reader has consumed it. A reader that stops reading therefore stops the connection from reading, and TCP flow
 * control pushes back on the server: memory stays bounded whatever the size of the content.
 *
 * <p>Threads: the connection's parsing thread (a selector thread, or the reader itself when it asks for more) offers
 * chunks and completes or fails the content without blocking: it only sets volatile state and unparks the reader. One
 * reader thread at a time reads and blocks (a virtual thread blocks cheaply).
 */
final class ResponseContent extends InputStream {
    private static final Object COMPLETE = new Object();
    // The largest array the JVMs allocate (a few words below Integer.MAX_VALUE), as InputStream assumes too.
    private static final int MAX_ARRAY_SIZE = Integer.MAX_VALUE - 8;

    private final Source connection;
    private final Exchange exchange;
    // The chunk offered and not yet taken by the reader; taken with getAndSet, so exactly one of the reader or a
    // failure releases its retained buffer.
    private final AtomicReference<ByteBuffer> offered = new AtomicReference<>();
    private volatile RetainableByteBuffer offeredBuffer;
    private volatile Object end; // null, COMPLETE or the failure
    private volatile Thread waiter;
    // Reader-confined.
    private ByteBuffer chunk;
    private RetainableByteBuffer chunkBuffer;
    private boolean closed;

    /**
     * @param connection what offers the chunks: asked for the next one when the reader consumed one, and aborted when
     *     the reader gives up
     * @param exchange the exchange whose response this is
     */
    ResponseContent(Source connection, Exchange exchange) {
        this.connection = connection;
        this.exchange = exchange;
    }

    /**
     * Where the chunks come from: an HTTP/1.1 connection (which parses on when asked) or an HTTP/2 stream (which
     * offers its next buffered chunk and credits the server's send window).
     */
    interface Source {
        /** The reader consumed the chunk it was offered: offer the next one when there is one. Never blocks. */
        void demand();

        /** The reader gave up on the content (closed it early, or was interrupted). Never blocks. */
        void abort(Exchange exchange, Throwable cause);
    }

    // --- producer side -----------------------------------------------------------------------------------------------

    /** Offers a chunk, a slice of {@code buffer}, which the caller retained for the reader. */
    void offer(ByteBuffer slice, RetainableByteBuffer buffer) {
        offeredBuffer = buffer;
        offered.set(slice);
        if (end instanceof Throwable) {
            // Failed meanwhile (the reader closed the response while the head was being parsed): fail() may have
            // looked before the chunk was set, so release it here; getAndSet lets only one of the two do it.
            releaseOffered();
        }
        wake();
    }

    void complete() {
        if (end == null) {
            end = COMPLETE;
        }
        wake();
    }

    void fail(Throwable failure) {
        if (end == null) {
            end = failure;
        }
        releaseOffered();
        wake();
    }

    boolean isComplete() {
        return end == COMPLETE;
    }

    private void releaseOffered() {
        ByteBuffer slice = offered.getAndSet(null);
        if (slice != null) {
            offeredBuffer.release();
        }
    }

    private void wake() {
        Thread thread = waiter;
        if (thread != null) {
            LockSupport.unpark(thread);
        }
    }

    // --- reader side -------------------------------------------------------------------------------------------------

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] bytes, int offset, int length) throws IOException {
        java.util.Objects.checkFromIndexSize(offset, length, bytes.length);
        if (length == 0) {
            return 0;
        }
        if (!awaitChunk()) {
            return -1;
        }
        int n = Math.min(length, chunk.remaining());
        chunk.get(bytes, offset, n);
        if (!chunk.hasRemaining()) {
            consumed();
        }
        return n;
    }

    /**
     * Reads the rest of the content straight from the chunks into one array, sized to the first chunk and grown only
     * when more arrive. {@link InputStream#readAllBytes()} would read through a fresh 16 KiB buffer on every call: for
     * a small response ({@link HttpResponse#asBytes()}) that is most of what the whole exchange allocates.
     */
    @Override
    public byte[] readAllBytes() throws IOException {
        byte[] all = new byte[0];
        int size = 0;
        while (awaitChunk()) {
            int n = chunk.remaining();
            if (n > all.length - size) {
                if (n > MAX_ARRAY_SIZE - size) {
                    throw new OutOfMemoryError("the response content exceeds " + MAX_ARRAY_SIZE + " bytes");
                }
                // Doubles past the first chunk, so that content in many chunks is copied O(1) times per byte.
                int grown = all.length == 0
                        ? n
                        : (int) Math.min(MAX_ARRAY_SIZE, Math.max(size + (long) n, 2L * all.length));
                all = Arrays.copyOf(all, grown);
            }
            chunk.get(all, size, n);
            size += n;
            consumed();
        }
        return size == all.length ? all : Arrays.copyOf(all, size);
    }

    /**
     * Transfers what is available now, chunk by chunk, to a sink, without copying to an intermediate array.
     *
     * @return false at the end of the content
     */
    boolean next(ChunkSink sink) throws IOException {
        if (!awaitChunk()) {
            return false;
        }
        sink.accept(chunk);
        chunk.position(chunk.limit());
        consumed();
        return true;
    }

    interface ChunkSink {
        void accept(ByteBuffer chunk) throws IOException;
    }

    private void consumed() {
        chunk = null;
        RetainableByteBuffer buffer = chunkBuffer;
        chunkBuffer = null;
        buffer.release();
        connection.demand();
    }

    /** @return true when {@link #chunk} holds bytes; false at the end of the content */
    private boolean awaitChunk() throws IOException {
        if (closed) {
            throw new IOException("response content closed");
        }
        if (chunk != null) {
            return true;
        }
        while (true) {
            ByteBuffer slice = offered.getAndSet(null);
            if (slice != null) {
                chunk = slice;
                // Read after taking the slice: the producer wrote the buffer before the slice, and offers no other
                // chunk until this one is consumed. Read before, it could be the previous value (null for the
                // first chunk) when the offer lands between the two reads.
                chunkBuffer = offeredBuffer;
                return true;
            }
            Object state = end;
            if (state == COMPLETE) {
                return false;
            }
            if (state instanceof Throwable failure) {
                throw failure instanceof IOException io
                        ? new IOException(io.getMessage(), io)
                        : new IOException("response failed: " + failure, failure);
            }
            waiter = Thread.currentThread();
            // Re-check after publishing the waiter: the producer sets its state, then reads the waiter.
            if (offered.get() == null && end == null) {
                LockSupport.park(this);
            }
            waiter = null;
            if (Thread.interrupted()) {
                InterruptedIOException interrupted = new InterruptedIOException("interrupted reading the response");
                connection.abort(exchange, interrupted);
                Thread.currentThread().interrupt();
                throw interrupted;
            }
        }
    }

    /**
     * Closes the content: if it was not read to the end, the connection cannot be reused and is closed (the exchange
     * is aborted). Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (chunk != null) {
            chunk = null;
            chunkBuffer.release();
            chunkBuffer = null;
        }
        if (end != COMPLETE) {
            connection.abort(exchange, new IOException("response content closed before its end"));
            releaseOffered();
        }
    }
}
