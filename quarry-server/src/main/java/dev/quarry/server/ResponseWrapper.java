package dev.quarry.server;

import dev.quarry.core.Callback;
import dev.quarry.http.HttpFields;
import dev.quarry.server.internal.Exchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A response that delegates everything to another one: extend it to transform what a handler further down writes
 * (throttling, compression). Override {@link #write(boolean, ByteBuffer, Callback)} and the file variant; the blocking
 * methods of this class go through them.
 *
 * <p>A wrapper serves the request in progress when it was made. The server reuses its own response objects for later
 * requests on HTTP/1.1, so once that request is over, the writes, {@link #status(int)}, {@link #headers()} and
 * {@link #trailers} of this class fail with an {@link IllegalStateException} ("response already completed") instead of
 * reaching another client's response.
 */
public class ResponseWrapper implements Response {
    private final Response wrapped;
    // The generation of the server's exchange under the wrapped response when this wrapper was made: the request this
    // wrapper serves. The exchange itself is found again when checking (a short walk down the wrappers), so that a
    // wrapper, made per request, is no larger for it.
    private final int generation;
    private OutputStream outputStream;

    /** @param wrapped the response to delegate to */
    public ResponseWrapper(Response wrapped) {
        this.wrapped = Objects.requireNonNull(wrapped, "wrapped");
        Exchange exchange = Exchange.of(wrapped);
        this.generation = exchange == null ? 0 : exchange.generation();
    }

    /** @return whether the request this wrapper served is over, and the server's response serves another one */
    final boolean isOver() {
        Exchange exchange = Exchange.of(wrapped);
        return exchange != null && exchange.isOver(generation);
    }

    /** @return the wrapped response */
    public Response wrapped() {
        return wrapped;
    }

    @Override
    public int status() {
        return wrapped.status();
    }

    @Override
    public Response status(int status) {
        if (isOver()) {
            throw Exchange.responseCompleted();
        }
        wrapped.status(status);
        return this;
    }

    @Override
    public HttpFields headers() {
        if (isOver()) {
            throw Exchange.responseCompleted(); // they are the next request's fields now
        }
        return wrapped.headers();
    }

    @Override
    public boolean isCommitted() {
        return wrapped.isCommitted();
    }

    @Override
    public void write(boolean last, ByteBuffer content, Callback callback) {
        if (isOver()) {
            callback.failed(Exchange.responseCompleted());
            return;
        }
        wrapped.write(last, content, callback);
    }

    @Override
    public void write(FileChannel file, long position, long count, boolean last, Callback callback) {
        if (isOver()) {
            callback.failed(Exchange.responseCompleted());
            return;
        }
        wrapped.write(file, position, count, last, callback);
    }

    /** A buffered stream whose writes go through {@link #write(boolean, ByteBuffer, Callback)} of this wrapper. */
    @Override
    public OutputStream outputStream() {
        if (outputStream == null) {
            outputStream = new WrapperOutputStream(this);
        }
        return outputStream;
    }

    /**
     * Completes this wrapper's output stream if the handler opened it and did not close it: its buffered bytes go
     * through {@link #write(boolean, ByteBuffer, Callback)} as the last content. Blocking; called when a blocking
     * handler returns, because the exchange only knows the innermost response.
     *
     * @throws IOException if the write fails
     */
    void closeOutput() throws IOException {
        if (outputStream != null) {
            outputStream.close();
        }
    }

    @Override
    public void send(String text) throws IOException {
        if (!headers().contains("Content-Type")) {
            headers().put("Content-Type", "text/plain; charset=utf-8");
        }
        send(status(), null, ByteBuffer.wrap(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    @Override
    public void send(int status, String contentType, ByteBuffer body) throws IOException {
        status(status);
        if (contentType != null) {
            headers().put("Content-Type", contentType);
        }
        dev.quarry.core.FutureCallback done = new dev.quarry.core.FutureCallback();
        write(true, body, done);
        done.block();
    }

    /**
     * Sends an error response through this wrapper, as the server's response does: unless committed, the status and
     * fields set so far are dropped (Date and Server stay), and the status's error page answers if the server has one,
     * else the plain default error.
     */
    @Override
    public void sendError(int status, String message) throws IOException {
        dev.quarry.server.internal.ErrorResponses.sendError(this, status, message);
    }

    @Override
    public void trailers(Supplier<HttpFields> trailers) {
        if (isOver()) {
            throw Exchange.responseCompleted();
        }
        wrapped.trailers(trailers);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + wrapped + "]";
    }

    /** Buffers up to 16 KiB and writes through the wrapper, blocking. */
    private static final class WrapperOutputStream extends OutputStream {
        private final Response response;
        private final ByteBuffer buffer = ByteBuffer.allocate(16 * 1024);
        private boolean closed;

        WrapperOutputStream(Response response) {
            this.response = response;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            if (closed) {
                throw new IOException("response stream closed");
            }
            while (length > 0) {
                if (!buffer.hasRemaining()) {
                    flushBuffer(false);
                }
                int n = Math.min(length, buffer.remaining());
                buffer.put(bytes, offset, n);
                offset += n;
                length -= n;
            }
        }

        @Override
        public void flush() throws IOException {
            if (!closed && buffer.position() > 0) {
                flushBuffer(false);
            }
        }

        @Override
        public void close() throws IOException {
            if (!closed) {
                closed = true;
                flushBuffer(true);
            }
        }

        private void flushBuffer(boolean last) throws IOException {
            buffer.flip();
            dev.quarry.core.FutureCallback done = new dev.quarry.core.FutureCallback();
            response.write(last, buffer, done);
            try {
                done.block();
            } finally {
                buffer.clear();
            }
        }
    }
}
