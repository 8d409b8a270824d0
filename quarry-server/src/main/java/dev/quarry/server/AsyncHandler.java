package dev.quarry.server;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import java.util.Objects;

/**
 * The asynchronous handler shape: read the body on demand ({@link Request#read()}, {@link Request#demand(Runnable)}),
 * write with {@link Response#write(boolean, java.nio.ByteBuffer, Callback)}, and complete the callback when done —
 * from any thread, at any time after {@code handle} returned (a long wait holds no thread).
 *
 * <p>Where it runs follows its declared {@link InvocationType}, and the safe default is
 * {@link InvocationType#BLOCKING}: like a {@link Handler}, it runs on a virtual thread (or a pooled thread), never on the
 * thread that parsed the request. A handler that never blocks says so — {@link #nonBlocking(AsyncHandler)}, or an
 * override of {@link #invocationType()} — and then runs in place on that thread, with a hot cache and no hand-off:
 *
 * <pre>{@code
 * AsyncHandler hello = AsyncHandler.nonBlocking((request, response, callback) ->
 *         response.write(true, ByteBuffer.wrap(HELLO), callback));
 * }</pre>
 *
 * A handler declared non-blocking runs with the "must not block" mark set ({@link Invocable#isNonBlockingInvocation()});
 * if it blocks after all, the blocking detector of Quarry's tests fails the test that made it.
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

    /**
     * @return {@link InvocationType#BLOCKING} unless overridden: a handler that may block must never run on a selector
     *     thread, and only its author knows it does not
     */
    @Override
    default InvocationType invocationType() {
        return InvocationType.BLOCKING;
    }

    /**
     * @param handler a handler that never blocks: it only computes, writes with callbacks, and completes later
     * @return {@code handler}, declaring {@link InvocationType#NON_BLOCKING}, so that it runs in place
     */
    static AsyncHandler nonBlocking(AsyncHandler handler) {
        return of(InvocationType.NON_BLOCKING, handler);
    }

    /**
     * @param type the invocation type to declare
     * @param handler the handler
     * @return {@code handler}, declaring {@code type}
     */
    static AsyncHandler of(InvocationType type, AsyncHandler handler) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(handler, "handler");
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
