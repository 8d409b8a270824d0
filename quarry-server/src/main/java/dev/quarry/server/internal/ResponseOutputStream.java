package dev.quarry.server.internal;

import dev.quarry.core.Callback;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * A blocking, buffering {@link OutputStream} over the asynchronous response: bytes are aggregated up to the buffer
 * size and written when it fills, on {@link #flush()} and on {@link #close()}, which completes the response (so a
 * small body written and closed goes out with a Content-Length in one write).
 *
 * <p>Not thread-safe: one writer.
 */
final class ResponseOutputStream extends OutputStream {
    private final ServerResponse response;
    private final ByteBuffer buffer;
    private boolean closed;

    ResponseOutputStream(ServerResponse response, int size) {
        this.response = response;
        this.buffer = ByteBuffer.allocate(size);
    }

    @Override
    public void write(int b) throws IOException {
        ensureOpen();
        if (!buffer.hasRemaining()) {
            flushBuffer(false);
        }
        buffer.put((byte) b);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        ensureOpen();
        while (length > 0) {
            if (!buffer.hasRemaining()) {
                flushBuffer(false);
            }
            if (buffer.position() == 0 && length >= buffer.capacity()) {
                // Large writes skip the copy.
                response.blockingWrite(false, ByteBuffer.wrap(bytes, offset, length));
                return;
            }
            int n = Math.min(length, buffer.remaining());
            buffer.put(bytes, offset, n);
            offset += n;
            length -= n;
        }
    }

    @Override
    public void flush() throws IOException {
        ensureOpen();
        if (buffer.position() > 0 || !response.isCommitted()) {
            flushBuffer(false);
        }
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        buffer.flip();
        response.blockingWrite(true, buffer);
    }

    /** Closes without blocking: the exchange completes the response through {@code callback}. */
    void closeAsync(Callback callback) {
        if (closed) {
            callback.succeeded();
            return;
        }
        closed = true;
        buffer.flip();
        response.write(true, buffer, callback);
    }

    boolean isClosed() {
        return closed;
    }

    private void flushBuffer(boolean last) throws IOException {
        buffer.flip();
        try {
            response.blockingWrite(last, buffer);
        } finally {
            buffer.clear();
        }
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("response stream closed");
        }
    }
}
