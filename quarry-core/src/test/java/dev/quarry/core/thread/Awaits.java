package dev.quarry.core.thread;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition by polling it against a deadline: tests never sleep to wait for something. */
final class Awaits {
    static final Duration TIMEOUT = Duration.ofSeconds(20);

    private Awaits() {}

    /**
     * Polls {@code condition} until it holds, failing the test after {@link #TIMEOUT}.
     *
     * @param what what is awaited, for the failure message
     * @param condition the condition
     * @param state describes the state when the wait fails
     */
    static void until(String what, BooleanSupplier condition, Supplier<?> state) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + TIMEOUT + " awaiting " + what + "; state: " + state.get());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    static void until(String what, BooleanSupplier condition) {
        until(what, condition, () -> "n/a");
    }
}
