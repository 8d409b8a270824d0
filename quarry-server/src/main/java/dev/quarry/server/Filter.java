package dev.quarry.server;

import dev.quarry.core.Callback;
import dev.quarry.core.FutureCallback;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import java.util.Objects;
import java.util.concurrent.ExecutionException;

/**
 * Code that runs around a handler: before it (authentication, a request id, CORS), after it (an access log, metrics),
 * or around it (timing, a wrapped response). Filters are added to a {@link ServerBuilder} (around every request) or to
 * a {@link Router} (around its routes, optionally only for paths that match a pattern); the first added runs
 * outermost.
 *
 * <p>This is the asynchronous shape: {@link #filter} gets the rest of the chain as {@code next} and calls
 * {@code next.handle(request, response, callback)} — with the same or wrapped request, response and callback — or
 * answers itself and completes {@code callback}. Calling {@code next} always goes through the server's dispatch point:
 * a filter never moves a blocking handler onto a selector thread, wherever it sits. Like an {@link AsyncHandler}, a
 * filter is {@link InvocationType#BLOCKING} unless it says otherwise; a filter that never blocks declares it with
 * {@link #nonBlocking(Filter)} and then runs in place, with a hot cache, while the handlers after it still run where
 * their own types say:
 *
 * <pre>{@code
 * Filter requestId = Filter.nonBlocking((request, response, callback, next) -> {
 *     response.headers().put("X-Request-Id", UUID.randomUUID().toString());
 *     next.handle(request, response, callback);
 * });
 * }</pre>
 *
 * For code that blocks, {@link #blocking(BlockingFilter)}, {@link #before(Handler)} and {@link #after(Handler)} give
 * the blocking shape: they run on a virtual thread, and {@link BlockingFilter.Chain#proceed} returns when the rest of
 * the chain has completed.
 */
@FunctionalInterface
public interface Filter extends Invocable {

    /**
     * Filters one request.
     *
     * @param request the request
     * @param response the response
     * @param callback completes the exchange, as a handler's callback does
     * @param next the rest of the chain; its {@code handle} dispatches as the server does
     * @throws Exception equivalent to failing the callback
     */
    void filter(Request request, Response response, Callback callback, AsyncHandler next) throws Exception;

    /** @return {@link InvocationType#BLOCKING} unless overridden, as for {@link AsyncHandler} */
    @Override
    default InvocationType invocationType() {
        return InvocationType.BLOCKING;
    }

    /**
     * @param filter a filter that never blocks
     * @return {@code filter}, declaring {@link InvocationType#NON_BLOCKING}
     */
    static Filter nonBlocking(Filter filter) {
        return of(InvocationType.NON_BLOCKING, filter);
    }

    /**
     * @param type the invocation type to declare
     * @param filter the filter
     * @return {@code filter}, declaring {@code type}
     */
    static Filter of(InvocationType type, Filter filter) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(filter, "filter");
        return new Filter() {
            @Override
            public void filter(Request request, Response response, Callback callback, AsyncHandler next)
                    throws Exception {
                filter.filter(request, response, callback, next);
            }

            @Override
            public InvocationType invocationType() {
                return type;
            }

            @Override
            public String toString() {
                return filter + "[" + type + "]";
            }
        };
    }

    /**
     * The blocking shape: runs on a virtual thread (or a pooled thread), and {@code chain.proceed(..)} runs the rest of
     * the chain and returns once it has completed (rethrowing what it failed with), so that code after it runs after
     * the handler. Returning without proceeding answers with what the filter wrote.
     *
     * @param filter the blocking filter
     * @return the filter
     */
    static Filter blocking(BlockingFilter filter) {
        Objects.requireNonNull(filter, "filter");
        return new Filter() {
            @Override
            public void filter(Request request, Response response, Callback callback, AsyncHandler next)
                    throws Exception {
                filter.filter(request, response, (req, res) -> {
                    FutureCallback done = new FutureCallback();
                    next.handle(req, res, done);
                    try {
                        done.get();
                    } catch (ExecutionException x) {
                        throw x.getCause() instanceof Exception cause ? cause : x;
                    }
                });
                callback.succeeded();
            }

            @Override
            public String toString() {
                return "Blocking[" + filter + "]";
            }
        };
    }

    /**
     * A blocking handler that runs before the rest of the chain: if it commits the response (answers, e.g. 401), the
     * chain stops there; otherwise it goes on (the handler may have set headers or request attributes).
     *
     * @param handler runs first, on a virtual thread
     * @return the filter
     */
    static Filter before(Handler handler) {
        Objects.requireNonNull(handler, "handler");
        return blocking(new BlockingFilter() {
            @Override
            public void filter(Request request, Response response, Chain chain) throws Exception {
                handler.handle(request, response);
                if (!response.isCommitted()) {
                    chain.proceed(request, response);
                }
            }

            @Override
            public String toString() {
                return "Before[" + handler + "]";
            }
        });
    }

    /**
     * A blocking handler that runs after the rest of the chain has completed, whether it succeeded or failed (the
     * failure is then passed on): it sees the final status, and may still change the response if it was not committed.
     *
     * @param handler runs last, on a virtual thread
     * @return the filter
     */
    static Filter after(Handler handler) {
        Objects.requireNonNull(handler, "handler");
        return blocking(new BlockingFilter() {
            @Override
            public void filter(Request request, Response response, Chain chain) throws Exception {
                try {
                    chain.proceed(request, response);
                } finally {
                    handler.handle(request, response);
                }
            }

            @Override
            public String toString() {
                return "After[" + handler + "]";
            }
        });
    }

    /**
     * Composes a filter with the handler it runs around.
     *
     * @param filter the filter
     * @param next the handler (or the rest of the chain)
     * @return a handler that runs {@code filter} with {@code next} as its chain
     */
    static AsyncHandler around(Filter filter, AsyncHandler next) {
        return new FilteredHandler(filter, next);
    }
}
