package dev.quarry.server.handlers;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpHeader;
import dev.quarry.server.Response;
import dev.quarry.server.ResponseOutputStream;
import dev.quarry.server.ResponseWrapper;
import dev.quarry.server.internal.Exchange;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The response a {@link ThrottleHandler} gives to the handler it wraps: content written with
 * {@link #write(boolean, ByteBuffer, Callback)}, {@link #write(FileChannel, long, long, boolean, Callback)}, the
 * {@code send} methods or {@link #outputStream()} goes out chunk by chunk at the pace the buckets allow (see
 * {@link ThrottledWrite}). Empty writes pass straight through.
 *
 * <p>A single last write of a known size keeps its {@code Content-Length} although it is sent in several chunks: the
 * length is declared before the first chunk, as the unthrottled response would have.
 *
 * <p>A write still waiting for tokens when its request is over (a handler that completed before its write did) fails
 * rather than go into the next request that the server's recycled response serves (see {@link ThrottledWrite}).
 *
 * <p>Thread-safety: as any response, one write at a time.
 */
final class ThrottledResponse extends ResponseWrapper {
    private static final int MAX_STREAM_BUFFER = 64 * 1024;

    private final RequestThrottle request;
    // The generation of the server's exchange under this response at the start: the request these writes are for.
    private final int generation;
    private ResponseOutputStream stream;

    ThrottledResponse(Response wrapped, RequestThrottle request) {
        super(wrapped);
        this.request = request;
        Exchange exchange = Exchange.of(wrapped);
        this.generation = exchange == null ? 0 : exchange.generation();
    }

    /** @return whether the request of this response is over: the server's response may serve another one now */
    boolean isOver() {
        Exchange exchange = Exchange.of(wrapped());
        return exchange != null && exchange.isOver(generation);
    }

    RequestThrottle request() {
        return request;
    }

    @Override
    public void write(boolean last, ByteBuffer content, Callback callback) {
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(callback, "callback");
        if (isOver()) {
            callback.failed(Exchange.responseCompleted());
            return;
        }
        if (!content.hasRemaining()) {
            wrapped().write(last, content, callback);
            return;
        }
        declareLength(last, content.remaining());
        ThrottledWrite.write(this, last, content, callback);
    }

    @Override
    public void write(FileChannel file, long position, long count, boolean last, Callback callback) {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(callback, "callback");
        if (isOver()) {
            callback.failed(Exchange.responseCompleted());
            return;
        }
        if (count < 0 || position < 0) {
            callback.failed(new IllegalArgumentException("bad file region " + position + "+" + count));
            return;
        }
        if (count == 0) {
            wrapped().write(last, ByteBuffer.allocate(0), callback);
            return;
        }
        declareLength(last, count);
        ThrottledWrite.write(this, file, position, count, last, callback);
    }

    private void declareLength(boolean last, long length) {
        if (last && !isCommitted() && !headers().contains(HttpHeader.CONTENT_LENGTH)) {
            headers().put(HttpHeader.CONTENT_LENGTH, Long.toString(length));
        }
    }

    /** A buffered, blocking stream whose writes are throttled like the others. */
    @Override
    public OutputStream outputStream() {
        if (stream == null) {
            int size = Math.min(MAX_STREAM_BUFFER, request.throttle().limits().chunkSize());
            stream = new ResponseOutputStream(this, Math.max(1024, size));
        }
        return stream;
    }

    /**
     * @param callback the callback the server gave the throttle handler
     * @return the callback to give the wrapped handler: on success it first flushes and closes an output stream the
     *     handler left open, then, either way, frees the request's slot and completes {@code callback}
     */
    Callback completion(Callback callback) {
        return new Completion(callback);
    }

    private final class Completion implements Callback {
        private final Callback callback;
        private final AtomicBoolean done = new AtomicBoolean();

        Completion(Callback callback) {
            this.callback = callback;
        }

        @Override
        public void succeeded() {
            if (!done.compareAndSet(false, true)) {
                return;
            }
            ResponseOutputStream open = stream;
            if (open != null && !open.isClosed()) {
                // A blocking handler that did not close its stream: its last bytes still go out throttled.
                open.closeAsync(Callback.from(callback.invocationType(), () -> finish(null), this::finish));
                return;
            }
            finish(null);
        }

        @Override
        public void failed(Throwable failure) {
            if (done.compareAndSet(false, true)) {
                finish(failure);
            }
        }

        private void finish(Throwable failure) {
            request.release();
            if (failure == null) {
                callback.succeeded();
            } else {
                callback.failed(failure);
            }
        }

        @Override
        public InvocationType invocationType() {
            return callback.invocationType();
        }

        @Override
        public String toString() {
            return "ThrottleCompletion[" + request + "]";
        }
    }
}
