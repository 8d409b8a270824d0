package dev.quarry.server.handlers;

import dev.quarry.core.throttle.NanoClock;
import dev.quarry.core.throttle.TokenBucket;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The state of one client address: its token bucket (shared by its concurrent requests, so that opening more
 * connections does not buy more bandwidth) and the count of its requests in flight.
 *
 * <p>The count doubles as the entry's life: {@code -1} means evicted. Eviction moves it from 0 to -1 by CAS, and an
 * admission moves it from n >= 0 to n + 1 by CAS, so a request can never join an entry that is being removed from the
 * map: it sees -1, removes the dead entry itself and creates a fresh one.
 *
 * <p>Thread-safety: any thread. Cost: O(1), lock-free.
 */
final class ClientThrottle {
    static final int ACQUIRED = 0;
    static final int FULL = 1;
    static final int EVICTED = 2;

    private final Object key;
    private final TokenBucket bucket;
    private final NanoClock clock;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicReference<ThrottleLimits> applied;
    private volatile long lastUsed;

    ClientThrottle(Object key, ThrottleLimits limits, NanoClock clock) {
        this.key = key;
        this.clock = clock;
        this.bucket = TokenBucket.builder()
                .rate(ThrottleLimits.bucketRate(limits.clientRate()))
                .capacity(limits.clientCapacity())
                .clock(clock)
                .build();
        this.applied = new AtomicReference<>(limits);
        this.lastUsed = clock.nanoTime();
    }

    Object key() {
        return key;
    }

    TokenBucket bucket() {
        return bucket;
    }

    /**
     * Admits one more request of this client unless it has {@code max} in flight.
     *
     * @param max the cap, 0 for none
     * @return {@link #ACQUIRED}, {@link #FULL} or {@link #EVICTED}
     */
    int tryAcquire(int max) {
        while (true) {
            int current = inFlight.get();
            if (current < 0) {
                return EVICTED;
            }
            if (max > 0 && current >= max) {
                return FULL;
            }
            if (inFlight.compareAndSet(current, current + 1)) {
                lastUsed = clock.nanoTime();
                return ACQUIRED;
            }
        }
    }

    /** One of this client's requests ended. */
    void release() {
        lastUsed = clock.nanoTime();
        inFlight.decrementAndGet();
    }

    /** @return this client's requests in flight; -1 once evicted */
    int inFlight() {
        return inFlight.get();
    }

    /**
     * Marks the entry evicted if nothing uses it, it was unused for {@code idleNanos}, and its bucket is full again
     * (so that a client that comes back gets exactly what it would have had: eviction changes no allowance).
     *
     * @return whether it was evicted; the caller then removes it from the map
     */
    boolean tryEvict(long now, long idleNanos) {
        return inFlight.get() == 0
                && now - lastUsed >= idleNanos
                && bucket.available() >= bucket.capacity()
                && inFlight.compareAndSet(0, -1);
    }

    /** Applies new limits to the bucket, once per limits object, whichever request of this client notices first. */
    void refresh(ThrottleLimits limits) {
        ThrottleLimits current = applied.get();
        if (current != limits && applied.compareAndSet(current, limits)) {
            if (current.clientRate() != limits.clientRate() || current.clientCapacity() != limits.clientCapacity()) {
                bucket.reconfigure(ThrottleLimits.bucketRate(limits.clientRate()), limits.clientCapacity());
            }
        }
    }

    @Override
    public String toString() {
        long idle = (clock.nanoTime() - lastUsed) / 1_000_000;
        return "Client{" + key + ", inFlight=" + inFlight.get() + ", idle=" + idle + "ms, " + bucket + "}";
    }
}
