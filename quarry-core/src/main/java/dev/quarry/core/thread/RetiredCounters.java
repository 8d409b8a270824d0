package dev.quarry.core.thread;

import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The task statistics of pool threads that have exited, so that shrinking the pool does not lose counts.
 *
 * <p>Thread-safety: merging takes a lock, which is fine since threads exit rarely; reading is racy like
 * {@link TaskCounters}. Cost: O(1) per merge.
 */
final class RetiredCounters {
    private final ReentrantLock lock = new ReentrantLock();
    private final long[] values = new long[TaskCounters.SIZE];
    private int epoch;

    /**
     * Adds the counters of an exiting thread.
     *
     * @param currentEpoch the pool's statistics epoch
     * @param counters the exiting thread's counters
     */
    void retire(int currentEpoch, TaskCounters counters) {
        lock.lock();
        try {
            if (epoch != currentEpoch) {
                Arrays.fill(values, 0L);
                epoch = currentEpoch;
            }
            counters.addTo(currentEpoch, values);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Adds the retired counters into {@code totals} if they belong to {@code currentEpoch}.
     *
     * @param currentEpoch the pool's statistics epoch
     * @param totals an array of {@link TaskCounters#SIZE} values
     */
    void addTo(int currentEpoch, long[] totals) {
        lock.lock();
        try {
            if (epoch != currentEpoch) {
                return;
            }
            for (int i = 0; i < values.length; i++) {
                if (i == TaskCounters.QUEUE_LATENCY_MAX || i == TaskCounters.TASK_TIME_MAX) {
                    totals[i] = Math.max(totals[i], values[i]);
                } else {
                    totals[i] += values[i];
                }
            }
        } finally {
            lock.unlock();
        }
    }
}
