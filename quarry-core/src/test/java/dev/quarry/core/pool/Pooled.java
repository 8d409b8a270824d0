package dev.quarry.core.pool;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A pooled test object that counts its holders, uses and closes, so that tests can check the pool's invariants from the
 * outside: holders are counted right after an acquire and uncounted right before a release.
 */
final class Pooled implements AutoCloseable {
    final int id;
    final AtomicInteger holders = new AtomicInteger();
    final AtomicInteger maxHolders = new AtomicInteger();
    final AtomicInteger uses = new AtomicInteger();
    final AtomicInteger closes = new AtomicInteger();
    /** Closes that happened while a holder still counted itself: must stay 0. */
    final AtomicInteger closedWhileHeld = new AtomicInteger();

    Pooled(int id) {
        this.id = id;
    }

    /** Counts a new holder and its use; returns the holder count including it. */
    int hold() {
        uses.incrementAndGet();
        int now = holders.incrementAndGet();
        maxHolders.accumulateAndGet(now, Math::max);
        return now;
    }

    void unhold() {
        holders.decrementAndGet();
    }

    @Override
    public void close() {
        if (holders.get() != 0) {
            closedWhileHeld.incrementAndGet();
        }
        closes.incrementAndGet();
    }

    @Override
    public String toString() {
        return "Pooled#" + id;
    }
}
