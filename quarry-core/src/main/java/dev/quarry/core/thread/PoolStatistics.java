package dev.quarry.core.thread;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Collects a {@link ThreadPool}'s statistics: the per-thread {@link TaskCounters} of live threads, the counters of
 * threads that exited, and the few figures that producers write (the queue size maximum and the rejections).
 *
 * <p>Thread-safety: {@link #queued(long)} and {@link #rejected()} are called by producers concurrently and write only
 * when a maximum grows or a task is refused; a snapshot reads everything racily. Cost: a snapshot is O(threads).
 */
final class PoolStatistics {
    private final AtomicInteger epoch = new AtomicInteger();
    private final RetiredCounters retired = new RetiredCounters();
    private final AtomicLong maxQueueSize = new AtomicLong();
    private final LongAdder rejected = new LongAdder();

    /** @return the statistics epoch, which {@link #reset} advances */
    int epoch() {
        return epoch.get();
    }

    /**
     * Notes the queue size right after a job was queued.
     *
     * @param size the size
     */
    void queued(long size) {
        if (size > maxQueueSize.get()) {
            maxQueueSize.getAndAccumulate(size, Math::max);
        }
    }

    /** Notes a job refused because the queue was full. */
    void rejected() {
        rejected.increment();
    }

    /** @return the most jobs queued at once since the last reset */
    long maxQueueSize() {
        return maxQueueSize.get();
    }

    /** @return the jobs refused since the last reset */
    long rejectedCount() {
        return rejected.sum();
    }

    /**
     * Keeps the counters of an exiting thread.
     *
     * @param counters its counters, or null if it never started
     */
    void retire(TaskCounters counters) {
        if (counters != null) {
            retired.retire(epoch.get(), counters);
        }
    }

    /**
     * Starts the cumulative figures afresh; the maxima restart from the current values.
     *
     * @param counts the pool's thread counts
     * @param queueSize the current queue size
     */
    void reset(ThreadCounts counts, long queueSize) {
        epoch.incrementAndGet();
        counts.resetMaxBusy();
        maxQueueSize.set(queueSize);
        rejected.reset();
    }

    /**
     * Assembles a snapshot.
     *
     * @param name the pool's name
     * @param threads the live threads
     * @param counts the pool's thread counts
     * @param reserved the threads reserved now
     * @param queueSize the queue size now
     * @return the snapshot
     */
    ThreadPoolStatistics snapshot(
            String name, Iterable<PoolThread> threads, ThreadCounts counts, int reserved, long queueSize) {
        int current = epoch.get();
        long[] totals = new long[TaskCounters.SIZE];
        for (PoolThread thread : threads) {
            TaskCounters counters = thread.counters();
            if (counters != null) {
                counters.addTo(current, totals);
            }
        }
        retired.addTo(current, totals);
        int threadCount = counts.threads();
        int busyCount = counts.busy();
        long completed = totals[TaskCounters.COMPLETED];
        long dequeued = totals[TaskCounters.DEQUEUED];
        return new ThreadPoolStatistics(
                name,
                threadCount,
                Math.max(0, threadCount - busyCount),
                Math.max(0, busyCount - reserved),
                counts.maxBusy(),
                reserved,
                queueSize,
                maxQueueSize.get(),
                completed,
                totals[TaskCounters.HAND_OFFS],
                rejected.sum(),
                dequeued == 0 ? 0 : totals[TaskCounters.QUEUE_LATENCY_SUM] / dequeued,
                totals[TaskCounters.QUEUE_LATENCY_MAX],
                completed == 0 ? 0 : totals[TaskCounters.TASK_TIME_SUM] / completed,
                totals[TaskCounters.TASK_TIME_MAX]);
    }
}
