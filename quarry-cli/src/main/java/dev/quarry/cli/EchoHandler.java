package dev.quarry.cli;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.core.IteratingCallback;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Content;
import dev.quarry.server.Request;
import dev.quarry.server.Response;

/**
 * {@code POST /echo}: streams the request body back, any size, Content-Length or chunked, with back pressure end to
 * end: the next piece of the body is read only when the previous one was written, so a client that does not read its
 * response stops being read from. Asynchronous: no thread waits, neither for the body nor for the socket; an
 * {@link IteratingCallback} keeps reads and writes that complete at once from recursing.
 */
final class EchoHandler implements AsyncHandler {
    @Override
    public void handle(Request request, Response response, Callback callback) {
        response.headers().put("Content-Type", request.header("Content-Type").orElse("application/octet-stream"));
        if (request.contentLength() >= 0) {
            response.headers().put("Content-Length", Long.toString(request.contentLength()));
        }
        new Pump(request, response, callback).iterate();
    }

    @Override
    public String toString() {
        return "EchoHandler";
    }

    /** Reads a chunk, writes it, releases it once written, and only then reads the next. */
    private static final class Pump extends IteratingCallback {
        private final Request request;
        private final Response response;
        private final Callback callback;
        private final Runnable onContent = this::iterate;
        private Content.Chunk chunk;

        Pump(Request request, Response response, Callback callback) {
            this.request = request;
            this.response = response;
            this.callback = callback;
        }

        @Override
        protected Action process() throws Throwable {
            Content.Chunk written = chunk;
            if (written != null) {
                chunk = null;
                written.release();
                if (written.isLast()) {
                    return Action.SUCCEEDED;
                }
            }
            Content.Chunk next = request.read();
            if (next == null) {
                request.demand(onContent);
                return Action.IDLE;
            }
            if (next.failure() != null) {
                throw next.failure();
            }
            chunk = next;
            response.write(next.isLast(), next.byteBuffer(), this);
            return Action.SCHEDULED;
        }

        @Override
        protected void onCompleteSuccess() {
            callback.succeeded();
        }

        @Override
        protected void onCompleteFailure(Throwable cause) {
            Content.Chunk written = chunk;
            chunk = null;
            if (written != null) {
                written.release();
            }
            callback.failed(cause);
        }

        @Override
        public InvocationType invocationType() {
            return InvocationType.NON_BLOCKING;
        }
    }
}
