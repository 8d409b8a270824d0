package dev.quarry.server;

import dev.quarry.core.Callback;
import dev.quarry.core.FutureCallback;
import dev.quarry.server.internal.Exchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A blocking, buffering {@link OutputStream} over a {@link Response}'s asynchronous writes: bytes are gathered up to
 * the buffer size and written when it fills, on {@link #flush()} and on {@link #close()}, which writes the last content
 * (so a small body written and closed goes out with a Content-Length in one write). A write of at least a buffer's size
 * skips the copy. Each write blocks the caller until the response's write completes: on a virtual thread, only the
 * virtual thread. The server gives blocking handlers one from {@link Response#outputStream()}; a
 * {@link ResponseWrapper} that changes how content is written (throttling, say) returns one over itself, so that
 * blocking handlers go through its writes too.
 *
 * <p>A stream serves the request in progress when it was made: once that request is over (the server reuses its response
 * objects for later requests on HTTP/1.1), its writes fail with an {@link IllegalStateException} ("response already
 * completed") instead of reaching another client's response.
 *
 * <p>Not thread-safe: one writer. Holds one heap buffer of the given size.
 */
public final class ResponseOutputStream extends OutputStream {
    private final Response response;
    private final ByteBuffer buffer;
    // The server's exchange under the response (null if there is none) and its generation when this stream was made.
    private final Exchange exchange;
    private final int generation;
    private boolean closed;

    /**
     * @param response where the bytes go, by {@link Response#write(boolean, ByteBuffer, Callback)}
     * @param bufferSize how many bytes to gather before writing
     */
    public ResponseOutputStream(Response response, int bufferSize) {
        this.response = Objects.requireNonNull(response, "response");
        if (bufferSize <= 0) {
            throw new IllegalArgumentException("buffer size must be positive: " + bufferSize);
        }
        this.buffer = ByteBuffer.allocate(bufferSize);
        this.exchange = Exchange.of(response);
        this.generation = exchange == null ? 0 : exchange.generation();
    }

    @Override
    public void write(int b) throws IOException {
        ensureOpen();
        if (!buffer.hasRemaining()) {
            writeBuffer();
        }
        buffer.put((byte) b);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        ensureOpen();
        Objects.checkFromIndexSize(offset, length, bytes.length);
        while (length > 0) {
            if (!buffer.hasRemaining()) {
                writeBuffer();
            }
            if (buffer.position() == 0 && length >= buffer.capacity()) {
                blockingWrite(false, ByteBuffer.wrap(bytes, offset, length));
                return;
            }
            int n = Math.min(length, buffer.remaining());
            buffer.put(bytes, offset, n);
            offset += n;
            length -= n;
        }
    }

    /** Writes what is gathered; commits the response (sends its head) if nothing did yet. */
    @Override
    public void flush() throws IOException {
        ensureOpen();
        if (buffer.position() > 0 || !response.isCommitted()) {
            writeBuffer();
        }
    }

    /** Writes what is gathered as the last content, completing the response; does nothing the second time. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        buffer.flip();
        blockingWrite(true, buffer);
    }

    /**
     * Closes without blocking, for the code that completes an exchange whose handler left the stream open: the
     * gathered bytes are written as the last content, then {@code callback} completes.
     *
     * @param callback completed when the last write is (at once if the stream is closed already)
     */
    public void closeAsync(Callback callback) {
        if (closed) {
            callback.succeeded();
            return;
        }
        closed = true;
        if (isOver()) {
            callback.failed(Exchange.responseCompleted());
            return;
        }
        buffer.flip();
        response.write(true, buffer, callback);
    }

    /** @return whether {@link #close()} or {@link #closeAsync} was called */
    public boolean isClosed() {
        return closed;
    }

    private void writeBuffer() throws IOException {
        buffer.flip();
        try {
            blockingWrite(false, buffer);
        } finally {
            buffer.clear();
        }
    }

    private void blockingWrite(boolean last, ByteBuffer content) throws IOException {
        if (isOver()) {
            throw Exchange.responseCompleted();
        }
        FutureCallback done = new FutureCallback();
        response.write(last, content, done);
        done.block();
    }

    /** @return whether the request this stream served is over, and the server's response serves another one */
    private boolean isOver() {
        return exchange != null && exchange.isOver(generation);
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("response stream closed");
        }
    }
}
