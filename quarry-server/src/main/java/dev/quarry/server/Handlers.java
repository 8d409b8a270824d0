package dev.quarry.server;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.server.internal.HandlerInvoker;
import java.util.Objects;

/** Adapters between the two handler shapes, and the dispatch point for code that calls handlers itself. */
public final class Handlers {
    private Handlers() {}

    /**
     * The asynchronous form of a blocking handler: it declares {@link InvocationType#BLOCKING}, so the server runs it
     * on a virtual thread (or a pooled thread), and completes the callback when {@code handle} returns. Called directly
     * on a thread that must not block, it dispatches itself instead of running there.
     *
     * @param handler the blocking handler
     * @return the adapter
     */
    public static AsyncHandler blocking(Handler handler) {
        Objects.requireNonNull(handler, "handler");
        return new AsyncHandler() {
            @Override
            public void handle(Request request, Response response, Callback callback) {
                if (Invocable.isNonBlockingInvocation()) {
                    // Reached without the dispatch point (a wrapper that called it directly): take that path now.
                    HandlerInvoker.of(request).invoke(this, request, response, callback);
                    return;
                }
                try {
                    handler.handle(request, response);
                    if (response instanceof ResponseWrapper wrapper) {
                        wrapper.closeOutput(); // the exchange completes only the innermost response's stream
                    }
                } catch (Throwable x) {
                    callback.failed(x);
                    return;
                }
                callback.succeeded();
            }

            @Override
            public InvocationType invocationType() {
                return InvocationType.BLOCKING;
            }

            @Override
            public String toString() {
                return "Blocking[" + handler + "]";
            }
        };
    }

    /**
     * Invokes a handler the way the server does: a handler that may block never runs on a thread that must not block
     * (a selector thread); it is dispatched to a virtual thread (or the pool) instead, within the server's bound on
     * concurrent blocking requests. Code that calls another handler itself — a wrapper, a custom router — calls it
     * through here, never through {@code handle} directly.
     *
     * @param handler the handler to run
     * @param request the request (wrapped or not)
     * @param response the response
     * @param callback completed by the handler, or failed with what it throws; a request refused for overload is
     *     answered 503 before the callback completes
     */
    public static void invoke(AsyncHandler handler, Request request, Response response, Callback callback) {
        HandlerInvoker.of(request).invoke(handler, request, response, callback);
    }
}
