package dev.quarry.server;

/**
 * Answers a failure of a given type that a handler threw (or failed its callback with) before the response was
 * committed: registered with {@link ServerBuilder#onError(Class, ErrorHandler)}, it may write any response — a status
 * of its choice, a JSON problem document, a redirect — or call {@link Response#sendError(int, String)} to go on to the
 * {@linkplain ServerBuilder#errorPage(int, Handler) error page} of a status.
 *
 * <p>It has the blocking shape of a {@link Handler} and runs where a blocking handler runs (a virtual thread, or a
 * pooled thread), through the server's dispatch point, never on a selector thread. When it is called, the response is
 * reset (no status, fields or content from the failed handler, only {@code Date} and {@code Server}) and its status
 * preset to what the server would have answered: the status of an {@link dev.quarry.http.HttpException}, else 500.
 * If it throws before committing, the server answers that status with its plain default error.
 *
 * <pre>{@code
 * builder.onError(NoSuchElementException.class, (failure, request, response) ->
 *         response.send(404, "text/plain; charset=utf-8", ByteBuffer.wrap(NOT_HERE)));
 * }</pre>
 *
 * @param <T> the type of failure it answers (and its subclasses, unless a more specific handler is registered)
 */
@FunctionalInterface
public interface ErrorHandler<T extends Throwable> {

    /**
     * Answers a failure.
     *
     * @param failure what the handler failed with
     * @param request the request
     * @param response the response, reset, with the status the server would have answered
     * @throws Exception anything; the server then answers with its plain default error
     */
    void handle(T failure, Request request, Response response) throws Exception;
}
