package dev.quarry.bench.timer;

import dev.quarry.core.timer.HashedWheelTimer;
import dev.quarry.core.timer.IdleTimeout;
import io.netty.util.TimerTask;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * The idle-timeout pattern of a server: schedule a task with a 30 s delay, then cancel it, once per operation, on
 * Quarry's {@link HashedWheelTimer}, on a one-thread {@link ScheduledThreadPoolExecutor} with
 * {@code setRemoveOnCancelPolicy(true)} (without it, a server leaks every cancelled task for 30 s), and on Netty's
 * {@link io.netty.util.HashedWheelTimer} with the same tick and wheel size as ours. Two threads is the measured case
 * (scheduling threads contend); one thread is for information.
 *
 * <p>After every iteration each timer must give back what was cancelled: the tear-down waits a few seconds for its
 * backlog to drain and fails the run if it does not, so that a timer cannot look fast by leaking.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ScheduleCancelBenchmark {
    private static final long DELAY_SECONDS = 30;
    private static final int TICK_MILLIS = 10;
    private static final int WHEEL_SIZE = 512;
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(20);
    private static final Runnable TASK = () -> {};
    private static final TimerTask NETTY_TASK = timeout -> {};

    /** Waits until a timer's backlog drained; throws if it does not, which fails the JMH run. */
    static void assertDrained(String timer, LongSupplier backlog) {
        long atEnd = backlog.getAsLong();
        long deadline = System.nanoTime() + DRAIN_NANOS;
        while (backlog.getAsLong() != 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(timer + " leaks: " + backlog.getAsLong() + " cancelled timeouts still"
                        + " held " + TimeUnit.NANOSECONDS.toSeconds(DRAIN_NANOS) + " s after the iteration ("
                        + atEnd + " at its end)");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        if (atEnd > 100_000) {
            System.out.println("(" + timer + " backlog at the end of the iteration: " + atEnd + ", drained since)");
        }
    }

    @State(Scope.Benchmark)
    public static class Quarry {
        HashedWheelTimer timer;

        @Setup(Level.Trial)
        public void start() {
            timer = HashedWheelTimer.builder()
                    .tickDuration(Duration.ofMillis(TICK_MILLIS))
                    .wheelSize(WHEEL_SIZE)
                    .build();
            timer.start();
        }

        @TearDown(Level.Iteration)
        public void drained() {
            // pendingCount() counts the wheel only: wait two ticks so that whatever the stack held was moved or
            // dropped.
            long ticks = timer.tickCount() + 2;
            while (timer.tickCount() < ticks) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            assertDrained("Quarry HashedWheelTimer", timer::pendingCount);
        }

        @TearDown(Level.Trial)
        public void stop() {
            timer.stop();
        }
    }

    @State(Scope.Benchmark)
    public static class Stpe {
        ScheduledThreadPoolExecutor executor;

        @Setup(Level.Trial)
        public void start() {
            executor = new ScheduledThreadPoolExecutor(1);
            executor.setRemoveOnCancelPolicy(true);
        }

        @TearDown(Level.Iteration)
        public void drained() {
            assertDrained(
                    "ScheduledThreadPoolExecutor", () -> executor.getQueue().size());
        }

        @TearDown(Level.Trial)
        public void stop() {
            executor.shutdownNow();
        }
    }

    @State(Scope.Benchmark)
    public static class Netty {
        io.netty.util.HashedWheelTimer timer;

        @Setup(Level.Trial)
        public void start() {
            timer = new io.netty.util.HashedWheelTimer(
                    new DefaultThreadFactory("netty-timer", true),
                    TICK_MILLIS,
                    TimeUnit.MILLISECONDS,
                    WHEEL_SIZE,
                    false, // no leak detection: it samples instances, not timeouts, and would only add noise
                    -1); // no limit on pending timeouts: a limit would throw, not apply back pressure
            timer.start();
        }

        @TearDown(Level.Iteration)
        public void drained() {
            assertDrained("Netty HashedWheelTimer", timer::pendingTimeouts);
        }

        @TearDown(Level.Trial)
        public void stop() {
            timer.stop();
        }
    }

    /** The timer of the idle timeouts: its wheel holds their checks, so it has no backlog to drain. */
    @State(Scope.Benchmark)
    public static class IdleTimer {
        HashedWheelTimer timer;

        @Setup(Level.Trial)
        public void start() {
            timer = HashedWheelTimer.builder()
                    .tickDuration(Duration.ofMillis(TICK_MILLIS))
                    .wheelSize(WHEEL_SIZE)
                    .build();
            timer.start();
        }

        @TearDown(Level.Trial)
        public void stop() {
            timer.stop();
        }
    }

    /** One idle timeout per benchmark thread, as each connection has its own. */
    @State(Scope.Thread)
    public static class Idle {
        IdleTimeout idle;

        @Setup(Level.Trial)
        public void start(IdleTimer timer) {
            idle = IdleTimeout.of(timer.timer, Duration.ofSeconds(DELAY_SECONDS), TASK);
            idle.start();
        }

        @TearDown(Level.Trial)
        public void stop() {
            idle.stop();
        }
    }

    @Benchmark
    @Threads(2)
    public boolean quarry(Quarry state) {
        return state.timer.schedule(TASK, DELAY_SECONDS, TimeUnit.SECONDS).cancel();
    }

    @Benchmark
    @Threads(2)
    public boolean stpe(Stpe state) {
        ScheduledFuture<?> future = state.executor.schedule(TASK, DELAY_SECONDS, TimeUnit.SECONDS);
        return future.cancel(false);
    }

    @Benchmark
    @Threads(2)
    public boolean netty(Netty state) {
        return state.timer
                .newTimeout(NETTY_TASK, DELAY_SECONDS, TimeUnit.SECONDS)
                .cancel();
    }

    @Benchmark
    @Threads(1)
    public boolean quarrySingle(Quarry state) {
        return state.timer.schedule(TASK, DELAY_SECONDS, TimeUnit.SECONDS).cancel();
    }

    @Benchmark
    @Threads(1)
    public boolean stpeSingle(Stpe state) {
        ScheduledFuture<?> future = state.executor.schedule(TASK, DELAY_SECONDS, TimeUnit.SECONDS);
        return future.cancel(false);
    }

    @Benchmark
    @Threads(1)
    public boolean nettySingle(Netty state) {
        return state.timer
                .newTimeout(NETTY_TASK, DELAY_SECONDS, TimeUnit.SECONDS)
                .cancel();
    }

    /**
     * What the idle-timeout pattern costs with {@link IdleTimeout} instead: activity only writes a timestamp, so this
     * is the price of one read, compared with a schedule and a cancel per activity above. For information.
     */
    @Benchmark
    @Threads(2)
    public void quarryNotIdle(Idle state) {
        state.idle.notIdle();
    }
}
