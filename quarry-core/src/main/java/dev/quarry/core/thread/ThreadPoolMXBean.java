package dev.quarry.core.thread;

/**
 * The management interface of a {@link ThreadPool}: its statistics as JavaBean attributes, and the sizing that can be
 * changed while it runs. The pool does not register itself; whoever owns it (the server) does.
 *
 * <p>Each statistics getter takes its own snapshot; use {@link ThreadPool#statistics()} for a consistent set.
 */
public interface ThreadPoolMXBean {

    /** @return the pool's name, also the prefix of its threads' names */
    String getName();

    /** @return whether the pool accepts tasks */
    boolean isRunning();

    /** @return the number of threads kept alive even when idle */
    int getMinThreads();

    /**
     * Changes the number of threads kept alive when idle; threads are started at once if fewer are alive.
     *
     * @param minThreads from 0 to {@link #getMaxThreads()}
     * @throws IllegalArgumentException if out of range
     */
    void setMinThreads(int minThreads);

    /** @return the most threads the pool runs at once */
    int getMaxThreads();

    /**
     * Changes the most threads the pool runs at once; idle threads above it exit at once, busy ones when they finish.
     *
     * @param maxThreads at least 1 and at least {@link #getMinThreads()}
     * @throws IllegalArgumentException if out of range
     */
    void setMaxThreads(int maxThreads);

    /** @return how long a thread above the minimum stays idle before it exits, in milliseconds */
    long getIdleTimeoutMillis();

    /**
     * Changes the idle timeout; idle threads apply it at once.
     *
     * @param idleTimeoutMillis at least 1
     * @throws IllegalArgumentException if out of range
     */
    void setIdleTimeoutMillis(long idleTimeoutMillis);

    /** @return the job queue capacity, or -1 if unbounded */
    long getQueueCapacity();

    /** @return how many threads may wait in reserved mode */
    int getReservedThreadsCapacity();

    /** @return {@link ThreadPoolStatistics#threads()} */
    int getThreads();

    /** @return {@link ThreadPoolStatistics#idle()} */
    int getIdleThreads();

    /** @return {@link ThreadPoolStatistics#busy()} */
    int getBusyThreads();

    /** @return {@link ThreadPoolStatistics#maxBusy()} */
    int getMaxBusyThreads();

    /** @return {@link ThreadPoolStatistics#reserved()} */
    int getReservedThreads();

    /** @return {@link ThreadPoolStatistics#queueSize()} */
    long getQueueSize();

    /** @return {@link ThreadPoolStatistics#maxQueueSize()} */
    long getMaxQueueSize();

    /** @return {@link ThreadPoolStatistics#tasksCompleted()} */
    long getTasksCompleted();

    /** @return {@link ThreadPoolStatistics#handOffs()} */
    long getHandOffs();

    /** @return {@link ThreadPoolStatistics#tasksRejected()} */
    long getTasksRejected();

    /** @return {@link ThreadPoolStatistics#queueLatencyAverageNanos()} */
    long getQueueLatencyAverageNanos();

    /** @return {@link ThreadPoolStatistics#queueLatencyMaxNanos()} */
    long getQueueLatencyMaxNanos();

    /** @return {@link ThreadPoolStatistics#taskTimeAverageNanos()} */
    long getTaskTimeAverageNanos();

    /** @return {@link ThreadPoolStatistics#taskTimeMaxNanos()} */
    long getTaskTimeMaxNanos();

    /** @return the statistics table, as {@link ThreadPoolStatistics#toString()} */
    String getStatisticsTable();

    /** Starts the cumulative statistics (counts, sums, maxima) afresh. */
    void resetStatistics();
}
