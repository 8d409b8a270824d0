package dev.quarry.core.timer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The handle of one task scheduled on a {@link HashedWheelTimer}: lets the owner cancel it and ask whether it ran.
 *
 * <p>A timeout is also the timer's node: the same object is linked into the timer's lock-free stack of newly
 * scheduled timeouts, then into one bucket of the wheel, and (once cancelled there) into the stack of cancelled
 * timeouts. So scheduling allocates exactly this object and cancelling allocates nothing.
 *
 * <p>Its life is one atomic int changed by CAS: {@code PENDING} (scheduled, not yet moved into the wheel) or
 * {@code BUCKETED} (in the wheel), then exactly one of {@code CANCELLED} or {@code EXPIRED}. The two "not yet done"
 * states are what lets {@link #cancel()} know in one CAS whether the ticker will drop the timeout by itself (still
 * pending) or must be told to unlink it from its bucket.
 *
 * <p>Thread-safety: {@link #cancel()}, {@link #isCancelled()} and {@link #isExpired()} may be called from any thread;
 * each is O(1), lock-free and allocation-free. The link fields are owned by the timer (see each one).
 */
public final class Timeout {
    static final int PENDING = 0;
    static final int BUCKETED = 1;
    static final int CANCELLED = 2;
    static final int EXPIRED = 3;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Timeout.class, "state", int.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    /** The stripe of the timer that it was pushed on; null only for the sentinels used as markers. */
    final TimeoutStacks stacks;

    /** A {@link Runnable}, or a {@link TickerTask} that always runs on the ticker. Null only for sentinels. */
    final Object task;

    /**
     * While PENDING: the delay in nanoseconds. From the moment the ticker takes the timeout off its stack: the
     * deadline in {@link System#nanoTime()} terms (compare by subtraction, never with {@code <}), that is the time of
     * that take plus the delay. Schedule time plus delay would need a {@code System.nanoTime()} call per schedule,
     * about half of its cost; the take happens after {@code schedule()} returned, so the deadline is never early,
     * and it happens within a tick, so it is late by at most one tick more. Written only by the ticker; other threads
     * read it only for {@link #toString()}.
     */
    long deadline;

    private volatile int state;

    /**
     * While PENDING: the next older timeout in the pending stack (written before the push CAS publishes it, cleared by
     * whoever takes the timeout out of the stack). While BUCKETED: the next timeout in the bucket's circular list.
     * Otherwise null, so that a handle kept by a user never retains other timeouts.
     */
    Timeout next;

    /** While BUCKETED: the previous timeout in the bucket's circular list (ticker-confined); otherwise null. */
    Timeout prev;

    /** While in the cancelled stack: the next older cancelled timeout; written before the push CAS publishes it. */
    Timeout nextCancelled;

    Timeout(TimeoutStacks stacks, Object task, long delayNanos) {
        this.stacks = stacks;
        this.task = task;
        this.deadline = delayNanos;
    }

    /** A sentinel: a bucket head (a circular list of itself) or a marker; never scheduled, never cancellable. */
    static Timeout sentinel(int state) {
        Timeout sentinel = new Timeout(null, null, 0);
        sentinel.state = state;
        return sentinel;
    }

    /**
     * Cancels the task if it has not run yet: it will then never run. O(1), lock-free, allocation-free; the timer
     * releases the timeout at its next tick at the latest (at once if nothing was scheduled after it).
     *
     * @return true if this call cancelled the task; false if it had already expired or been cancelled
     */
    public boolean cancel() {
        while (true) {
            int current = state;
            if (current != PENDING && current != BUCKETED) {
                return false;
            }
            if (STATE.compareAndSet(this, current, CANCELLED)) {
                stacks.cancelled(this, current == BUCKETED);
                return true;
            }
            // Lost a race with the ticker (PENDING -> BUCKETED or -> EXPIRED) or another canceller: look again.
        }
    }

    /** @return true once the timer has run the task or handed it to its executor */
    public boolean isExpired() {
        return state == EXPIRED;
    }

    /** @return true once the task was cancelled (by {@link #cancel()} or because the timer stopped) */
    public boolean isCancelled() {
        return state == CANCELLED;
    }

    int state() {
        return state;
    }

    boolean compareAndSetState(int expected, int next) {
        return STATE.compareAndSet(this, expected, next);
    }

    @Override
    public String toString() {
        int current = state;
        String name = switch (current) {
            case PENDING -> "PENDING";
            case BUCKETED -> "BUCKETED";
            case CANCELLED -> "CANCELLED";
            default -> "EXPIRED";
        };
        if (stacks == null) {
            return "Timeout@" + Integer.toHexString(hashCode()) + "{sentinel," + name + "}";
        }
        long in = deadline - System.nanoTime();
        String when = current == PENDING
                ? "delay=" + deadline / 1_000_000 + "ms"
                : "deadline" + (in >= 0 ? "+" : "") + in / 1_000_000 + "ms";
        return "Timeout@" + Integer.toHexString(hashCode()) + "{" + name + "," + when + "," + task + "}";
    }
}
