package dev.quarry.server;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import java.util.Objects;

/**
 * A {@link Filter} composed with what it runs around. The filter sees {@code next} as a handler whose {@code handle}
 * goes through the server's dispatch point ({@link Handlers#invoke}), so that the handler after a filter runs where its
 * own invocation type says, never where the filter happens to run.
 *
 * <p>Its invocation type is the filter's when the filter may block (the whole chain then starts on a virtual thread);
 * otherwise non-blocking if everything after it is, and {@code EITHER} if not: it runs in place and dispatches what
 * may block. Thread-safety: immutable.
 */
final class FilteredHandler implements AsyncHandler {
    private final Filter filter;
    private final AsyncHandler next;
    private final AsyncHandler dispatchingNext;

    FilteredHandler(Filter filter, AsyncHandler next) {
        this.filter = Objects.requireNonNull(filter, "filter");
        this.next = Objects.requireNonNull(next, "next");
        this.dispatchingNext = new DispatchingHandler(next);
    }

    @Override
    public void handle(Request request, Response response, Callback callback) {
        try {
            filter.filter(request, response, callback, dispatchingNext);
        } catch (Throwable x) {
            callback.failed(x);
        }
    }

    @Override
    public InvocationType invocationType() {
        InvocationType own = filter.invocationType();
        if (own == InvocationType.BLOCKING) {
            return InvocationType.BLOCKING;
        }
        if (own == InvocationType.NON_BLOCKING && next.invocationType() == InvocationType.NON_BLOCKING) {
            return InvocationType.NON_BLOCKING;
        }
        return InvocationType.EITHER;
    }

    @Override
    public String toString() {
        return filter + " -> " + next;
    }

    /** What a filter sees as {@code next}: the handler, reached through the dispatch point. */
    private record DispatchingHandler(AsyncHandler handler) implements AsyncHandler {
        @Override
        public void handle(Request request, Response response, Callback callback) {
            Handlers.invoke(handler, request, response, callback);
        }

        @Override
        public InvocationType invocationType() {
            return handler.invocationType();
        }

        @Override
        public String toString() {
            return handler.toString();
        }
    }
}
