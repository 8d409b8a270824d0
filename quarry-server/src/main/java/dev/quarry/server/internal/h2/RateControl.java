package dev.quarry.server.internal.h2;

/**
 * Counts events in one-second windows and says when a limit is exceeded: the defence against floods of cheap frames
 * and rapid resets. Confined to the connection's producing thread (no synchronisation); allocation-free.
 */
final class RateControl {
    private static final long WINDOW_NANOS = 1_000_000_000L;

    private final int maxPerSecond;
    private long windowStart = System.nanoTime();
    private int count;

    /** @param maxPerSecond events allowed per second; 0 or less means no limit */
    RateControl(int maxPerSecond) {
        this.maxPerSecond = maxPerSecond;
    }

    /**
     * Counts one event.
     *
     * @return false if this event exceeds the limit
     */
    boolean onEvent() {
        if (maxPerSecond <= 0) {
            return true;
        }
        long now = System.nanoTime();
        if (now - windowStart >= WINDOW_NANOS) {
            windowStart = now;
            count = 0;
        }
        return ++count <= maxPerSecond;
    }

    int limit() {
        return maxPerSecond;
    }
}
