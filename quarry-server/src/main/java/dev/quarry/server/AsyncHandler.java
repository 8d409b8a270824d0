package dev.quarry.server;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;

/**
 * The asynchronous handler shape: read the body on demand ({@link Request#read()}, {@link Request#demand(Runnable)}),
 * write with {@link Response#write(boolean, java.nio.ByteBuffer, Callback)}, and complete the callback when done —
 * from any thread, at any time after {@code handle} returned (a long wait holds no thread).
 *
 * <p>By default it declares {@link InvocationType#NON_BLOCKING}: the server runs it in place on the thread that parsed
 * the request, with a hot cache. A handler that may block must say {@link InvocationType#BLOCKING}, and then runs like
 * a {@link Handler}, on a virtual thread.
 */
@FunctionalInterface
public interface AsyncHandler extends Invocable {

    /**
     * Handles one request.
     *
     * @param request the request
     * @param response the response
     * @param callback completed once the response is done: succeeded completes the response (sending an empty body if
     *     nothing was written); failed answers 500 or aborts
     * @throws Exception equivalent to failing the callback
     */
    void handle(Request request, Response response, Callback callback) throws Exception;

    @Override
    default InvocationType invocationType() {
        return InvocationType.NON_BLOCKING;
    }

    /**
     * @param type the invocation type to declare
     * @param handler the handler
     * @return {@code handler}, declaring {@code type}
     */
    static AsyncHandler of(InvocationType type, AsyncHandler handler) {
        return new AsyncHandler() {
            @Override
            public void handle(Request request, Response response, Callback callback) throws Exception {
                handler.handle(request, response, callback);
            }

            @Override
            public InvocationType invocationType() {
                return type;
            }

            @Override
            public String toString() {
                return handler + "[" + type + "]";
            }
        };
    }
}
