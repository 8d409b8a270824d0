package dev.quarry.core.thread;

import java.time.Duration;
import java.util.Locale;

/**
 * A snapshot of a {@link ThreadPool}'s state and of what it did since it started or since its statistics were last
 * reset: the figures a person needs to size a pool (the table of the Jetty "virtual threads" blog, plus idle, busy and
 * reserved threads).
 *
 * <p>The snapshot is assembled from counters that other threads keep changing, so its figures need not add up exactly
 * (for example {@code idle + busy + reserved} may differ from {@code threads} by a thread in transition).
 *
 * @param name the pool's name
 * @param threads the pool threads alive now
 * @param idle the threads waiting for a task
 * @param busy the threads running a task (or looking for one); reserved threads are not counted here
 * @param maxBusy the most threads busy at once (reserved ones included, since they were taken from the pool)
 * @param reserved the threads waiting in reserved mode for a direct hand-off ({@link ThreadPool#tryExecute})
 * @param queueSize the jobs waiting in the queue now
 * @param maxQueueSize the most jobs that waited in the queue at once
 * @param tasksCompleted the tasks that finished, normally or not (reserved-thread hand-offs included)
 * @param handOffs of those, the tasks that were handed directly to a waiting (idle or reserved) thread, skipping the
 *     queue
 * @param tasksRejected the tasks refused because the queue was full
 * @param queueLatencyAverageNanos the average time a queued task waited in the queue; hand-offs are not counted,
 *     since they never wait in a queue
 * @param queueLatencyMaxNanos the longest time a task waited in the queue
 * @param taskTimeAverageNanos the average time a task ran
 * @param taskTimeMaxNanos the longest time a task ran
 */
public record ThreadPoolStatistics(
        String name,
        int threads,
        int idle,
        int busy,
        int maxBusy,
        int reserved,
        long queueSize,
        long maxQueueSize,
        long tasksCompleted,
        long handOffs,
        long tasksRejected,
        long queueLatencyAverageNanos,
        long queueLatencyMaxNanos,
        long taskTimeAverageNanos,
        long taskTimeMaxNanos) {

    /** @return {@link #queueLatencyAverageNanos()} as a duration */
    public Duration queueLatencyAverage() {
        return Duration.ofNanos(queueLatencyAverageNanos);
    }

    /** @return {@link #queueLatencyMaxNanos()} as a duration */
    public Duration queueLatencyMax() {
        return Duration.ofNanos(queueLatencyMaxNanos);
    }

    /** @return {@link #taskTimeAverageNanos()} as a duration */
    public Duration taskTimeAverage() {
        return Duration.ofNanos(taskTimeAverageNanos);
    }

    /** @return {@link #taskTimeMaxNanos()} as a duration */
    public Duration taskTimeMax() {
        return Duration.ofNanos(taskTimeMaxNanos);
    }

    /** @return a table, one figure a line, in the layout of the Jetty blog's thread pool statistics */
    @Override
    public String toString() {
        return String.format(
                Locale.ROOT,
                "Thread pool %s:%n"
                        + "    threads:                %d%n"
                        + "    idle:                   %d%n"
                        + "    busy:                   %d%n"
                        + "    max busy threads:       %d%n"
                        + "    reserved threads:       %d%n"
                        + "    queue size:             %d%n"
                        + "    max queue size:         %d%n"
                        + "    tasks completed:        %d (%d handed off)%n"
                        + "    tasks rejected:         %d%n"
                        + "    queue latency avg/max:  %s%n"
                        + "    task time avg/max:      %s",
                name,
                threads,
                idle,
                busy,
                maxBusy,
                reserved,
                queueSize,
                maxQueueSize,
                tasksCompleted,
                handOffs,
                tasksRejected,
                averageAndMax(queueLatencyAverageNanos, queueLatencyMaxNanos),
                averageAndMax(taskTimeAverageNanos, taskTimeMaxNanos));
    }

    /** Formats "avg/max unit" in the largest unit in which the maximum is at least 1, as the blog's table does. */
    static String averageAndMax(long averageNanos, long maxNanos) {
        long divisor;
        String unit;
        if (maxNanos >= 10_000_000L) {
            divisor = 1_000_000L;
            unit = "ms";
        } else if (maxNanos >= 10_000L) {
            divisor = 1_000L;
            unit = "us";
        } else {
            divisor = 1L;
            unit = "ns";
        }
        return (averageNanos / divisor) + "/" + (maxNanos / divisor) + " " + unit;
    }
}
