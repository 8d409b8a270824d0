package dev.quarry.core.thread;

import dev.quarry.core.Dumpable;
import dev.quarry.core.LifeCycle;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A pool of platform threads that grows from a minimum to a maximum on demand and shrinks back after an idle timeout,
 * with reserved threads for direct hand-off ({@link #tryExecute(Runnable)}) and the statistics a person needs to size
 * it ({@link #statistics()}).
 *
 * <p>{@link #execute(Runnable)} takes no lock. An idle thread waits in a lock-free LIFO stack; the task is written into
 * its slot and the thread unparked, skipping the queue (LIFO keeps the most recently used thread, with its hot cache,
 * busy, and lets the threads at the bottom idle out). Only when no thread is idle, or when another idle thread is
 * being woken already, does the task go into a lock-free queue; then a thread is started if none is idle and the pool
 * is below its maximum. Compare {@link java.util.concurrent.ThreadPoolExecutor}, whose {@code LinkedBlockingQueue}
 * takes a lock on every offer and take.
 *
 * <p>Wake-ups: a producer wakes at most one idle thread at a time (it must take the wake token of
 * {@link ThreadCounts}); the woken thread gives the token back as soon as it runs and, if jobs are still queued, wakes
 * the next idle thread itself. A burst of tasks thus costs its producer one wake-up (a system call), not one per idle
 * thread, while the idle threads are still recruited one after another. The race between a thread deciding to park
 * and a task being queued is settled in {@link PoolThread}.
 *
 * <p>Statistics cost no shared write per task: each thread accumulates its own counts, sums and maxima; only the busy
 * count (changed when a thread parks or wakes, not per task while the queue keeps threads busy) and the maxima of busy
 * threads and queue size (written only when they grow) are shared. Timing: a queued task costs two
 * {@link System#nanoTime()} calls, the enqueue time (kept in the queue node) and the end of the task, which is also
 * the start of the next task a thread takes from the queue. A handed-off task has no queue latency: the delay until
 * the woken thread runs is the operating system's wake-up time, not a wait for a pool thread, so it is not mixed into
 * the queue latency, and hand-offs are counted on their own.
 *
 * <p>Reserved threads: {@link #tryExecute(Runnable)} delegates to a {@link ReservedThreads} whose reservation jobs are
 * given only to idle threads of this pool (or to a new thread while below the maximum), never queued. A reserved
 * thread is not available to {@link #execute(Runnable)}: that is the price of always having a thread to take over
 * production. The capacity is {@link ThreadPoolBuilder#reservedThreads(int)}; the automatic value is
 * {@code min(availableProcessors, maxThreads / 8)}: one per core, because at most one producer per core is handing off
 * at a time, and never more than an eighth of the pool, so that reserved threads cannot starve queued work (0 below 8
 * threads).
 *
 * <p>Thread-safety: every public method may be called from any thread. Cost: {@link #execute(Runnable)} is O(1) and
 * lock-free; a hand-off wakes one thread; a queued task allocates one node.
 */
public final class ThreadPool implements TryExecutor, LifeCycle, Dumpable, ThreadPoolMXBean {
    private static final System.Logger LOG = System.getLogger(ThreadPool.class.getName());

    static final int STOPPED = 0;
    static final int RUNNING = 1;
    /** Not accepting tasks; threads finish the running and queued ones, then exit. */
    static final int STOPPING = 2;
    /** The stop timeout expired: queued jobs are abandoned and threads interrupted. */
    static final int TERMINATING = 3;

    private static final String[] STATE_NAMES = {"STOPPED", "RUNNING", "STOPPING", "TERMINATING"};

    /** Handed to an idle thread to make it look in the queue. */
    static final Runnable WAKE = new Runnable() {
        @Override
        public void run() {}

        @Override
        public String toString() {
            return "WAKE";
        }
    };

    private final String name;
    private final boolean daemon;
    private final Duration stopTimeout;
    private final ClassLoader contextClassLoader;
    private volatile int minThreads;
    private volatile int maxThreads;
    private volatile long idleTimeoutNanos;
    private volatile int state = STOPPED;

    private final JobQueue queue;
    private final HandOffStack idle = new HandOffStack();
    private final ReservedThreads reserved;
    private final ThreadCounts counts = new ThreadCounts();
    private final PoolStatistics statistics = new PoolStatistics();
    private final Set<PoolThread> workers = ConcurrentHashMap.newKeySet();
    private final AtomicInteger threadIds = new AtomicInteger();
    private final ReentrantLock lifeCycleLock = new ReentrantLock();

    ThreadPool(ThreadPoolBuilder builder) {
        this.name = builder.name;
        this.daemon = builder.daemon;
        this.stopTimeout = builder.stopTimeout;
        this.minThreads = builder.minThreads;
        this.maxThreads = builder.maxThreads;
        this.idleTimeoutNanos = builder.idleTimeout.toNanos();
        this.queue = new JobQueue(builder.queueCapacity);
        this.contextClassLoader = Thread.currentThread().getContextClassLoader();
        int reservedCapacity = builder.reservedThreads >= 0
                ? builder.reservedThreads
                : Math.min(Runtime.getRuntime().availableProcessors(), builder.maxThreads / 8);
        this.reserved = new ReservedThreads(
                name, this, this::offerReservation, ThreadPool::runReserved, reservedCapacity, () -> idleTimeoutNanos);
    }

    /** @return a builder with the defaults: 8 to 200 threads, 60 s idle timeout, unbounded queue */
    public static ThreadPoolBuilder builder() {
        return new ThreadPoolBuilder();
    }

    /**
     * Runs {@code task} on a pool thread: handed directly to an idle thread if there is one (and no other is being
     * woken), otherwise queued, and a thread started if none is idle and the pool is below its maximum.
     *
     * @param task the task
     * @throws RejectedExecutionException if the pool is not running, or if the queue is bounded and full
     */
    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task");
        if (state != RUNNING) {
            throw new RejectedExecutionException(
                    "thread pool " + name + " is " + STATE_NAMES[state] + ", rejected " + task);
        }
        if (!idle.isEmpty() && counts.takeWakeToken()) {
            if (idle.offer(task, true)) {
                return; // the woken thread gives the token back
            }
            counts.releaseWakeToken();
        }
        long size = queue.offer(task, System.nanoTime());
        if (size == 0) {
            statistics.rejected();
            throw new RejectedExecutionException("thread pool " + name + ": job queue is full (capacity "
                    + queue.capacity() + ", " + counts.threads() + " threads), rejected " + task);
        }
        statistics.queued(size);
        signalWork();
    }

    /**
     * Makes sure a queued job will be taken soon: wakes an idle thread unless one is being woken already (it will
     * pass the signal on, see {@link #wakeTokenReleased()}), or starts a thread if none is idle and the pool may grow.
     * A thread that takes a job while more are queued signals again, so that a burst of blocking jobs gets a thread
     * each (up to the maximum) instead of waiting for busy threads to finish.
     */
    void signalWork() {
        if (idle.isEmpty()) {
            startThread(null);
        } else if (counts.takeWakeToken() && !idle.offer(WAKE, true)) {
            // Only cancelled waiters were left: their threads are leaving, or re-checking the queue.
            counts.releaseWakeToken();
            startThread(null);
        }
    }

    /**
     * Called by a thread woken with the wake token as soon as it runs: lets producers wake a thread again and, if
     * jobs are still queued, wakes the next idle thread.
     */
    void wakeTokenReleased() {
        // Release before looking: a producer that queues after our look then sees the token free (Dekker).
        counts.releaseWakeToken();
        if (!queue.isEmpty()) {
            signalWork();
        }
    }

    /**
     * Hands {@code task} to a reserved thread waiting now; never queues, never blocks.
     *
     * @param task the task
     * @return whether a reserved thread took it; false also when the pool is not running
     */
    @Override
    public boolean tryExecute(Runnable task) {
        return state == RUNNING && reserved.tryExecute(task);
    }

    /** Gives a reservation job to an idle thread, or to a new thread below the maximum; never queues it. */
    private boolean offerReservation(Runnable job) {
        return state == RUNNING && (idle.offer(job) || startThread(job));
    }

    private static void runReserved(Runnable task) {
        // Reservation jobs run only on this pool's threads, so the cast holds.
        ((PoolThread) Thread.currentThread()).runReserved(task);
    }

    /**
     * Starts a thread if below the maximum.
     *
     * @param firstTask a task to hand to it, or null
     * @return whether a thread was started
     */
    private boolean startThread(Runnable firstTask) {
        if (!counts.addBelow(maxThreads)) {
            return false;
        }
        counts.busyIncrement(); // a new thread is busy until it first parks
        PoolThread thread = new PoolThread(this, name + "-" + threadIds.incrementAndGet(), firstTask);
        thread.setDaemon(daemon);
        thread.setContextClassLoader(contextClassLoader);
        workers.add(thread);
        try {
            thread.start();
            return true;
        } catch (Throwable x) {
            workers.remove(thread);
            counts.remove();
            counts.busyDecrement();
            LOG.log(System.Logger.Level.ERROR, "thread pool " + name + " could not start a thread", x);
            return false;
        }
    }

    private void ensureMinThreads() {
        while (state == RUNNING && counts.threads() < minThreads) {
            if (!startThread(null)) {
                return;
            }
        }
    }

    /**
     * Starts the minimum number of threads and accepts tasks. A stopped pool may be started again.
     */
    @Override
    public void start() {
        lifeCycleLock.lock();
        try {
            if (state == RUNNING) {
                return;
            }
            if (state != STOPPED) {
                throw new IllegalStateException("thread pool " + name + " is " + STATE_NAMES[state]);
            }
            state = RUNNING;
            reserved.start();
            ensureMinThreads();
        } finally {
            lifeCycleLock.unlock();
        }
    }

    /**
     * Stops accepting tasks, lets the running and queued tasks finish within the stop timeout, then abandons the
     * queue (logging how many jobs were discarded), interrupts the threads still busy and waits up to the stop timeout
     * again for them to exit. Called from a pool thread, it does not wait for that thread.
     *
     * @throws InterruptedException if interrupted while waiting; the pool is terminated at once then
     */
    @Override
    public void stop() throws InterruptedException {
        stop(stopTimeout.toNanos(), stopTimeout.toNanos());
    }

    /**
     * Stops within {@code timeout} in all, for an owner with a deadline of its own (a server's shutdown timeout, which
     * the stop timeout applied twice would overrun): the running and queued tasks get the first half of it to finish,
     * then the queue is abandoned and the threads still busy are interrupted and get the second half to exit. Threads
     * still running after that (a task that ignores interrupts) are logged and left behind: they exit when their task
     * ends. Called from a pool thread, it does not wait for that thread.
     *
     * @param timeout the most this call waits, zero or more
     * @return how many threads were still running a task when it returned
     * @throws InterruptedException if interrupted while waiting; the pool is terminated at once then
     */
    public int stop(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        long half = Math.max(0, timeout.toNanos()) / 2;
        return stop(half, half);
    }

    private int stop(long gracefulNanos, long afterInterruptNanos) throws InterruptedException {
        lifeCycleLock.lock();
        try {
            if (state == STOPPED) {
                return 0;
            }
            state = STOPPING;
            reserved.stop();
            // Idle threads wake, find the state changed and exit once the queue is empty.
            while (idle.offer(WAKE)) {
                // one idle thread woken per offer
            }
            InterruptedException interrupted = null;
            try {
                awaitThreads(System.nanoTime() + gracefulNanos);
            } catch (InterruptedException x) {
                interrupted = x;
            }
            int left = 0;
            if (hasOtherThreads()) {
                state = TERMINATING;
                Thread self = Thread.currentThread();
                for (PoolThread thread : workers) {
                    if (thread != self) {
                        thread.interrupt();
                    }
                }
                if (interrupted == null) {
                    try {
                        awaitThreads(System.nanoTime() + afterInterruptNanos);
                    } catch (InterruptedException x) {
                        interrupted = x;
                    }
                }
                Duration waited = Duration.ofNanos(gracefulNanos + afterInterruptNanos);
                for (PoolThread thread : workers) {
                    // An idle thread on its way out is no concern; one still in a task is.
                    if (thread != self && thread.isAlive() && thread.currentTask() != null) {
                        left++;
                        LOG.log(
                                System.Logger.Level.WARNING,
                                "thread pool {0}: thread {1} did not stop within {2}, running {3}",
                                name,
                                thread.getName(),
                                waited,
                                thread.currentTask());
                    }
                }
            }
            List<Runnable> discarded = queue.drain();
            if (!discarded.isEmpty()) {
                LOG.log(
                        System.Logger.Level.WARNING,
                        "thread pool {0} stopped with {1} queued jobs discarded, first: {2}",
                        name,
                        discarded.size(),
                        discarded.get(0));
            }
            state = STOPPED;
            if (interrupted != null) {
                throw interrupted;
            }
            return left;
        } finally {
            lifeCycleLock.unlock();
        }
    }

    private boolean hasOtherThreads() {
        Thread self = Thread.currentThread();
        for (PoolThread thread : workers) {
            if (thread != self && thread.isAlive()) {
                return true;
            }
        }
        return false;
    }

    private void awaitThreads(long deadline) throws InterruptedException {
        Thread self = Thread.currentThread();
        for (PoolThread thread : workers) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return;
            }
            if (thread != self) {
                TimeUnit.NANOSECONDS.timedJoin(thread, remaining);
            }
        }
    }

    @Override
    public boolean isRunning() {
        return state == RUNNING;
    }

    // ---- called by PoolThread

    int state() {
        return state;
    }

    JobQueue queue() {
        return queue;
    }

    HandOffStack idle() {
        return idle;
    }

    ThreadCounts counts() {
        return counts;
    }

    Runnable reservationJob() {
        return reserved.reservationJob();
    }

    long idleTimeoutNanos() {
        return idleTimeoutNanos;
    }

    int statisticsEpoch() {
        return statistics.epoch();
    }

    /** Leaves the thread count if it is above the maximum; true if the caller must exit. */
    boolean leaveIfAboveMax() {
        return counts.removeAbove(maxThreads);
    }

    /** Leaves the thread count if it is above the minimum; true if the caller must exit. */
    boolean leaveIfAboveMin() {
        return counts.removeAbove(minThreads);
    }

    /** Re-enters the thread count after {@link #leaveIfAboveMin()} if below the maximum; true if it did. */
    boolean rejoinIfBelowMax() {
        return state == RUNNING && counts.addBelow(maxThreads);
    }

    /** Called by a thread as it exits, normally or not. */
    void exited(PoolThread thread, boolean countedOut, boolean wasBusy) {
        if (!countedOut) {
            counts.remove();
        }
        if (wasBusy) {
            counts.busyDecrement();
        }
        workers.remove(thread);
        statistics.retire(thread.counters());
        // A thread that died of an unexpected error is replaced; idle exits never go below the minimum.
        ensureMinThreads();
    }

    /** Wakes every idle and reserved thread so that it re-reads the configuration (without giving it work). */
    private void nudgeIdleThreads() {
        idle.forEachWaiting(waiter -> LockSupport.unpark(waiter.thread));
        reserved.nudge();
    }

    // ---- statistics

    /** @return a snapshot of the pool's state and statistics */
    public ThreadPoolStatistics statistics() {
        return statistics.snapshot(name, workers, counts, reserved.reserved(), queue.size());
    }

    /**
     * Starts the cumulative statistics afresh: counts, sums and maxima. The maxima restart from the current values.
     */
    @Override
    public void resetStatistics() {
        statistics.reset(counts, queue.size());
    }

    /** @return the reserved threads behind {@link #tryExecute(Runnable)} */
    public ReservedThreads reservedThreads() {
        return reserved;
    }

    // ---- configuration and the MXBean

    @Override
    public String getName() {
        return name;
    }

    /** @return how long a thread above the minimum stays idle before it exits */
    public Duration idleTimeout() {
        return Duration.ofNanos(idleTimeoutNanos);
    }

    @Override
    public int getMinThreads() {
        return minThreads;
    }

    @Override
    public void setMinThreads(int minThreads) {
        lifeCycleLock.lock();
        try {
            if (minThreads < 0 || minThreads > maxThreads) {
                throw new IllegalArgumentException("minThreads must be from 0 to maxThreads (" + maxThreads + "), was "
                        + minThreads + "; raise maxThreads first");
            }
            this.minThreads = minThreads;
            ensureMinThreads();
        } finally {
            lifeCycleLock.unlock();
        }
    }

    @Override
    public int getMaxThreads() {
        return maxThreads;
    }

    @Override
    public void setMaxThreads(int maxThreads) {
        lifeCycleLock.lock();
        try {
            if (maxThreads < 1 || maxThreads < minThreads) {
                throw new IllegalArgumentException("maxThreads must be at least 1 and at least minThreads ("
                        + minThreads + "), was " + maxThreads + "; lower minThreads first");
            }
            this.maxThreads = maxThreads;
            nudgeIdleThreads();
        } finally {
            lifeCycleLock.unlock();
        }
    }

    @Override
    public long getIdleTimeoutMillis() {
        return TimeUnit.NANOSECONDS.toMillis(idleTimeoutNanos);
    }

    @Override
    public void setIdleTimeoutMillis(long idleTimeoutMillis) {
        if (idleTimeoutMillis < 1) {
            throw new IllegalArgumentException("idleTimeoutMillis must be at least 1, was " + idleTimeoutMillis);
        }
        this.idleTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(idleTimeoutMillis);
        nudgeIdleThreads();
    }

    @Override
    public long getQueueCapacity() {
        return queue.capacity() == JobQueue.UNBOUNDED ? -1 : queue.capacity();
    }

    @Override
    public int getReservedThreadsCapacity() {
        return reserved.capacity();
    }

    @Override
    public int getThreads() {
        return counts.threads();
    }

    @Override
    public int getIdleThreads() {
        return statistics().idle();
    }

    @Override
    public int getBusyThreads() {
        return statistics().busy();
    }

    @Override
    public int getMaxBusyThreads() {
        return counts.maxBusy();
    }

    @Override
    public int getReservedThreads() {
        return reserved.reserved();
    }

    @Override
    public long getQueueSize() {
        return queue.size();
    }

    @Override
    public long getMaxQueueSize() {
        return statistics.maxQueueSize();
    }

    @Override
    public long getTasksCompleted() {
        return statistics().tasksCompleted();
    }

    @Override
    public long getHandOffs() {
        return statistics().handOffs();
    }

    @Override
    public long getTasksRejected() {
        return statistics.rejectedCount();
    }

    @Override
    public long getQueueLatencyAverageNanos() {
        return statistics().queueLatencyAverageNanos();
    }

    @Override
    public long getQueueLatencyMaxNanos() {
        return statistics().queueLatencyMaxNanos();
    }

    @Override
    public long getTaskTimeAverageNanos() {
        return statistics().taskTimeAverageNanos();
    }

    @Override
    public long getTaskTimeMaxNanos() {
        return statistics().taskTimeMaxNanos();
    }

    @Override
    public String getStatisticsTable() {
        return statistics().toString();
    }

    // ---- description

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        String nl = System.lineSeparator();
        out.append(toString()).append(nl);
        for (String line : statistics().toString().split("\\R")) {
            out.append(indent).append("| ").append(line).append(nl);
        }
        out.append(indent).append("+- ");
        reserved.dump(out, indent + "   ");
        List<String> jobs = queue.describe(10);
        out.append(indent).append("+- queue: ").append(queue.toString()).append(nl);
        for (String job : jobs) {
            out.append(indent).append("|  +- ").append(job).append(nl);
        }
        List<PoolThread> snapshot = new ArrayList<>(workers);
        snapshot.sort((a, b) -> a.getName().compareTo(b.getName()));
        for (PoolThread thread : snapshot) {
            Runnable task = thread.currentTask();
            out.append(indent).append("+- ").append(thread.getName()).append(' ');
            if (task == null) {
                out.append(thread.getState() == Thread.State.RUNNABLE ? "BUSY" : "IDLE");
            } else if (task == reserved.reservationJob()) {
                out.append("RESERVED");
            } else {
                out.append("BUSY ").append(String.valueOf(task));
                StackTraceElement[] stack = thread.getStackTrace();
                if (stack.length > 0) {
                    out.append(" at ").append(stack[0].toString());
                }
            }
            out.append(nl);
        }
    }

    @Override
    public String toString() {
        long capacity = queue.capacity();
        return "ThreadPool[" + name + "]{" + STATE_NAMES[state] + ", threads=" + counts.threads() + " (" + minThreads
                + ".." + maxThreads + "), busy=" + counts.busy() + ", reserved=" + reserved.reserved() + "/"
                + reserved.capacity() + ", queue=" + queue.size() + "/"
                + (capacity == JobQueue.UNBOUNDED ? "unbounded" : capacity) + ", idleTimeout=" + idleTimeout() + "}";
    }
}
