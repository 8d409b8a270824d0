package dev.quarry.server.internal;

import dev.quarry.server.Content;
import dev.quarry.server.Request;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.concurrent.locks.LockSupport;

/**
 * A blocking {@link InputStream} over the demand-driven request content: when nothing is available it demands and
 * waits (on a virtual thread this parks only the virtual thread). Reads only as fast as the handler consumes, so the
 * client is slowed by TCP flow control instead of filling server memory.
 *
 * <p>The wake-up takes no lock: the demand callback runs on an I/O thread that must not block (nor wait for the reader
 * to release a lock), so it only sets a flag and unparks the reader.
 *
 * <p>A stream serves the request in progress when it was made: once that request is over (an HTTP/1.1 request object is
 * recycled for the next request), reads fail with an {@link IllegalStateException} instead of taking the next
 * request's content.
 *
 * <p>Not thread-safe: one reader.
 */
final class RequestInputStream extends InputStream {
    private final Request request;
    private final Exchange exchange;
    private final int generation;
    private final byte[] one = new byte[1];
    // Written by the demand callback, read by the reader; the reader resets it before each demand.
    private volatile boolean signalled;
    private volatile Thread reader;
    private Content.Chunk chunk;
    private boolean eof;

    /**
     * @param request the request whose content to read
     * @param exchange its exchange, whose generation names the request in progress
     */
    RequestInputStream(Request request, Exchange exchange) {
        this.request = request;
        this.exchange = exchange;
        this.generation = exchange.generation();
    }

    @Override
    public int read() throws IOException {
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] bytes, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        while (true) {
            if (chunk != null) {
                if (chunk.failure() != null) {
                    Throwable failure = chunk.failure();
                    throw failure instanceof IOException io ? io : new IOException(failure.getMessage(), failure);
                }
                int remaining = chunk.remaining();
                if (remaining > 0) {
                    int n = Math.min(remaining, length);
                    chunk.byteBuffer().get(bytes, offset, n);
                    return n;
                }
                boolean last = chunk.isLast();
                chunk.release();
                chunk = null;
                if (last) {
                    eof = true;
                }
            }
            if (eof) {
                return -1;
            }
            if (exchange.isOver(generation)) {
                throw Exchange.requestCompleted();
            }
            chunk = request.read();
            if (chunk == null) {
                awaitContent();
            }
        }
    }

    private void awaitContent() throws IOException {
        signalled = false;
        reader = Thread.currentThread();
        request.demand(this::signal);
        // The flag is written before the unpark, and read after each return from park (which may be spurious).
        while (!signalled) {
            LockSupport.park(this);
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for request content");
            }
        }
    }

    /** The demand callback: runs on an I/O thread, only wakes the reader. */
    private void signal() {
        signalled = true;
        LockSupport.unpark(reader);
    }

    @Override
    public int available() {
        return chunk == null ? 0 : chunk.remaining();
    }

    @Override
    public void close() {
        if (chunk != null) {
            chunk.release();
            chunk = null;
        }
    }
}
