package dev.quarry.core.thread;

import dev.quarry.core.Dumpable;
import dev.quarry.core.LifeCycle;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Threads that wait, parked, for a task to be handed to them directly: {@link #tryExecute(Runnable)} either gives the
 * task to one of them at once or returns false; it never queues the task and never blocks the caller.
 *
 * <p>This is what lets the adaptive execution strategy consume a blocking task on the producing thread: it first
 * hands production to a reserved thread, and if none is waiting it does not risk it (a production task queued behind
 * blocked tasks is how "eat what you kill" starved). A thread becomes reserved by running a reservation job, which
 * this class submits to its source of threads whenever fewer than {@link #capacity()} threads are reserved or on their
 * way: after every hand-off (to replace the thread taken) and after every miss (so that the next try may succeed).
 * A reserved thread that waits longer than the idle timeout ends its reservation and goes back to its source, where it
 * may do other work or exit.
 *
 * <p>Used standalone, any {@link Executor} provides the threads (its {@code execute} runs the reservation jobs, so a
 * thread of a busy executor becomes reserved only when that job's turn comes). A {@link ThreadPool} gives reservation
 * jobs only to its idle threads, or to a new thread if below its maximum.
 *
 * <p>Thread-safety: every method may be called from any thread. Cost of {@link #tryExecute(Runnable)}: O(1), lock-free;
 * a hand-off wakes one thread and may submit one reservation job; one small allocation per reservation.
 */
public final class ReservedThreads implements TryExecutor, LifeCycle, Dumpable {
    private static final System.Logger LOG = System.getLogger(ReservedThreads.class.getName());

    /** Handed to reserved threads when stopping: ends the reservation. */
    private static final Runnable STOP = new Runnable() {
        @Override
        public void run() {}

        @Override
        public String toString() {
            return "STOP";
        }
    };

    /** Where reserved threads come from. */
    @FunctionalInterface
    interface ThreadSource {
        /**
         * Runs {@code job} on one of the source's threads.
         *
         * @param job the reservation job
         * @return false if no thread could take it (the job will not run)
         */
        boolean offer(Runnable job);
    }

    /** Runs a task handed to a reserved thread; lets a pool keep its statistics. */
    @FunctionalInterface
    interface TaskRunner {
        void run(Runnable task);
    }

    private final String name;
    private final Executor executor;
    private final ThreadSource source;
    private final TaskRunner runner;
    private final int capacity;
    private final LongSupplier idleTimeoutNanos;
    private final HandOffStack waiters = new HandOffStack();
    /** Reserved threads waiting plus reservation jobs submitted but not yet waiting; at most {@code capacity}. */
    private final AtomicInteger size = new AtomicInteger();
    /** Reserved threads waiting now; decremented by whoever ends a wait (the hand-off or the thread itself). */
    private final AtomicInteger waiting = new AtomicInteger();

    private final LongAdder handOffs = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final Runnable reservation = new Runnable() {
        @Override
        public void run() {
            reserve();
        }

        @Override
        public String toString() {
            return "Reservation@" + ReservedThreads.this.name;
        }
    };
    private volatile boolean running;

    /**
     * Reserved threads drawn from any executor.
     *
     * @param executor runs the reservation jobs (and {@link #execute(Runnable)})
     * @param capacity how many threads may be reserved at once, 0 or more (0: {@link #tryExecute} always fails)
     * @param idleTimeout how long a reserved thread waits before it goes back to {@code executor}
     */
    public ReservedThreads(Executor executor, int capacity, Duration idleTimeout) {
        this(
                "reserved@" + Objects.requireNonNull(executor, "executor"),
                executor,
                job -> {
                    try {
                        executor.execute(job);
                        return true;
                    } catch (RejectedExecutionException x) {
                        return false;
                    }
                },
                ReservedThreads::runLogged,
                capacity,
                positiveNanos(idleTimeout));
    }

    ReservedThreads(
            String name,
            Executor executor,
            ThreadSource source,
            TaskRunner runner,
            int capacity,
            LongSupplier idleTimeoutNanos) {
        if (capacity < 0) {
            throw new IllegalArgumentException("reserved threads capacity must be 0 or more, was " + capacity);
        }
        this.name = name;
        this.executor = executor;
        this.source = source;
        this.runner = runner;
        this.capacity = capacity;
        this.idleTimeoutNanos = idleTimeoutNanos;
    }

    private static LongSupplier positiveNanos(Duration idleTimeout) {
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("idle timeout must be positive, was " + idleTimeout);
        }
        long nanos = idleTimeout.toNanos();
        return () -> nanos;
    }

    /**
     * Hands {@code task} to a reserved thread that is waiting now, and arranges for the reserved threads to be
     * replenished. Never queues, never blocks.
     *
     * @param task the task
     * @return true if a reserved thread took it; false if none was waiting, or when stopped
     */
    @Override
    public boolean tryExecute(Runnable task) {
        Objects.requireNonNull(task, "task");
        if (!running) {
            return false;
        }
        if (waiters.offer(task)) {
            waiting.decrementAndGet();
            size.decrementAndGet();
            handOffs.increment();
            reserveMore();
            return true;
        }
        misses.increment();
        reserveMore();
        return false;
    }

    /**
     * Runs {@code task} on the executor this was built with (not on a reserved thread).
     *
     * @param task the task
     */
    @Override
    public void execute(Runnable task) {
        executor.execute(task);
    }

    /** Submits reservation jobs while fewer than {@code capacity} threads are reserved or on their way. */
    private void reserveMore() {
        for (; ; ) {
            int current = size.get();
            if (current >= capacity || !running) {
                return;
            }
            if (size.compareAndSet(current, current + 1)) {
                break;
            }
        }
        if (!source.offer(reservation)) {
            size.decrementAndGet();
        }
    }

    /** The reservation job: the current thread waits for a hand-off, then runs the task or gives up. */
    private void reserve() {
        Thread thread = Thread.currentThread();
        Waiter waiter = new Waiter(thread);
        waiting.incrementAndGet();
        waiters.push(waiter);
        // Re-check after publishing: stop() drains the waiters after clearing the flag, so one of us sees the other.
        if (!running && endWait(waiter)) {
            return;
        }
        long since = System.nanoTime();
        for (; ; ) {
            Runnable task = waiter.task();
            if (task != null) {
                if (task != STOP) {
                    runner.run(task);
                }
                return;
            }
            long remaining = since + idleTimeoutNanos.getAsLong() - System.nanoTime();
            if ((remaining <= 0 || !running) && endWait(waiter)) {
                return;
            }
            // Clear a stale interrupt, which would make parkNanos return at once and this loop spin.
            Thread.interrupted();
            if (remaining > 0) {
                LockSupport.parkNanos(this, remaining);
            }
        }
    }

    /** Cancels the wait; false if a task arrived first. */
    private boolean endWait(Waiter waiter) {
        if (!waiter.cancel()) {
            return false;
        }
        waiters.unlinkIfTop(waiter);
        waiting.decrementAndGet();
        size.decrementAndGet();
        return true;
    }

    /** Wakes the reserved threads without giving them anything, so that they re-read the idle timeout. */
    void nudge() {
        waiters.forEachWaiting(waiter -> LockSupport.unpark(waiter.thread));
    }

    /**
     * The reservation job, so that a pool can recognise it and not count it as a task of its own.
     *
     * @return the job that makes the running thread reserved
     */
    Runnable reservationJob() {
        return reservation;
    }

    /** Accepts hand-offs from now on; reserved threads are recruited at the first {@link #tryExecute}. */
    @Override
    public void start() {
        running = true;
    }

    /** Refuses hand-offs and sends the reserved threads back to their source. */
    @Override
    public void stop() {
        running = false;
        while (waiters.offer(STOP)) {
            waiting.decrementAndGet();
            size.decrementAndGet();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** @return how many threads may be reserved at once */
    public int capacity() {
        return capacity;
    }

    /** @return the threads waiting in reserved mode now */
    public int reserved() {
        return Math.max(0, waiting.get());
    }

    /** @return reservation jobs submitted whose thread does not wait yet */
    public int pending() {
        return Math.max(0, size.get() - waiting.get());
    }

    /** @return the tasks handed to a reserved thread so far */
    public long handOffs() {
        return handOffs.sum();
    }

    /** @return the calls to {@link #tryExecute(Runnable)} that found no reserved thread waiting */
    public long misses() {
        return misses.sum();
    }

    private static void runLogged(Runnable task) {
        try {
            task.run();
        } catch (Throwable x) {
            LOG.log(System.Logger.Level.WARNING, "task " + task + " failed on a reserved thread", x);
        }
    }

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        out.append(toString()).append(System.lineSeparator());
        for (Thread thread : waiters.waitingThreads()) {
            out.append(indent)
                    .append("+- ")
                    .append(thread.getName())
                    .append(" RESERVED")
                    .append(System.lineSeparator());
        }
    }

    @Override
    public String toString() {
        return "ReservedThreads[" + name + "]{" + (running ? "RUNNING" : "STOPPED") + ", reserved=" + reserved() + "/"
                + capacity + ", pending=" + pending() + ", handOffs=" + handOffs() + ", misses=" + misses() + "}";
    }
}
