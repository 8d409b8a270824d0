package dev.quarry.core.thread;

import dev.quarry.core.Dumpable;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs each task on a new virtual thread, with at most {@code maxConcurrent} tasks running at once and at most
 * {@code maxQueued} waiting; beyond both, {@link #execute(Runnable)} throws {@link RejectedExecutionException}, which a
 * server turns into {@code 503 Service Unavailable} with {@code Retry-After}. Virtual threads are cheap, but "cheap
 * threads can do expensive things": each running task holds memory, buffers, connections and locks, so their number is
 * bounded like a platform pool's would be.
 *
 * <p>Admission is lock-free: one {@link AtomicLong} packs the running count (high 32 bits) and the queued count (low
 * 32 bits), so that "run now, queue, or reject" is one CAS on a consistent pair. A task is put in the queue
 * <em>before</em> it is counted as queued, and a count is taken off before a task is polled: so whoever takes a queued
 * count always finds a task in the queue, and nobody ever waits or spins for one to appear. The price is that the queue
 * may hold, for a few instructions, a task that is not counted yet (and, under overload, one that is about to be taken
 * back out and rejected).
 *
 * <p>When a task ends and tasks wait, the next waiting task is started on a <em>new</em> virtual thread, which
 * inherits the running slot (the count does not change). A fresh thread per task keeps tasks isolated, as one virtual
 * thread per task is meant to: no thread-local state, interrupt status or thread name leaks from one request to the
 * next. Starting a virtual thread costs about a microsecond, small next to a task that blocks.
 *
 * <p>{@link #stop()} refuses new tasks and drops the queued ones (they never start); running tasks finish.
 *
 * <p>Thread-safety: every method may be called from any thread. Cost: {@link #execute(Runnable)} O(1), lock-free, and
 * allocation-free beyond the virtual thread; a queued task allocates one queue node.
 */
public final class BoundedVirtualThreadExecutor implements Executor, Dumpable {
    private static final System.Logger LOG = System.getLogger(BoundedVirtualThreadExecutor.class.getName());
    private static final long ONE_RUNNING = 1L << 32;
    private static final long QUEUED_MASK = 0xFFFF_FFFFL;

    private final String name;
    private final int maxConcurrent;
    private final int maxQueued;
    private final ThreadFactory factory;
    /** Running tasks (high 32 bits) and queued tasks (low 32 bits). */
    private final AtomicLong counts = new AtomicLong();

    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    private final AtomicLong maxRunning = new AtomicLong();
    private final LongAdder completed = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private volatile boolean stopped;

    /**
     * @param name the name of every virtual thread it starts (a thread dump tells them apart by their ids)
     * @param maxConcurrent the most tasks running at once, at least 1
     * @param maxQueued the most tasks waiting to run, 0 or more
     */
    public BoundedVirtualThreadExecutor(String name, int maxConcurrent, int maxQueued) {
        Objects.requireNonNull(name, "name");
        if (maxConcurrent < 1) {
            throw new IllegalArgumentException("maxConcurrent must be at least 1, was " + maxConcurrent);
        }
        if (maxQueued < 0) {
            throw new IllegalArgumentException("maxQueued must be 0 or more, was " + maxQueued);
        }
        this.name = name;
        this.maxConcurrent = maxConcurrent;
        this.maxQueued = maxQueued;
        // The factory of a builder is safe for concurrent use. One name for all: numbering them would build a string
        // per task (about 150 bytes and a counter update per request), and thread dumps show each thread's id anyway.
        this.factory = Thread.ofVirtual().name(name).factory();
    }

    /**
     * Runs {@code task} on a new virtual thread now if fewer than {@code maxConcurrent} tasks run, otherwise queues it.
     *
     * @param task the task
     * @throws RejectedExecutionException if {@code maxConcurrent} tasks run and {@code maxQueued} wait, or the executor
     *     is stopped
     */
    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task");
        if (stopped) {
            rejected.increment();
            throw new RejectedExecutionException("virtual thread executor " + name + " is stopped, rejected " + task);
        }
        for (; ; ) {
            long current = counts.get();
            int runningNow = (int) (current >>> 32);
            if (runningNow < maxConcurrent) {
                if (counts.compareAndSet(current, current + ONE_RUNNING)) {
                    if (runningNow + 1 > maxRunning.get()) {
                        maxRunning.getAndAccumulate(runningNow + 1, Math::max);
                    }
                    start(task);
                    return;
                }
                continue;
            }
            if ((int) (current & QUEUED_MASK) >= maxQueued) {
                throw saturated(runningNow, (int) (current & QUEUED_MASK), task);
            }
            enqueue(task);
            return;
        }
    }

    /** Queues a task: in the queue first, counted second (see the class comment), then helps start what may run. */
    private void enqueue(Runnable task) {
        queue.offer(task);
        for (; ; ) {
            long current = counts.get();
            int queuedNow = (int) (current & QUEUED_MASK);
            if (queuedNow >= maxQueued && queue.remove(task)) {
                // Others queued meanwhile: take it back, it was never counted.
                throw saturated((int) (current >>> 32), queuedNow, task);
            }
            // Counted even above the bound when it could not be taken back: a task counted by another producer was
            // polled in its place (the queue is FIFO), and every task in the queue must be counted.
            if (counts.compareAndSet(current, current + 1)) {
                break;
            }
        }
        // A slot may have been released between the admission check and the count: start queued tasks in free slots,
        // since whoever released it saw no queued count and will not.
        for (; ; ) {
            long current = counts.get();
            if ((int) (current >>> 32) >= maxConcurrent || (current & QUEUED_MASK) == 0) {
                return;
            }
            if (counts.compareAndSet(current, current + ONE_RUNNING - 1)) {
                start(queue.poll());
            }
        }
    }

    private RejectedExecutionException saturated(int runningNow, int queuedNow, Runnable task) {
        rejected.increment();
        return new RejectedExecutionException("virtual thread executor " + name + " is saturated: " + runningNow
                + " tasks running (maxConcurrent=" + maxConcurrent + ") and " + queuedNow + " queued (maxQueued="
                + maxQueued + "), rejected " + task);
    }

    private void start(Runnable task) {
        Thread thread = factory.newThread(() -> run(task));
        try {
            thread.start();
        } catch (Throwable x) {
            // Give the running slot to the next waiting task, if any, so that queued work is not stranded.
            LOG.log(System.Logger.Level.ERROR, "virtual thread executor " + name + " could not start a thread", x);
            Runnable next = next();
            if (next != null) {
                start(next);
            }
            throw x;
        }
    }

    private void run(Runnable task) {
        try {
            task.run();
        } catch (Throwable x) {
            LOG.log(System.Logger.Level.WARNING, "task " + task + " failed in " + Thread.currentThread(), x);
        } finally {
            completed.increment();
            Runnable next = next();
            if (next != null) {
                start(next);
            }
        }
    }

    /**
     * Ends one running task: takes a queued task to run in its slot, or releases the slot.
     *
     * @return the task to start in the slot, or null if the slot was released
     */
    private Runnable next() {
        for (; ; ) {
            long current = counts.get();
            if ((current & QUEUED_MASK) == 0 || stopped) {
                if (counts.compareAndSet(current, current - ONE_RUNNING)) {
                    return null;
                }
            } else if (counts.compareAndSet(current, current - 1)) {
                // Counted only once in the queue: the poll finds a task (or the stop drained it meanwhile).
                Runnable task = queue.poll();
                if (task != null) {
                    return task;
                }
            }
        }
    }

    /**
     * Stops the executor: new tasks are rejected, queued ones are dropped and never start; running tasks finish.
     *
     * @return how many queued tasks were dropped
     */
    public int stop() {
        stopped = true;
        int count = 0;
        for (; ; ) {
            long current = counts.get();
            if ((current & QUEUED_MASK) == 0) {
                break;
            }
            if (counts.compareAndSet(current, current - 1)) {
                if (queue.poll() != null) {
                    count++;
                }
            }
        }
        dropped.add(count);
        if (count > 0) {
            int droppedNow = count;
            LOG.log(System.Logger.Level.WARNING, () -> name + ": " + droppedNow + " queued tasks dropped at stop");
        }
        return count;
    }

    /** @return whether {@link #stop()} was called */
    public boolean isStopped() {
        return stopped;
    }

    /** @return a snapshot of the executor's counters */
    public Statistics statistics() {
        long current = counts.get();
        return new Statistics(
                (int) (current >>> 32),
                (int) (current & QUEUED_MASK),
                (int) maxRunning.get(),
                completed.sum(),
                rejected.sum());
    }

    /** @return the most tasks running at once */
    public int maxConcurrent() {
        return maxConcurrent;
    }

    /** @return the most tasks waiting to run */
    public int maxQueued() {
        return maxQueued;
    }

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        // Running tasks are not tracked one by one (that would cost a map entry per task): a JVM thread dump
        // (jcmd PID Thread.dump_to_file) lists the virtual threads, named after this executor.
        out.append(toString()).append(System.lineSeparator());
    }

    @Override
    public String toString() {
        Statistics statistics = statistics();
        return "BoundedVirtualThreadExecutor[" + name + "]{running=" + statistics.running() + "/" + maxConcurrent
                + ", queued=" + statistics.queued() + "/" + maxQueued + ", maxRunning=" + statistics.maxRunning()
                + ", completed=" + statistics.completed() + ", rejected=" + statistics.rejected()
                + (stopped ? ", stopped, dropped=" + dropped.sum() : "") + "}";
    }

    /**
     * A snapshot of a {@link BoundedVirtualThreadExecutor}'s counters.
     *
     * @param running the tasks running now
     * @param queued the tasks waiting now
     * @param maxRunning the most tasks that ran at once
     * @param completed the tasks that finished, normally or not
     * @param rejected the tasks refused because the executor was saturated
     */
    public record Statistics(int running, int queued, int maxRunning, long completed, long rejected) {}
}
