package dev.quarry.core.thread;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The task statistics of one pool thread: counts, sums and maxima that only this thread writes, so that recording a
 * task costs a few plain stores and no atomic instruction. A reader sums the counters of all threads.
 *
 * <p>Reset without a second writer: {@link ThreadPool#resetStatistics()} advances a global epoch; the owner, before
 * its next write, sees the new epoch, zeroes its counters and only then publishes the epoch (release). A reader that
 * sees an old epoch skips the counters (nothing happened since the reset); one that sees the current epoch (acquire)
 * sees the zeroes or later values.
 *
 * <p>Thread-safety: single writer (the owning thread, or any thread holding the lock of a {@link RetiredCounters});
 * racy readers get values that may be a task behind. The object is allocated by its owner thread, in its own
 * allocation buffer, so that the counters of different threads do not share a cache line.
 */
final class TaskCounters {
    private static final VarHandle EPOCH;
    private static final VarHandle LONG_ARRAY = MethodHandles.arrayElementVarHandle(long[].class);

    static {
        try {
            EPOCH = MethodHandles.lookup().findVarHandle(TaskCounters.class, "epoch", int.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    static final int COMPLETED = 0;
    static final int HAND_OFFS = 1;
    static final int DEQUEUED = 2;
    static final int QUEUE_LATENCY_SUM = 3;
    static final int QUEUE_LATENCY_MAX = 4;
    static final int TASK_TIME_SUM = 5;
    static final int TASK_TIME_MAX = 6;
    static final int SIZE = 7;

    @SuppressWarnings("unused") // accessed through EPOCH
    private int epoch;

    /** Indexed by the constants above; one array so that merging and resetting is one loop. */
    private final long[] values = new long[SIZE];

    /**
     * Records one task that ran.
     *
     * @param currentEpoch the pool's statistics epoch
     * @param queueLatencyNanos how long it waited in the queue, or -1 if it was handed over directly
     * @param taskNanos how long it ran
     */
    final void record(int currentEpoch, long queueLatencyNanos, long taskNanos) {
        long[] v = values;
        if ((int) EPOCH.getOpaque(this) != currentEpoch) {
            for (int i = 0; i < SIZE; i++) {
                LONG_ARRAY.setOpaque(v, i, 0L);
            }
            EPOCH.setRelease(this, currentEpoch);
        }
        add(v, COMPLETED, 1);
        if (queueLatencyNanos < 0) {
            add(v, HAND_OFFS, 1);
        } else {
            add(v, DEQUEUED, 1);
            add(v, QUEUE_LATENCY_SUM, queueLatencyNanos);
            max(v, QUEUE_LATENCY_MAX, queueLatencyNanos);
        }
        add(v, TASK_TIME_SUM, taskNanos);
        max(v, TASK_TIME_MAX, taskNanos);
    }

    /**
     * Adds these counters into {@code totals} (sums added, maxima combined) if they belong to {@code currentEpoch}.
     *
     * @param currentEpoch the pool's statistics epoch
     * @param totals an array of {@link #SIZE} values
     */
    final void addTo(int currentEpoch, long[] totals) {
        if ((int) EPOCH.getAcquire(this) != currentEpoch) {
            return;
        }
        for (int i = 0; i < SIZE; i++) {
            long value = (long) LONG_ARRAY.getOpaque(values, i);
            if (i == QUEUE_LATENCY_MAX || i == TASK_TIME_MAX) {
                totals[i] = Math.max(totals[i], value);
            } else {
                totals[i] += value;
            }
        }
    }

    private static void add(long[] v, int index, long delta) {
        LONG_ARRAY.setOpaque(v, index, (long) LONG_ARRAY.getOpaque(v, index) + delta);
    }

    private static void max(long[] v, int index, long value) {
        if (value > (long) LONG_ARRAY.getOpaque(v, index)) {
            LONG_ARRAY.setOpaque(v, index, value);
        }
    }
}
