package dev.quarry.core.throttle;

import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when a test says so; thread-safe. */
final class SimulatedClock implements NanoClock {
    private final AtomicLong now;

    SimulatedClock() {
        this(123_456_789L);
    }

    SimulatedClock(long start) {
        this.now = new AtomicLong(start);
    }

    @Override
    public long nanoTime() {
        return now.get();
    }

    void advance(long nanos) {
        now.addAndGet(nanos);
    }

    void advanceSeconds(double seconds) {
        advance((long) (seconds * 1e9));
    }

    @Override
    public String toString() {
        return "SimulatedClock{" + now.get() + "}";
    }
}
