package dev.quarry.core.thread;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;

/**
 * Configures a {@link ThreadPool}. Defaults: name {@code "quarry"}, 8 to 200 threads, idle timeout 60 s, unbounded
 * queue, automatic reserved threads, non-daemon threads, stop timeout 5 s.
 *
 * <p>Thread-safety: not thread-safe; use from one thread, then {@link #build()}.
 */
public final class ThreadPoolBuilder {
    String name = "quarry";
    int minThreads = 8;
    int maxThreads = 200;
    Duration idleTimeout = Duration.ofSeconds(60);
    long queueCapacity = JobQueue.UNBOUNDED;
    int reservedThreads = -1;
    boolean daemon;
    Duration stopTimeout = Duration.ofSeconds(5);

    ThreadPoolBuilder() {}

    /**
     * @param name the pool's name, also the prefix of its threads' names
     * @return this builder
     */
    public ThreadPoolBuilder name(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("thread pool name must not be blank");
        }
        this.name = name;
        return this;
    }

    /**
     * @param minThreads threads kept alive even when idle, 0 or more (started by {@link ThreadPool#start()})
     * @return this builder
     */
    public ThreadPoolBuilder minThreads(int minThreads) {
        if (minThreads < 0) {
            throw new IllegalArgumentException("minThreads must be 0 or more, was " + minThreads);
        }
        this.minThreads = minThreads;
        return this;
    }

    /**
     * @param maxThreads the most threads running at once, at least 1
     * @return this builder
     */
    public ThreadPoolBuilder maxThreads(int maxThreads) {
        if (maxThreads < 1) {
            throw new IllegalArgumentException("maxThreads must be at least 1, was " + maxThreads);
        }
        this.maxThreads = maxThreads;
        return this;
    }

    /**
     * @param idleTimeout how long a thread above the minimum (or a reserved thread) waits idle before it exits (or
     *     goes back to normal duty); positive
     * @return this builder
     */
    public ThreadPoolBuilder idleTimeout(Duration idleTimeout) {
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("idleTimeout must be positive, was " + idleTimeout);
        }
        this.idleTimeout = idleTimeout;
        return this;
    }

    /**
     * Bounds the job queue; when it is full, {@link ThreadPool#execute(Runnable)} throws
     * {@link RejectedExecutionException}.
     *
     * @param queueCapacity the most queued jobs, at least 1
     * @return this builder
     */
    public ThreadPoolBuilder queueCapacity(long queueCapacity) {
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("queueCapacity must be at least 1, was " + queueCapacity);
        }
        this.queueCapacity = queueCapacity;
        return this;
    }

    /**
     * Makes the job queue unbounded (the default).
     *
     * @return this builder
     */
    public ThreadPoolBuilder unboundedQueue() {
        this.queueCapacity = JobQueue.UNBOUNDED;
        return this;
    }

    /**
     * @param reservedThreads how many idle threads may wait in reserved mode for {@link ThreadPool#tryExecute}: 0
     *     for none, -1 for {@code min(availableProcessors, maxThreads / 8)} (see the class documentation)
     * @return this builder
     */
    public ThreadPoolBuilder reservedThreads(int reservedThreads) {
        if (reservedThreads < -1) {
            throw new IllegalArgumentException(
                    "reservedThreads must be -1 (automatic) or 0 or more, was " + reservedThreads);
        }
        this.reservedThreads = reservedThreads;
        return this;
    }

    /**
     * @param daemon whether the pool's threads are daemon threads (the default is false)
     * @return this builder
     */
    public ThreadPoolBuilder daemon(boolean daemon) {
        this.daemon = daemon;
        return this;
    }

    /**
     * @param stopTimeout how long {@link ThreadPool#stop()} lets tasks finish before interrupting them, and then
     *     waits for interrupted threads; zero or more
     * @return this builder
     */
    public ThreadPoolBuilder stopTimeout(Duration stopTimeout) {
        Objects.requireNonNull(stopTimeout, "stopTimeout");
        if (stopTimeout.isNegative()) {
            throw new IllegalArgumentException("stopTimeout must not be negative, was " + stopTimeout);
        }
        this.stopTimeout = stopTimeout;
        return this;
    }

    /**
     * @return a new, stopped pool
     * @throws IllegalArgumentException if minThreads exceeds maxThreads or reservedThreads exceeds maxThreads
     */
    public ThreadPool build() {
        if (minThreads > maxThreads) {
            throw new IllegalArgumentException(
                    "minThreads (" + minThreads + ") must not exceed maxThreads (" + maxThreads + ")");
        }
        if (reservedThreads > maxThreads) {
            throw new IllegalArgumentException(
                    "reservedThreads (" + reservedThreads + ") must not exceed maxThreads (" + maxThreads + ")");
        }
        return new ThreadPool(this);
    }
}
