package dev.quarry.core.thread;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The counts a {@link ThreadPool} keeps about its threads: how many are alive, how many are busy (and the most that
 * were), and the wake token.
 *
 * <p>The thread count changes only by CAS against a bound, so that the pool never exceeds its maximum when threads
 * start concurrently, and never drops below its minimum when idle threads time out concurrently. The busy count
 * changes when a thread parks or wakes (not per task while the queue keeps threads busy), on its own cache line. The
 * wake token is 1 while a thread that a producer woke has not run yet: producers wake an idle thread only when they
 * can take the token, and the woken thread passes the signal on, so that a burst of tasks costs its producer one
 * wake-up, not one per idle thread.
 *
 * <p>Thread-safety: atomic, lock-free; the maxima are written only when they grow. Cost: O(1).
 */
final class ThreadCounts {
    private final AtomicInteger threads = new AtomicInteger();
    private final PaddedCounter busy = new PaddedCounter();
    private final PaddedCounter waking = new PaddedCounter();
    private final AtomicInteger maxBusy = new AtomicInteger();

    /** @return the threads alive (or starting, or about to exit after leaving the count) */
    int threads() {
        return threads.get();
    }

    /** @return the threads running a task or looking for one, reserved ones included */
    int busy() {
        return busy.get();
    }

    /** @return the most threads busy at once since the last reset */
    int maxBusy() {
        return maxBusy.get();
    }

    /** Restarts the busy maximum from the current busy count. */
    void resetMaxBusy() {
        maxBusy.set(busy.get());
    }

    /**
     * Adds a thread to the count if the count is below {@code limit}.
     *
     * @param limit the maximum
     * @return whether the count was incremented
     */
    boolean addBelow(int limit) {
        for (; ; ) {
            int count = threads.get();
            if (count >= limit) {
                return false;
            }
            if (threads.compareAndSet(count, count + 1)) {
                return true;
            }
        }
    }

    /**
     * Removes a thread from the count if the count is above {@code limit}.
     *
     * @param limit the minimum (or a lowered maximum)
     * @return whether the count was decremented, in which case the calling thread must exit
     */
    boolean removeAbove(int limit) {
        for (; ; ) {
            int count = threads.get();
            if (count <= limit) {
                return false;
            }
            if (threads.compareAndSet(count, count - 1)) {
                return true;
            }
        }
    }

    /** Removes a thread from the count unconditionally (it exited, or failed to start). */
    void remove() {
        threads.decrementAndGet();
    }

    void busyIncrement() {
        int count = busy.incrementAndGet();
        if (count > maxBusy.get()) {
            maxBusy.getAndAccumulate(count, Math::max);
        }
    }

    void busyDecrement() {
        busy.decrementAndGet();
    }

    /** @return whether the caller took the wake token and may wake one idle thread */
    boolean takeWakeToken() {
        return waking.get() == 0 && waking.compareAndSet(0, 1);
    }

    /** Gives the wake token back; called by the thread that was woken with it, or by a producer that woke nobody. */
    void releaseWakeToken() {
        waking.set(0);
    }

    @Override
    public String toString() {
        return "threads=" + threads() + ", busy=" + busy() + ", maxBusy=" + maxBusy() + ", waking=" + waking;
    }
}
