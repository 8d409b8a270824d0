package dev.quarry.server.handlers;

import dev.quarry.core.Callback;
import dev.quarry.core.FutureCallback;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * The blocking stream of a {@link ThrottledResponse}, for blocking handlers: bytes are gathered in a buffer and written
 * through the throttled response when it fills, on {@link #flush()} and on {@link #close()}, blocking the caller (on a
 * virtual thread, only the virtual thread) until the throttle let them out. Writes of at least a buffer's size skip
 * the copy. So a blocking handler is throttled exactly like an asynchronous one and buffers at most one buffer.
 *
 * <p>Not thread-safe: one writer.
 */
final class ThrottledOutputStream extends OutputStream {
    private final ThrottledResponse response;
    private final ByteBuffer buffer;
    private boolean closed;

    ThrottledOutputStream(ThrottledResponse response, int size) {
        this.response = response;
        this.buffer = ByteBuffer.allocate(size);
    }

    @Override
    public void write(int b) throws IOException {
        ensureOpen();
        if (!buffer.hasRemaining()) {
            writeBuffer(false);
        }
        buffer.put((byte) b);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        ensureOpen();
        java.util.Objects.checkFromIndexSize(offset, length, bytes.length);
        while (length > 0) {
            if (buffer.position() == 0 && length >= buffer.capacity()) {
                blockingWrite(false, ByteBuffer.wrap(bytes, offset, length));
                return;
            }
            if (!buffer.hasRemaining()) {
                writeBuffer(false);
                continue;
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
        if (buffer.position() > 0) {
            writeBuffer(false);
        }
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        buffer.flip();
        blockingWrite(true, buffer);
    }

    /** Closes without blocking, for the handler's completion: the rest goes out throttled, then {@code callback}. */
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

    private void writeBuffer(boolean last) throws IOException {
        buffer.flip();
        try {
            blockingWrite(last, buffer);
        } finally {
            buffer.clear();
        }
    }

    private void blockingWrite(boolean last, ByteBuffer content) throws IOException {
        FutureCallback done = new FutureCallback();
        response.write(last, content, done);
        done.block();
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("response stream closed");
        }
    }
}
