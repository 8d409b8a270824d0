package dev.quarry.server;

/**
 * The blocking handler shape: read the body with {@link Request#inputStream()}, write with
 * {@link Response#outputStream()} or {@link Response#send(String)}, and return. It runs on a virtual thread (or a
 * pooled platform thread when virtual threads are off), so blocking is cheap; the response is completed when the
 * method returns, and a thrown exception becomes a 500 (or aborts the response if it was already committed).
 *
 * <p>The server bounds how many blocking handlers run at once; beyond the bound a request waits in a bounded queue, and
 * beyond that it is answered 503 with {@code Retry-After}.
 */
@FunctionalInterface
public interface Handler {

    /**
     * Handles one request.
     *
     * @param request the request
     * @param response the response
     * @throws Exception anything; the server answers 500 if the response was not committed
     */
    void handle(Request request, Response response) throws Exception;
}
