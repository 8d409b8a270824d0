package dev.quarry.server;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import java.util.Objects;

/** Adapters between the two handler shapes. */
public final class Handlers {
    private Handlers() {}

    /**
     * The asynchronous form of a blocking handler: it declares {@link InvocationType#BLOCKING}, so the server runs it
     * on a virtual thread (or a pooled thread), and completes the callback when {@code handle} returns.
     *
     * @param handler the blocking handler
     * @return the adapter
     */
    public static AsyncHandler blocking(Handler handler) {
        Objects.requireNonNull(handler, "handler");
        return new AsyncHandler() {
            @Override
            public void handle(Request request, Response response, Callback callback) {
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
}
