package dev.quarry.core.timer;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for conditions with a deadline instead of sleeping. */
final class Await {
    /** Generous: the machine running the tests is small and shared. */
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(500);

    private Await() {}

    /** Polls {@code condition} until it holds; fails with {@code description} after {@link #TIMEOUT}. */
    static void until(BooleanSupplier condition, Supplier<String> description) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("condition not met within " + TIMEOUT + ": " + description.get());
            }
            // Poll gently: on a 2-core machine a spinning test would steal the CPU the ticker needs.
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /** Waits for a latch; fails after {@link #TIMEOUT}. */
    static void latch(CountDownLatch latch, String what) throws InterruptedException {
        if (!latch.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            fail(what + " did not happen within " + TIMEOUT + " (count " + latch.getCount() + ")");
        }
    }

    /** Waits until the timer has processed at least {@code ticks} more ticks than now. */
    static void ticks(HashedWheelTimer timer, int ticks) {
        long target = timer.tickCount() + ticks;
        until(() -> timer.tickCount() >= target, () -> ticks + " ticks of " + timer);
    }
}
