package dev.quarry.core.throttle;

/**
 * A monotonic clock in nanoseconds with the semantics of {@link System#nanoTime()}: only differences between two
 * readings mean anything, and they are compared by subtraction so that the values may wrap around.
 *
 * <p>It exists so that tests can drive a {@link TokenBucket} with simulated time; production code uses
 * {@link #SYSTEM}.
 *
 * <p>Thread-safety: implementations must be safe to read from any thread and never go backwards.
 */
@FunctionalInterface
public interface NanoClock {

    /** {@link System#nanoTime()}. */
    NanoClock SYSTEM = System::nanoTime;

    /** @return the current time in nanoseconds, from an arbitrary origin */
    long nanoTime();
}
