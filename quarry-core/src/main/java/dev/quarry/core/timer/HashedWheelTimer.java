package dev.quarry.core.timer;

import dev.quarry.core.Dumpable;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.LifeCycle;
import dev.quarry.core.internal.MarkableThread;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A hashed-wheel timer: schedules tasks to run after a delay with O(1), lock-free scheduling and cancelling, for the
 * many timeouts of a server (idle, request, handshake) that are almost all cancelled before they fire. It replaces
 * {@link java.util.concurrent.ScheduledThreadPoolExecutor}, whose single lock every schedule and cancel takes, and
 * which under load becomes the point where I/O threads queue up.
 *
 * <h2>How it works</h2>
 *
 * <p>One platform thread, the <em>ticker</em>, wakes every tick (default {@value #DEFAULT_TICK_MILLIS} ms) and owns a
 * wheel of {@link #wheelSize()} buckets (a power of two, default {@value #DEFAULT_WHEEL_SIZE}); a timeout waits in
 * the bucket of its deadline's tick. Other threads never touch the wheel, so it needs no synchronisation:
 *
 * <ul>
 *   <li>{@link #schedule} allocates one {@link Timeout}, which is also the node, and pushes it on a lock-free stack
 *       with one CAS; the ticker takes the whole stack each tick and moves the timeouts into their buckets. The
 *       stacks are striped by thread id, so that threads on different cores do not pass one cache line around;
 *   <li>{@link Timeout#cancel()} moves the timeout's state by one CAS and allocates nothing. A timeout cancelled
 *       while still on the stack is popped at once if it is on top (the usual case when a timeout is cancelled soon
 *       after being scheduled) or dropped when the ticker takes the stack; one cancelled in the wheel is pushed on a
 *       second lock-free stack that the ticker drains at the start of every tick to unlink it.
 * </ul>
 *
 * <p><b>Memory bound of cancelled timeouts:</b> the timer holds a cancelled timeout at most until its next tick
 * (one tick duration plus the ticker's lateness): popped at once, or dropped or unlinked at the next tick. Memory is
 * therefore bounded by the live timeouts plus the timeouts cancelled during one tick, whatever their delays; a
 * cancelled timeout never waits for its bucket to come round.
 *
 * <h2>Timing</h2>
 *
 * <p>A task never runs before its delay has passed since {@link #schedule} was called, and normally runs within two
 * ticks after that: {@code schedule} does not read the clock (that would be about half of its cost); the ticker
 * fixes the deadline when it takes the timeout off its stack at the next tick, as that time plus the delay, and runs
 * the task at the first tick at or after the deadline. A zero or negative delay runs at the next tick. Tasks run in
 * the order of those deadlines (exactly, also within one tick), so tasks whose delays end more than a tick apart run
 * in the order their delays end. Delays are capped at about 73 years.
 *
 * <h2>Where tasks run</h2>
 *
 * <p>On the executor given at construction, by default a new virtual thread per task: the ticker only moves timeouts
 * and hands expired tasks off, so that no task can delay the other timeouts or block the thread that drives them. A
 * {@link InvocationType#NON_BLOCKING} task runs with the "must not block" mark set
 * ({@link Invocable#isNonBlockingInvocation()}), as the ticker itself does while it ticks. A task that throws is logged
 * with {@link System.Logger} and counted ({@link #failedCount()}), and does not disturb the timer.
 *
 * <h2>Coarse clock</h2>
 *
 * <p>{@link #nanoTime()} returns the {@code System.nanoTime()} read at the start of the last tick: one volatile read,
 * for callers that timestamp activity on hot paths (see {@link IdleTimeout}).
 *
 * <h2>Life cycle</h2>
 *
 * <p>Tasks may be scheduled before {@link #start()}; they wait for the ticker, and their delay counts from its first
 * tick. {@link #stop()} cancels every timeout that has not expired (their tasks never run, their
 * {@link Timeout#isCancelled()} becomes true, nothing is returned), makes the ticker exit and waits for it; from then
 * on {@link #schedule} throws {@link IllegalStateException}. A stopped timer may be started again.
 *
 * <p>Thread-safety: every method may be called from any thread, including from a task running on the ticker.
 */
public final class HashedWheelTimer implements LifeCycle, Dumpable {
    /** The default tick duration in milliseconds. */
    public static final int DEFAULT_TICK_MILLIS = 10;

    /** The default number of buckets: with the default tick, one rotation takes about 5 s. */
    public static final int DEFAULT_WHEEL_SIZE = 512;

    /** The largest wheel accepted: each bucket costs one sentinel object. */
    public static final int MAX_WHEEL_SIZE = 1 << 16;

    private static final System.Logger LOG = System.getLogger(HashedWheelTimer.class.getName());
    private static final AtomicInteger INSTANCES = new AtomicInteger();
    private static final long MAX_DELAY_NANOS = Long.MAX_VALUE >> 2;
    private static final int MAX_STRIPES = 64;
    private static final long STOP_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final VarHandle TICKER;

    static {
        try {
            TICKER = MethodHandles.lookup().findVarHandle(HashedWheelTimer.class, "ticker", Ticker.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final String name;
    private final long tickNanos;
    private final int wheelSize;
    private final Executor executor;
    private final TimeoutStacks[] stripes;
    private final int stripeMask;
    private final AtomicLong cancelledOnStop = new AtomicLong();
    private final AtomicLong failed = new AtomicLong(); // rare: only tasks that throw or are rejected
    private final ReentrantLock lifeCycleLock = new ReentrantLock();

    /** The running ticker; null when stopped. Set under the life-cycle lock; cleared under it or by a broken ticker. */
    private volatile Ticker ticker;

    /** The last ticker started, which a restart waits for. Guarded by the life-cycle lock. */
    private Ticker lastTicker;

    // Written by the ticker once per tick; read by anyone.
    private volatile long clock = System.nanoTime();
    private volatile long pending;
    private volatile long expired;
    private volatile long ticks;

    /** A timer with the default tick, wheel size and executor; call {@link #start()} before use. */
    public HashedWheelTimer() {
        this(builder());
    }

    private HashedWheelTimer(Builder builder) {
        this.name = builder.name != null ? builder.name : "quarry-timer-" + INSTANCES.incrementAndGet();
        this.tickNanos = builder.tickDuration.toNanos();
        this.wheelSize = builder.wheelSize;
        this.executor = builder.executor != null ? builder.executor : virtualThreadPerTask(name + "-task-");
        // Enough stripes that concurrently scheduling threads rarely share one: ids of threads started together are
        // consecutive, so they land on distinct stripes. The ticker visits every stripe each tick, which is cheap.
        int wanted = Math.clamp(4L * Runtime.getRuntime().availableProcessors(), 8, MAX_STRIPES);
        int count = Integer.highestOneBit(wanted - 1) << 1; // the next power of two
        this.stripes = new TimeoutStacks[count];
        for (int i = 0; i < count; i++) {
            stripes[i] = new TimeoutStacks();
        }
        this.stripeMask = count - 1;
    }

    /** @return a builder for a timer with other than default settings */
    public static Builder builder() {
        return new Builder();
    }

    private static Executor virtualThreadPerTask(String prefix) {
        ThreadFactory factory = Thread.ofVirtual().name(prefix, 0).factory();
        return new Executor() {
            @Override
            public void execute(Runnable task) {
                factory.newThread(task).start();
            }

            @Override
            public String toString() {
                return "VirtualThreadPerTask[" + prefix + "*]";
            }
        };
    }

    /**
     * Schedules a task to run once after a delay. O(1), lock-free; allocates only the returned timeout.
     *
     * @param task what to run; where it runs depends on its invocation type (see the class comment)
     * @param delay how long to wait; zero or negative runs it at the next tick
     * @param unit the unit of {@code delay}
     * @return the handle to cancel the task
     * @throws IllegalStateException if the timer was stopped
     */
    public Timeout schedule(Runnable task, long delay, TimeUnit unit) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(unit, "unit");
        TimeoutStacks stripe = stripe();
        Timeout timeout = newTimeout(stripe, task, unit.toNanos(delay));
        if (!stripe.push(timeout)) {
            throw new IllegalStateException("cannot schedule " + task + ": " + this + " is stopped");
        }
        return timeout;
    }

    /**
     * Schedules a task to run once after a delay; same as {@link #schedule(Runnable, long, TimeUnit)}.
     *
     * @param task what to run
     * @param delay how long to wait; zero or negative runs it at the next tick
     * @return the handle to cancel the task
     * @throws IllegalStateException if the timer was stopped
     */
    public Timeout schedule(Runnable task, Duration delay) {
        Objects.requireNonNull(delay, "delay");
        return schedule(task, TimeUnit.NANOSECONDS.convert(delay), TimeUnit.NANOSECONDS);
    }

    /** Schedules a task that runs on the ticker; returns null instead of throwing if the timer is stopped. */
    Timeout trySchedule(TickerTask task, long delayNanos) {
        TimeoutStacks stripe = stripe();
        Timeout timeout = newTimeout(stripe, task, delayNanos);
        return stripe.push(timeout) ? timeout : null;
    }

    private TimeoutStacks stripe() {
        return stripes[(int) Thread.currentThread().threadId() & stripeMask];
    }

    private static Timeout newTimeout(TimeoutStacks stripe, Object task, long delayNanos) {
        // No clock read here: the ticker turns the delay into a deadline when it takes the timeout (see Timeout).
        return new Timeout(stripe, task, Math.min(Math.max(delayNanos, 0), MAX_DELAY_NANOS));
    }

    /** Cancels every timeout of a pending stack taken off the timer; returns how many this call cancelled. */
    static long cancelPending(Timeout stack) {
        long count = 0;
        while (stack != null) {
            Timeout next = stack.next;
            stack.next = null;
            if (stack.compareAndSetState(Timeout.PENDING, Timeout.CANCELLED)) {
                count++;
            }
            stack = next;
        }
        return count;
    }

    /**
     * Ticker only: hands one expired task to the executor (the ticker runs only the timer's own checks, so that no task
     * can delay every other timeout of the server or block the one thread that drives them). Never throws.
     */
    void fire(Object task) {
        try {
            if (task instanceof TickerTask tickerTask) {
                tickerTask.runOnTicker();
            } else {
                execute((Runnable) task);
            }
        } catch (Throwable x) {
            failed(task, x);
        }
    }

    /**
     * Hands a task to the executor; a {@link InvocationType#NON_BLOCKING} one runs there with the "must not block"
     * mark set. Failures of the task and of the executor are logged.
     */
    void execute(Runnable task) {
        try {
            executor.execute(new Guarded(task));
        } catch (RejectedExecutionException x) {
            failed.incrementAndGet();
            LOG.log(System.Logger.Level.WARNING, () -> executor + " rejected timer task " + task, x);
        }
    }

    private void failed(Object task, Throwable failure) {
        failed.incrementAndGet();
        LOG.log(System.Logger.Level.WARNING, () -> "timer task failed: " + task, failure);
    }

    /**
     * The coarse clock: the {@link System#nanoTime()} that the ticker read at the start of its last tick. It lags
     * real time by at most one tick plus the ticker's lateness, costs one volatile read, and is frozen while the
     * timer is stopped. Use it to timestamp activity where calling {@code System.nanoTime()} each time would cost.
     *
     * @return the time of the last tick, in {@code System.nanoTime()} terms
     */
    public long nanoTime() {
        return clock;
    }

    /** @return the tick duration */
    public Duration tickDuration() {
        return Duration.ofNanos(tickNanos);
    }

    /** @return the number of buckets in the wheel */
    public int wheelSize() {
        return wheelSize;
    }

    /**
     * @return the number of timeouts in the wheel at the end of the last tick, i.e. scheduled, neither expired nor
     *     cancelled; those scheduled since the last tick are counted from the next one
     */
    public long pendingCount() {
        return pending;
    }

    /** @return how many tasks expired (ran, or were handed to the executor) since the timer was created */
    public long expiredCount() {
        return expired;
    }

    /** @return how many timeouts were cancelled, by {@link Timeout#cancel()} or by {@link #stop()}, since creation */
    public long cancelledCount() {
        long count = cancelledOnStop.get();
        for (TimeoutStacks stripe : stripes) {
            count += stripe.cancelledCount();
        }
        return count;
    }

    /** @return how many tasks threw, or were rejected by the executor, since the timer was created */
    public long failedCount() {
        return failed.get();
    }

    /** @return how many ticks the ticker has processed since the timer was created */
    public long tickCount() {
        return ticks;
    }

    /** Ticker only: publishes the time read at the start of a tick. */
    void clock(long now) {
        clock = now;
    }

    /** Ticker only: publishes the statistics at the end of a tick (single writer, so read-modify-write is safe). */
    void ticked(long inWheel, long expiredInTick) {
        pending = inWheel;
        if (expiredInTick != 0) {
            expired = expired + expiredInTick;
        }
        ticks = ticks + 1;
    }

    /** Ticker only, last call before its thread ends. */
    void exited(Ticker exited, long cancelledAtExit, Throwable failure) {
        cancelledOnStop.addAndGet(cancelledAtExit);
        pending = 0;
        if (failure != null) {
            LOG.log(
                    System.Logger.Level.ERROR,
                    () -> "the ticker of " + name + " failed: the timer is stopped",
                    failure);
        }
        // Still current only if it broke (stop() clears it first): scheduling already fails, make isRunning() agree.
        // A CAS rather than the lock, because start() may hold the lock while it waits for this thread to end.
        TICKER.compareAndSet(this, exited, (Ticker) null);
    }

    /** Starts the ticker thread; does nothing if it runs. */
    @Override
    public void start() {
        lifeCycleLock.lock();
        try {
            if (ticker != null) {
                return;
            }
            if (lastTicker != null) {
                // A restart: the previous ticker must have finished emptying the shared stacks first.
                Thread previous = lastTicker.thread();
                if (previous == Thread.currentThread()) {
                    throw new IllegalStateException("cannot restart " + name + " from a task on its own ticker");
                }
                if (!awaitExit(previous)) {
                    throw new IllegalStateException("cannot restart " + name + ": its previous ticker " + previous
                            + " has not exited (a task blocks it)");
                }
            }
            for (TimeoutStacks stripe : stripes) {
                stripe.reopen();
            }
            Ticker starting = new Ticker(this, stripes, wheelSize, tickNanos);
            Thread thread = new MarkableThread(null, starting, name, false);
            thread.setDaemon(true);
            starting.bind(thread);
            clock = System.nanoTime();
            lastTicker = starting;
            ticker = starting;
            thread.start();
        } finally {
            lifeCycleLock.unlock();
        }
    }

    /**
     * Stops the timer: cancels every timeout that has not expired (their tasks never run), makes scheduling fail from
     * now on, and waits for the ticker thread to exit, so that no task starts on the ticker after this returns (tasks
     * already handed to the executor may still be running). Does nothing if the timer is stopped.
     */
    @Override
    public void stop() {
        Ticker stopping;
        lifeCycleLock.lock();
        try {
            stopping = ticker;
            if (stopping == null) {
                return;
            }
            ticker = null;
            for (TimeoutStacks stripe : stripes) {
                cancelledOnStop.addAndGet(cancelPending(stripe.terminate()));
            }
            stopping.requestStop();
        } finally {
            lifeCycleLock.unlock();
        }
        Thread thread = stopping.thread();
        if (thread != Thread.currentThread() && !awaitExit(thread)) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    () -> "the ticker " + thread + " of " + name + " did not exit within "
                            + TimeUnit.NANOSECONDS.toSeconds(STOP_WAIT_NANOS) + " s: a non-blocking task blocks it");
        }
    }

    /** @return the thread of the running ticker, or null when stopped: for tests */
    Thread tickerThread() {
        Ticker current = ticker;
        return current == null ? null : current.thread();
    }

    /** Waits, uninterruptibly but bounded, for a ticker thread to end; keeps the caller's interrupt status. */
    private static boolean awaitExit(Thread thread) {
        long deadline = System.nanoTime() + STOP_WAIT_NANOS;
        boolean interrupted = false;
        try {
            while (thread.isAlive()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    thread.join(Duration.ofNanos(left));
                } catch (InterruptedException x) {
                    interrupted = true;
                }
            }
            return true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return ticker != null;
    }

    @Override
    public String toString() {
        return "HashedWheelTimer@" + Integer.toHexString(hashCode()) + "{" + name + ","
                + (isRunning() ? "RUNNING" : "STOPPED") + ",tick=" + tickDuration() + ",wheel=" + wheelSize
                + ",pending=" + pending + ",expired=" + expired + ",cancelled=" + cancelledCount() + ",failed="
                + failed.get()
                + "}";
    }

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        Ticker current = ticker;
        Thread thread = current == null ? null : current.thread();
        out.append(toString()).append('\n');
        out.append(indent)
                .append("+- ticker: ")
                .append(thread == null ? "none" : thread + " " + thread.getState())
                .append(", ticks=")
                .append(Long.toString(ticks))
                .append(", last tick ")
                .append(Long.toString(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - clock)))
                .append(" ms ago\n");
        out.append(indent)
                .append("+- stripes: ")
                .append(Integer.toString(stripes.length))
                .append(" pending/cancelled stacks, by thread id\n");
        out.append(indent)
                .append("+- executor: ")
                .append(String.valueOf(executor))
                .append('\n');
    }

    /**
     * A task handed to the executor: logs and counts what it throws instead of leaving it to the thread's default
     * handler.
     */
    private final class Guarded implements Invocable.Task {
        private final Runnable task;

        Guarded(Runnable task) {
            this.task = task;
        }

        @Override
        public void run() {
            try {
                if (Invocable.invocationTypeOf(task) == InvocationType.NON_BLOCKING) {
                    Invocable.invokeNonBlocking(task);
                } else {
                    task.run();
                }
            } catch (Throwable x) {
                failed(task, x);
            }
        }

        @Override
        public InvocationType invocationType() {
            return Invocable.invocationTypeOf(task);
        }

        @Override
        public String toString() {
            return task.toString();
        }
    }

    /**
     * Configuration of a {@link HashedWheelTimer}. Not thread-safe; the timer it builds does not depend on it
     * afterwards.
     */
    public static final class Builder {
        private Duration tickDuration = Duration.ofMillis(DEFAULT_TICK_MILLIS);
        private int wheelSize = DEFAULT_WHEEL_SIZE;
        private Executor executor;
        private String name;

        private Builder() {}

        /**
         * How often the ticker wakes: the timer's resolution, and the period of its coarse clock. Shorter ticks fire
         * tasks closer to their deadline but wake the ticker more often.
         *
         * @param tickDuration between 1 ms and 1 min; default {@value HashedWheelTimer#DEFAULT_TICK_MILLIS} ms
         * @return this builder
         */
        public Builder tickDuration(Duration tickDuration) {
            Objects.requireNonNull(tickDuration, "tickDuration");
            if (tickDuration.compareTo(Duration.ofMillis(1)) < 0 || tickDuration.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException("tick duration must be between 1 ms and 1 min: " + tickDuration);
            }
            this.tickDuration = tickDuration;
            return this;
        }

        /**
         * The number of buckets. A larger wheel visits fewer long-delay timeouts per tick; one rotation takes
         * {@code wheelSize * tickDuration}.
         *
         * @param wheelSize a power of two between 1 and {@value HashedWheelTimer#MAX_WHEEL_SIZE}; default
         *     {@value HashedWheelTimer#DEFAULT_WHEEL_SIZE}
         * @return this builder
         */
        public Builder wheelSize(int wheelSize) {
            if (wheelSize < 1 || wheelSize > MAX_WHEEL_SIZE || Integer.bitCount(wheelSize) != 1) {
                throw new IllegalArgumentException(
                        "wheel size must be a power of two between 1 and " + MAX_WHEEL_SIZE + ": " + wheelSize);
            }
            this.wheelSize = wheelSize;
            return this;
        }

        /**
         * Where tasks that are not {@link InvocationType#NON_BLOCKING} run; the timer never shuts it down.
         *
         * @param executor the executor; default a new virtual thread per task
         * @return this builder
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * The name of the ticker thread (and the prefix of the default executor's virtual threads).
         *
         * @param name the name; default {@code quarry-timer-N}
         * @return this builder
         */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** @return a new, stopped timer */
        public HashedWheelTimer build() {
            return new HashedWheelTimer(this);
        }
    }
}
