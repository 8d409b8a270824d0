package dev.quarry.core;

import java.nio.channels.ClosedChannelException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Drives a sequence of asynchronous steps without recursion: {@link #process()} starts one step and returns how it
 * went; when a step completes asynchronously its {@link #succeeded()} runs the next step, and when it completed before
 * {@code process()} returned, the loop in {@link #iterate()} runs the next step instead of nesting calls. This is what
 * keeps a long write (a file sent chunk by chunk, HTTP/2 frames flushed window by window) from growing the stack or
 * holding a thread while it waits.
 *
 * <p>State machine (one atomic int; all transitions by CAS): IDLE -iterate-> PROCESSING -pending-> PENDING
 * -succeeded-> PROCESSING ..., with CALLED for a callback that completed before {@code process()} returned, and
 * ITERATE for an {@code iterate()} call that arrived while processing. Terminal states: SUCCEEDED, FAILED, CLOSED.
 *
 * <p>Thread-safety: {@link #iterate()}, {@link #succeeded()} and {@link #failed(Throwable)} may be called from any
 * thread; {@code process()} is never run by two threads at once.
 */
public abstract class IteratingCallback implements Callback {
    private static final System.Logger LOG = System.getLogger(IteratingCallback.class.getName());

    /** What a call to {@link #process()} did. */
    public enum Action {
        /** Nothing to do now; wait for the next {@link #iterate()}. */
        IDLE,
        /** A step was started; its completion will call {@link #succeeded()} or {@link #failed(Throwable)}. */
        SCHEDULED,
        /** All steps are done; the whole operation succeeded. */
        SUCCEEDED
    }

    private static final int IDLE = 0;
    private static final int PROCESSING = 1;
    private static final int PROCESSING_ITERATE = 2; // iterate() was called while processing
    private static final int PENDING = 3;
    private static final int CALLED = 4; // the step completed before process() returned
    private static final int SUCCEEDED = 5;
    private static final int FAILED = 6;
    private static final int CLOSED = 7;

    private final AtomicInteger state = new AtomicInteger(IDLE);

    /**
     * Starts the next step.
     *
     * @return what was done
     * @throws Throwable if the step cannot be started; the operation then fails with it
     */
    protected abstract Action process() throws Throwable;

    /** Called once when the whole operation succeeded. */
    protected void onCompleteSuccess() {}

    /**
     * Called once when the operation failed.
     *
     * @param cause why
     */
    protected void onCompleteFailure(Throwable cause) {}

    /** Asks for more processing; runs it now on this thread unless another thread is already processing. */
    public void iterate() {
        while (true) {
            int current = state.get();
            switch (current) {
                case IDLE -> {
                    if (state.compareAndSet(IDLE, PROCESSING)) {
                        processing();
                        return;
                    }
                }
                case PROCESSING -> {
                    if (state.compareAndSet(PROCESSING, PROCESSING_ITERATE)) {
                        return;
                    }
                }
                default -> {
                    return;
                }
            }
        }
    }

    private void processing() {
        // Invariant on entry: state is PROCESSING, owned by this thread.
        boolean again = true;
        while (again) {
            Action action;
            try {
                action = process();
            } catch (Throwable x) {
                if (!(x instanceof java.io.IOException)) {
                    // An I/O failure is an outcome; anything else thrown by process() is a bug: never let it pass
                    // silently, even when onCompleteFailure only cleans up.
                    LOG.log(System.Logger.Level.WARNING, "process() failed in " + this, x);
                }
                failed(x);
                return;
            }
            again = afterProcess(action);
        }
    }

    /** Moves the state after a step was started; returns whether {@link #process()} must run again now. */
    private boolean afterProcess(Action action) {
        while (true) {
            int current = state.get();
            switch (current) {
                case PROCESSING -> {
                    int next = switch (action) {
                        case IDLE -> IDLE;
                        case SCHEDULED -> PENDING;
                        case SUCCEEDED -> SUCCEEDED;
                    };
                    if (state.compareAndSet(PROCESSING, next)) {
                        if (next == SUCCEEDED) {
                            onCompleteSuccess();
                        }
                        return false;
                    }
                }
                case PROCESSING_ITERATE -> {
                    switch (action) {
                        case SUCCEEDED -> {
                            if (state.compareAndSet(PROCESSING_ITERATE, SUCCEEDED)) {
                                onCompleteSuccess();
                                return false;
                            }
                        }
                        case IDLE -> {
                            if (state.compareAndSet(PROCESSING_ITERATE, PROCESSING)) {
                                return true;
                            }
                        }
                        case SCHEDULED -> {
                            // The step's completion calls process() again, which serves the iterate() request.
                            if (state.compareAndSet(PROCESSING_ITERATE, PENDING)) {
                                return false;
                            }
                        }
                    }
                }
                case CALLED -> {
                    if (action != Action.SCHEDULED) {
                        throw new IllegalStateException(
                                "callback completed but process() returned " + action + ": " + this);
                    }
                    if (state.compareAndSet(CALLED, PROCESSING)) {
                        return true;
                    }
                }
                case FAILED, CLOSED -> {
                    return false;
                }
                default -> throw new IllegalStateException("state " + current + " after process(): " + this);
            }
            // A CAS lost a race: read the state again.
        }
    }

    /** The current step completed: runs the next one, here if nobody is processing. */
    @Override
    public void succeeded() {
        while (true) {
            int current = state.get();
            switch (current) {
                case PROCESSING, PROCESSING_ITERATE -> {
                    if (state.compareAndSet(current, CALLED)) {
                        return;
                    }
                }
                case PENDING -> {
                    if (state.compareAndSet(PENDING, PROCESSING)) {
                        processing();
                        return;
                    }
                }
                case FAILED, CLOSED -> {
                    return;
                }
                default -> throw new IllegalStateException("succeeded() in state " + current + ": " + this);
            }
        }
    }

    /** The current step failed: the whole operation fails, once. */
    @Override
    public void failed(Throwable failure) {
        while (true) {
            int current = state.get();
            if (current == SUCCEEDED || current == FAILED || current == CLOSED) {
                return;
            }
            if (state.compareAndSet(current, FAILED)) {
                onCompleteFailure(failure);
                return;
            }
        }
    }

    /**
     * Closes the operation: pending steps are failed by their owners; a later {@link #iterate()} does nothing.
     */
    public void close() {
        while (true) {
            int current = state.get();
            if (current == SUCCEEDED || current == FAILED || current == CLOSED) {
                return;
            }
            if (state.compareAndSet(current, CLOSED)) {
                onCompleteFailure(new ClosedChannelException());
                return;
            }
        }
    }

    /** @return whether a step is in flight: {@code process()} returned and its callback has not completed yet */
    public boolean isPending() {
        return state.get() == PENDING;
    }

    /** @return true once the operation succeeded, failed or was closed */
    public boolean isDone() {
        int current = state.get();
        return current == SUCCEEDED || current == FAILED || current == CLOSED;
    }

    /** @return true if the operation failed or was closed */
    public boolean isFailed() {
        int current = state.get();
        return current == FAILED || current == CLOSED;
    }

    /** @return true if the operation succeeded */
    public boolean isSucceeded() {
        return state.get() == SUCCEEDED;
    }

    @Override
    public String toString() {
        String[] names = {
            "IDLE", "PROCESSING", "PROCESSING_ITERATE", "PENDING", "CALLED", "SUCCEEDED", "FAILED", "CLOSED"
        };
        return getClass().getSimpleName() + "@" + Integer.toHexString(hashCode()) + "[" + names[state.get()] + "]";
    }
}
