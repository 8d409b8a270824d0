package dev.quarry.core.thread;

import dev.quarry.core.internal.MarkableThread;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * A platform thread of a {@link ThreadPool}: it takes jobs from the queue until it is empty, then waits on the pool's
 * {@link HandOffStack} for a direct hand-off, and exits when the pool stops, when it is above the maximum, or when it
 * has been idle for the idle timeout while above the minimum.
 *
 * <p>Going idle is where a wake-up could be lost: a producer that found no idle thread queues its task, while this
 * thread, having found the queue empty, is about to park. Both sides publish first and look second: this thread pushes
 * its {@link Waiter} and then re-checks the queue; the producer links its job and then looks for a waiter to wake. With
 * volatile accesses (sequentially consistent) at least one of them sees the other.
 *
 * <p>Thread-safety: the loop's state is confined to this thread; {@link #current} and the {@link TaskCounters} are
 * written only by it and read racily by statistics and dumps.
 */
final class PoolThread extends MarkableThread {
    private static final System.Logger LOG = System.getLogger(ThreadPool.class.getName());
    private static final VarHandle CURRENT;

    static {
        try {
            CURRENT = MethodHandles.lookup().findVarHandle(PoolThread.class, "current", Runnable.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    /** Returned by {@link #awaitTask()} when this thread has left the thread count and must exit. */
    private static final Runnable EXIT = () -> {};

    private final ThreadPool pool;
    private Runnable firstTask;
    /** Set by the thread when it starts, in its own allocation buffer; null until then. */
    private volatile TaskCounters counters;
    /** The task running now, for dumps; written with opaque stores (no fence). */
    @SuppressWarnings("unused") // accessed through CURRENT
    private Runnable current;
    /** Whether this thread counts in the pool's busy count; confined to this thread. */
    private boolean busy = true;

    PoolThread(ThreadPool pool, String name, Runnable firstTask) {
        // Not inheriting inheritable thread locals: a pool thread may be started by any producer thread.
        super(null, null, name, false);
        this.pool = pool;
        this.firstTask = firstTask;
    }

    @Override
    public void run() {
        counters = new TaskCounters();
        boolean countedOut = false;
        try {
            Runnable task = firstTask;
            firstTask = null;
            for (; ; ) {
                if (task != null && task != ThreadPool.WAKE) {
                    runHandedOff(task);
                }
                if (!runQueued()) {
                    break;
                }
                if (pool.state() != ThreadPool.RUNNING) {
                    break; // stopping and the queue is empty
                }
                if (pool.leaveIfAboveMax()) {
                    countedOut = true;
                    break;
                }
                task = awaitTask();
                if (task == EXIT) {
                    countedOut = true;
                    break;
                }
            }
        } finally {
            pool.exited(this, countedOut, busy);
        }
    }

    /**
     * Runs queued jobs until the queue is empty.
     *
     * @return false if the pool is terminating and the queue must be abandoned
     */
    private boolean runQueued() {
        JobQueue queue = pool.queue();
        // When tasks run back to back, the end of one is taken as the start of the next: one clock read per task
        // instead of two, at the price of counting the dequeue (tens of nanoseconds) into the task time. A job
        // enqueued after that instant gets a queue latency of 0 rather than a negative one.
        long now = System.nanoTime();
        for (; ; ) {
            if (pool.state() == ThreadPool.TERMINATING) {
                return false;
            }
            JobQueue.Node node = queue.poll();
            if (node == null) {
                return true;
            }
            if (!queue.isEmpty()) {
                // More jobs wait behind this one, which may block for long: make sure another thread comes for them.
                // (One signal starts or wakes one thread; without passing it on, jobs queued in a burst behind
                // blocking ones waited for a busy thread to finish.)
                pool.signalWork();
            }
            Runnable task = node.take();
            now = runTask(task, Math.max(0L, now - node.enqueuedNanos), now);
        }
    }

    /** Runs a task that was handed over directly (no queue latency), or a reservation job (not counted at all). */
    private void runHandedOff(Runnable task) {
        if (task == pool.reservationJob()) {
            CURRENT.setOpaque(this, task);
            try {
                task.run();
            } finally {
                CURRENT.setOpaque(this, null);
            }
        } else {
            runTask(task, -1, System.nanoTime());
        }
    }

    /**
     * Runs a task handed to this thread while it was reserved; called by {@link ReservedThreads} on this thread.
     *
     * @param task the task
     */
    void runReserved(Runnable task) {
        runTask(task, -1, System.nanoTime());
    }

    /** @return when the task ended, from {@link System#nanoTime()} */
    private long runTask(Runnable task, long queueLatencyNanos, long start) {
        // A task may leave this thread interrupted; the next task must not inherit it (unless the pool terminates).
        if (Thread.interrupted() && pool.state() == ThreadPool.TERMINATING) {
            interrupt();
        }
        Runnable previous = (Runnable) CURRENT.getOpaque(this);
        CURRENT.setOpaque(this, task);
        try {
            task.run();
        } catch (Throwable x) {
            // Everything a task throws is caught here, so that the statistics below are always recorded.
            LOG.log(System.Logger.Level.WARNING, "task " + task + " failed in " + getName(), x);
        }
        long end = System.nanoTime();
        counters.record(pool.statisticsEpoch(), queueLatencyNanos, end - start);
        CURRENT.setOpaque(this, previous);
        return end;
    }

    /**
     * Waits for a hand-off after the queue was found empty.
     *
     * @return the task handed over, {@link ThreadPool#WAKE} to look in the queue again, or {@link #EXIT}
     */
    private Runnable awaitTask() {
        HandOffStack idle = pool.idle();
        pool.counts().busyDecrement();
        busy = false;
        Waiter waiter = new Waiter(this);
        idle.push(waiter);
        // Re-check after publishing idleness: a producer that queued before our push did not see us.
        if ((!pool.queue().isEmpty() || pool.state() != ThreadPool.RUNNING) && waiter.cancel()) {
            idle.unlinkIfTop(waiter);
            return wake(ThreadPool.WAKE);
        }
        long since = System.nanoTime();
        for (; ; ) {
            Runnable task = waiter.task();
            if (task != null) {
                return wake(task, waiter.wakeToken);
            }
            if (pool.state() != ThreadPool.RUNNING || pool.counts().threads() > pool.getMaxThreads()) {
                // Woken to stop or to shrink below a lowered maximum.
                if (waiter.cancel()) {
                    idle.unlinkIfTop(waiter);
                    if (pool.state() == ThreadPool.RUNNING && pool.leaveIfAboveMax()) {
                        return EXIT;
                    }
                    return wake(ThreadPool.WAKE);
                }
                continue; // a task arrived first
            }
            long remaining = since + pool.idleTimeoutNanos() - System.nanoTime();
            if (remaining <= 0) {
                if (pool.counts().threads() > pool.getMinThreads()) {
                    if (!waiter.cancel()) {
                        continue; // a task arrived first
                    }
                    idle.unlinkIfTop(waiter);
                    if (pool.leaveIfAboveMin()) {
                        // Between our cancel and our leaving, a producer may have queued a job and, counting us,
                        // started no thread for it: take it back if we may.
                        if (!pool.queue().isEmpty() && pool.rejoinIfBelowMax()) {
                            return wake(ThreadPool.WAKE);
                        }
                        return EXIT;
                    }
                    return wake(ThreadPool.WAKE); // at the minimum meanwhile: stay, with a new waiter
                }
                // At the minimum: keep waiting on the same waiter, which leaves no cancelled waiter behind.
                since = System.nanoTime();
                continue;
            }
            // Clear a stale interrupt, which would make parkNanos return at once and this loop spin.
            Thread.interrupted();
            LockSupport.parkNanos(pool, remaining);
        }
    }

    private Runnable wake(Runnable task) {
        return wake(task, false);
    }

    private Runnable wake(Runnable task, boolean wakeToken) {
        pool.counts().busyIncrement();
        busy = true;
        if (wakeToken) {
            pool.wakeTokenReleased();
        }
        return task;
    }

    /** @return this thread's task counters, or null if it has not started yet */
    TaskCounters counters() {
        return counters;
    }

    /** @return the task running now, or null */
    Runnable currentTask() {
        return (Runnable) CURRENT.getOpaque(this);
    }
}
