package dev.quarry.core.thread;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * One idle period of one thread: the thread parks until another thread writes a task into this waiter's slot, or
 * until it gives up and cancels the waiter.
 *
 * <p>A waiter is used once: it is pushed on a {@link HandOffStack} at most once and its slot changes at most once,
 * from empty to either a task (a hand-off) or {@link #CANCELLED}. Exactly one of {@link #tryHandOff(Runnable)} and
 * {@link #cancel()} succeeds, which is what settles the race between a producer that hands a task over and the waiting
 * thread that times out or finds work elsewhere. Using each waiter once is also what makes the Treiber stack that
 * holds them immune to ABA (see {@link HandOffStack}).
 *
 * <p>Thread-safety: {@link #tryHandOff(Runnable)} and {@link #cancel()} may race from any threads; {@link #next} is
 * written only before the waiter is published. Cost: O(1), lock-free, one small allocation per idle period.
 */
final class Waiter {
    /** The slot value of a waiter that gave up; never run. */
    static final Object CANCELLED = new Object() {
        @Override
        public String toString() {
            return "CANCELLED";
        }
    };

    private static final VarHandle SLOT;

    static {
        try {
            SLOT = MethodHandles.lookup().findVarHandle(Waiter.class, "slot", Object.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    /** The thread that waits; unparked by a hand-off. */
    final Thread thread;

    /** The waiter below this one in its stack; written before the push publishes this waiter, never changed after. */
    Waiter next;

    /**
     * Whether the hand-off carries its pool's wake token (see {@link ThreadPool}); written by the one thread that
     * popped this waiter, before the hand-off publishes it, and read by the waiting thread after it sees the task.
     */
    boolean wakeToken;

    /** Null while waiting, then the handed-over task or {@link #CANCELLED}. */
    @SuppressWarnings("unused") // accessed through SLOT
    private volatile Object slot;

    Waiter(Thread thread) {
        this.thread = thread;
    }

    /**
     * Gives {@code task} to the waiting thread and wakes it, unless it has already been given a task or has cancelled.
     *
     * @param task the task, never null
     * @return whether the waiting thread now owns the task
     */
    boolean tryHandOff(Runnable task) {
        if (SLOT.compareAndSet(this, null, task)) {
            LockSupport.unpark(thread);
            return true;
        }
        return false;
    }

    /**
     * Called by the waiting thread to stop waiting.
     *
     * @return true if cancelled; false if a task was handed over first, which the caller must then run
     */
    boolean cancel() {
        return SLOT.compareAndSet(this, null, CANCELLED);
    }

    /** @return the handed-over task, or null while still waiting or when cancelled */
    Runnable task() {
        return SLOT.getVolatile(this) instanceof Runnable task ? task : null;
    }

    /** @return whether the waiter still waits for a hand-off */
    boolean isWaiting() {
        return SLOT.getVolatile(this) == null;
    }

    /** @return whether the waiter was cancelled */
    boolean isCancelled() {
        return SLOT.getVolatile(this) == CANCELLED;
    }

    @Override
    public String toString() {
        Object value = SLOT.getVolatile(this);
        return "Waiter{" + thread.getName() + ", " + (value == null ? "WAITING" : value) + "}";
    }
}
