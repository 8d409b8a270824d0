package dev.quarry.server.internal;

import dev.quarry.core.Callback;
import dev.quarry.core.FutureCallback;
import dev.quarry.core.InvocationType;
import dev.quarry.server.Request;
import dev.quarry.server.Response;
import dev.quarry.server.ResponseWrapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The error answers given outside the exchange's own failure path — {@link Response#sendError(int, String)}, the
 * router's 404 and 405, the 503 of an overloaded server — so that they get the same error pages, and the same
 * {@code Date} and {@code Server} fields, as a failing handler.
 *
 * <p>Thread-safety: stateless; each call concerns one exchange, whose response has one writer at a time.
 */
public final class ErrorResponses {
    private ErrorResponses() {}

    /**
     * Answers an error status with its error page, if the request's server has one for it and no page ran for the
     * request yet.
     *
     * @param request the request, possibly wrapped
     * @param response the response, not committed; its fields are kept (e.g. {@code Allow}, {@code Retry-After})
     * @param status the error status
     * @param message the short explanation of the plain default error
     * @param callback completed when the page completed
     * @return whether a page runs; if false, nothing was done
     */
    public static boolean answerWithPage(
            Request request, Response response, int status, String message, Callback callback) {
        Exchange exchange = Exchange.of(request);
        return exchange != null
                && !response.isCommitted()
                && exchange.startErrorPage(request, response, status, message, null, callback);
    }

    /**
     * Answers an error status with its error page if there is one (see {@link #answerWithPage}), else with the plain
     * default error: a {@code text/plain} body of the status and the message.
     *
     * @param request the request, possibly wrapped
     * @param response the response, not committed; its fields are kept
     * @param status the error status
     * @param message the short explanation, e.g. {@code Not Found: /missing}
     * @param callback completed when the response was written
     */
    public static void answer(Request request, Response response, int status, String message, Callback callback) {
        if (!answerWithPage(request, response, status, message, callback)) {
            Exchange.writePlainError(response, status, message, callback);
        }
    }

    /**
     * {@link Response#sendError(int, String)}: unless committed, forgets the status and fields set so far (keeping
     * Date and Server), then runs the error page of the status if there is one, else writes the plain default error;
     * blocking until the response is complete.
     *
     * @param response the response, the server's or a wrapper of it
     * @param status the status
     * @param message the short explanation
     * @throws IOException if writing fails
     */
    public static void sendError(Response response, int status, String message) throws IOException {
        if (response.isCommitted()) {
            return;
        }
        ServerResponse server = innermost(response);
        if (server != null) {
            server.resetForError();
            Exchange exchange = server.exchange();
            FutureCallback done = new FutureCallback();
            Callback complete = Callback.from(InvocationType.NON_BLOCKING, () -> server.complete(done), done::failed);
            if (exchange.startErrorPage(exchange.request(), response, status, message, null, complete)) {
                done.block();
                return;
            }
        }
        response.send(
                status,
                "text/plain; charset=utf-8",
                ByteBuffer.wrap((status + " " + message + "\n").getBytes(StandardCharsets.UTF_8)));
    }

    private static ServerResponse innermost(Response response) {
        Response current = response;
        while (current instanceof ResponseWrapper wrapper) {
            current = wrapper.wrapped();
        }
        return current instanceof ServerResponse server ? server : null;
    }
}
