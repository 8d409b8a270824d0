package dev.quarry.server.internal;

import dev.quarry.server.AsyncHandler;
import dev.quarry.server.ErrorHandler;
import java.util.Map;

/**
 * A server's error handlers (by the type of failure they answer) and error pages (by status), as configured: the
 * lookups of {@link Exchange}'s error path.
 *
 * <p>Thread-safety: immutable. Cost: {@link #handlerFor} is one hash lookup per class between the failure's and
 * {@link Throwable}; {@link #page} one lookup. Only the error path asks.
 */
public final class ErrorPages {
    /** No error handlers and no error pages: every error gets the plain default. */
    public static final ErrorPages NONE = new ErrorPages(Map.of(), Map.of());

    private final Map<Class<? extends Throwable>, ErrorHandler<?>> handlers;
    private final Map<Integer, AsyncHandler> pages;

    /**
     * @param handlers error handlers by the type of failure they answer
     * @param pages error pages by status
     */
    public ErrorPages(Map<Class<? extends Throwable>, ErrorHandler<?>> handlers, Map<Integer, AsyncHandler> pages) {
        this.handlers = Map.copyOf(handlers);
        this.pages = Map.copyOf(pages);
    }

    /**
     * @param failure a handler's failure
     * @return the error handler of the most specific type the failure is an instance of (walking its superclasses),
     *     or null if none
     */
    @SuppressWarnings("unchecked") // registered by onError(Class<T>, ErrorHandler<? super T>): takes any T
    ErrorHandler<Throwable> handlerFor(Throwable failure) {
        if (handlers.isEmpty()) {
            return null;
        }
        for (Class<?> type = failure.getClass(); type != null; type = type.getSuperclass()) {
            ErrorHandler<?> handler = handlers.get(type);
            if (handler != null) {
                return (ErrorHandler<Throwable>) handler;
            }
        }
        return null;
    }

    /**
     * @param status an error status
     * @return its page, or null if none
     */
    AsyncHandler page(int status) {
        return pages.isEmpty() ? null : pages.get(status);
    }

    @Override
    public String toString() {
        return "ErrorPages{handlers="
                + handlers.keySet().stream().map(Class::getName).sorted().toList() + ", pages="
                + pages.keySet().stream().sorted().toList() + "}";
    }
}
