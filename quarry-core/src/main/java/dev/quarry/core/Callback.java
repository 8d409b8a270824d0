package dev.quarry.core;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Completion of an asynchronous operation: exactly one of {@link #succeeded()} or {@link #failed(Throwable)} is called,
 * once. A callback declares its {@link InvocationType} so that the code that completes it knows whether it may run it
 * in place (for example on a selector thread) or must hand it to another thread.
 *
 * <p>Implementations decide their own thread-safety; the factories here return callbacks that may be completed from
 * any thread.
 */
public interface Callback extends Invocable {

    /** A callback that does nothing and never blocks. */
    Callback NOOP = new Callback() {
        @Override
        public InvocationType invocationType() {
            return InvocationType.NON_BLOCKING;
        }

        @Override
        public String toString() {
            return "Callback.NOOP";
        }
    };

    /** Called when the operation completed successfully. */
    default void succeeded() {}

    /**
     * Called when the operation failed.
     *
     * @param failure why it failed
     */
    default void failed(Throwable failure) {}

    /**
     * A blocking callback from two functions.
     *
     * @param success run on success
     * @param failure run on failure
     * @return the callback
     */
    static Callback from(Runnable success, Consumer<Throwable> failure) {
        return from(InvocationType.BLOCKING, success, failure);
    }

    /**
     * A callback from two functions, with a declared invocation type.
     *
     * @param type how {@code success} and {@code failure} behave
     * @param success run on success
     * @param failure run on failure
     * @return the callback
     */
    static Callback from(InvocationType type, Runnable success, Consumer<Throwable> failure) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(success, "success");
        Objects.requireNonNull(failure, "failure");
        return new Callback() {
            @Override
            public void succeeded() {
                success.run();
            }

            @Override
            public void failed(Throwable x) {
                failure.accept(x);
            }

            @Override
            public InvocationType invocationType() {
                return type;
            }
        };
    }

    /**
     * A callback that runs {@code andThen} before completing {@code callback}, on success or on failure; typically
     * used to release a resource (a buffer) when an operation ends. The combined type is the combination of both.
     *
     * @param callback the callback to complete afterwards
     * @param andThen what to run first, in either case; must not throw
     * @param andThenType how {@code andThen} behaves
     * @return the combined callback
     */
    static Callback from(Callback callback, Runnable andThen, InvocationType andThenType) {
        Objects.requireNonNull(callback, "callback");
        Objects.requireNonNull(andThen, "andThen");
        InvocationType type = callback.invocationType().combine(andThenType);
        return new Callback() {
            @Override
            public void succeeded() {
                andThen.run();
                callback.succeeded();
            }

            @Override
            public void failed(Throwable x) {
                try {
                    andThen.run();
                } catch (Throwable t) {
                    if (t != x) {
                        x.addSuppressed(t);
                    }
                }
                callback.failed(x);
            }

            @Override
            public InvocationType invocationType() {
                return type;
            }
        };
    }

    /**
     * Wraps a callback so that only the first completion goes through; later ones are ignored. Use where two
     * racing paths (an I/O completion and a timeout) may both try to complete the same operation.
     *
     * @param callback the callback to protect
     * @return a callback completed at most once
     */
    static Callback once(Callback callback) {
        Objects.requireNonNull(callback, "callback");
        AtomicBoolean done = new AtomicBoolean();
        return new Callback() {
            @Override
            public void succeeded() {
                if (done.compareAndSet(false, true)) {
                    callback.succeeded();
                }
            }

            @Override
            public void failed(Throwable x) {
                if (done.compareAndSet(false, true)) {
                    callback.failed(x);
                }
            }

            @Override
            public InvocationType invocationType() {
                return callback.invocationType();
            }
        };
    }

    /**
     * Completes the callback with the outcome of an action: success if it returns normally, failure with what it
     * throws otherwise.
     *
     * @param callback the callback to complete
     * @param action the action to run
     */
    static void complete(Callback callback, Runnable action) {
        try {
            action.run();
        } catch (Throwable x) {
            callback.failed(x);
            return;
        }
        callback.succeeded();
    }
}
