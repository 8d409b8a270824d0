package dev.quarry.core.timer;

import dev.quarry.core.Invocable;
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.locks.LockSupport;

/**
 * The loop of a {@link HashedWheelTimer}'s ticker thread; one instance per start, so a restarted timer begins with a
 * fresh wheel. Each tick, in this order:
 *
 * <ol>
 *   <li>unlinks the timeouts cancelled while in the wheel (the cancelled stacks), so that a cancelled timeout is
 *       released within one tick and never waits for its bucket to come round;
 *   <li>takes the stacks of newly scheduled timeouts, then reads {@link System#nanoTime()} once and publishes it as
 *       the timer's coarse clock; every timeout taken was scheduled before that time, so that time plus its delay is
 *       a deadline that is never early;
 *   <li>drops the timeouts taken that were already cancelled, expires those with no delay and links the others into
 *       the bucket of their deadline's tick;
 *   <li>visits the buckets of every tick whose time has come since the last one (each bucket at most once, so a
 *       ticker that fell far behind catches up in one pass);
 *   <li>runs what expired, in deadline order;
 *   <li>publishes its statistics and parks until the next tick is due.
 * </ol>
 *
 * <p>Thread-safety: confined to the ticker thread, except {@link #requestStop()}.
 */
final class Ticker implements Runnable {
    private static final Comparator<Timeout> BY_DEADLINE = (a, b) -> Long.signum(a.deadline - b.deadline);
    private static final int INITIAL_BATCH = 64;
    private static final int RETAINED_BATCH = 4096;

    private final HashedWheelTimer timer;
    private final TimeoutStacks[] stripes;
    private final Wheel wheel;
    private final long tickNanos;
    private final long startNanos;
    private volatile boolean stopRequested;
    private volatile Thread thread;

    /** The timeouts expired in the current tick; reused from tick to tick so that a tick allocates nothing. */
    private Timeout[] batch = new Timeout[INITIAL_BATCH];

    private int batchSize;

    /** The last tick whose bucket was visited; tick {@code n} is due at {@code startNanos + n * tickNanos}. */
    private long tick;

    /** The pending stacks taken in the current tick, one per stripe; reused. */
    private final Timeout[] taken;

    private final Runnable tickTask = this::tick;

    Ticker(HashedWheelTimer timer, TimeoutStacks[] stripes, int wheelSize, long tickNanos) {
        this.timer = timer;
        this.stripes = stripes;
        this.taken = new Timeout[stripes.length];
        this.wheel = new Wheel(wheelSize);
        this.tickNanos = tickNanos;
        this.startNanos = System.nanoTime();
    }

    /** Binds the thread that runs this ticker, before it is started. */
    void bind(Thread thread) {
        this.thread = thread;
    }

    Thread thread() {
        return thread;
    }

    /** Any thread: asks the ticker to exit after its current tick. */
    void requestStop() {
        stopRequested = true;
        LockSupport.unpark(thread);
    }

    @Override
    public void run() {
        Throwable failure = null;
        try {
            while (!stopRequested) {
                // Ticking must never block (the blocking detector of the tests checks it): the mark is set while the
                // ticker works, and lifted only for the wait between ticks.
                Invocable.invokeNonBlocking(tickTask);
                long wait = startNanos + (tick + 1) * tickNanos - System.nanoTime();
                if (wait > 0 && !stopRequested) {
                    LockSupport.parkNanos(this, wait);
                }
            }
        } catch (Throwable x) {
            // Task failures are caught in HashedWheelTimer.fire(); reaching here means the ticker itself broke.
            failure = x;
        } finally {
            exit(failure);
        }
    }

    private void tick() {
        for (TimeoutStacks stripe : stripes) {
            unlinkCancelled(stripe);
        }
        for (int i = 0; i < stripes.length; i++) {
            taken[i] = stripes[i].takePending();
        }
        long now = System.nanoTime(); // after the takes: each timeout taken was scheduled before now
        timer.clock(now);
        for (int i = 0; i < taken.length; i++) {
            transferPending(taken[i], now);
            taken[i] = null;
        }
        long due = (now - startNanos) / tickNanos;
        long from = Math.max(tick + 1, due - wheel.length() + 1);
        for (long t = from; t <= due; t++) {
            wheel.expire(t, now, this);
        }
        tick = Math.max(tick, due);
        long expired = runExpired();
        timer.ticked(wheel.size(), expired);
    }

    private void unlinkCancelled(TimeoutStacks stripe) {
        Timeout cancelled = stripe.takeCancelled();
        while (cancelled != null) {
            Timeout next = cancelled.nextCancelled;
            cancelled.nextCancelled = null;
            wheel.unlink(cancelled);
            cancelled = next;
        }
    }

    private void transferPending(Timeout stack, long now) {
        // The stack holds the newest first: reverse it so that timeouts with equal deadlines keep scheduling order.
        Timeout fifo = null;
        while (stack != null) {
            Timeout next = stack.next;
            stack.next = fifo;
            fifo = stack;
            stack = next;
        }
        while (fifo != null) {
            Timeout timeout = fifo;
            fifo = timeout.next;
            timeout.next = null;
            timeout.deadline += now; // was the delay (see Timeout.deadline)
            if (timeout.deadline - now <= 0) {
                if (timeout.compareAndSetState(Timeout.PENDING, Timeout.EXPIRED)) {
                    expired(timeout);
                }
            } else if (timeout.compareAndSetState(Timeout.PENDING, Timeout.BUCKETED)) {
                // The deadline is after now, so its tick is after the current one: the bucket is visited in time.
                wheel.add(timeout, Math.ceilDiv(timeout.deadline - startNanos, tickNanos));
            }
            // Otherwise it was cancelled while pending: dropping the reference is all it takes.
        }
    }

    /** Collects a timeout that this tick moved to EXPIRED. */
    void expired(Timeout timeout) {
        if (batchSize == batch.length) {
            batch = Arrays.copyOf(batch, batchSize * 2);
        }
        batch[batchSize++] = timeout;
    }

    private long runExpired() {
        int size = batchSize;
        if (size == 0) {
            return 0;
        }
        Timeout[] expired = batch;
        for (int i = 1; i < size; i++) {
            if (expired[i - 1].deadline - expired[i].deadline > 0) {
                Arrays.sort(expired, 0, size, BY_DEADLINE); // stable: equal deadlines keep scheduling order
                break;
            }
        }
        // Tasks that run here may schedule or cancel, but only through the stacks: the batch is not touched again.
        batchSize = 0;
        for (int i = 0; i < size; i++) {
            Timeout timeout = expired[i];
            expired[i] = null;
            timer.fire(timeout.task);
        }
        if (expired.length > RETAINED_BATCH) {
            batch = new Timeout[INITIAL_BATCH]; // a burst expired: do not keep its array for ever
        }
        return size;
    }

    private void exit(Throwable failure) {
        // Cancel what is left so that every timeout ends cancelled or expired, and release every reference to it.
        long cancelled = wheel.cancelAll();
        for (TimeoutStacks stripe : stripes) {
            // Normally already terminated by stop(); not if the ticker broke.
            cancelled += HashedWheelTimer.cancelPending(stripe.terminate());
            Timeout stale = stripe.takeCancelled();
            while (stale != null) {
                Timeout next = stale.nextCancelled;
                stale.nextCancelled = null;
                stale = next;
            }
        }
        timer.exited(this, cancelled, failure);
    }

    @Override
    public String toString() {
        return "Ticker@" + Integer.toHexString(hashCode()) + "{tick=" + tick + ",stopRequested=" + stopRequested + "}";
    }
}
