package dev.quarry.bench.pool;

import java.util.ArrayDeque;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The baseline that "Object Pooling, Benchmarks, and Another Way" (Jetty blog) starts from: the available entries in
 * an {@link ArrayDeque} behind one
 * {@link ReentrantLock}, as in the Jetty 9 connection pools. Duplex and multiplex use the deque as a stack (the most
 * recently released entry is reused first, like {@code PoolStrategy.FIRST} maximising reuse); round-robin uses it as a
 * queue (take from the head, put back at the tail). Multiplexing counts holders per entry: an entry stays in the deque
 * while it has room for another holder, and a release puts it back when it regains room.
 *
 * <p>Thread-safe: every operation holds the lock, O(1), allocation-free (the deque never grows past its entries).
 */
final class LockedDequePool {
    /** A pooled object with its holder count, guarded by the pool's lock. */
    static final class Item {
        final Object pooled;
        int holders;

        Item(Object pooled) {
            this.pooled = pooled;
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Item> available;
    private final int maxMultiplex;
    private final boolean roundRobin;

    LockedDequePool(int entries, int maxMultiplex, boolean roundRobin) {
        this.available = new ArrayDeque<>(entries);
        this.maxMultiplex = maxMultiplex;
        this.roundRobin = roundRobin;
        for (int i = 0; i < entries; i++) {
            available.addLast(new Item(new Object()));
        }
    }

    /** @return an item with room for the caller, now counted as a holder, or null if none has room */
    Item acquire() {
        lock.lock();
        try {
            Item item = available.peekFirst();
            if (item == null) {
                return null;
            }
            if (++item.holders == maxMultiplex) {
                available.pollFirst();
            } else if (roundRobin) {
                // Rotate, so that the next acquire starts at the next entry even when this one still has room.
                available.addLast(available.pollFirst());
            }
            return item;
        } finally {
            lock.unlock();
        }
    }

    /** Ends one hold of {@code item}. */
    void release(Item item) {
        lock.lock();
        try {
            if (item.holders-- == maxMultiplex) {
                if (roundRobin) {
                    available.addLast(item);
                } else {
                    available.addFirst(item);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        lock.lock();
        try {
            return "LockedDequePool{available=" + available.size() + ",maxMultiplex=" + maxMultiplex + ",roundRobin="
                    + roundRobin + "}";
        } finally {
            lock.unlock();
        }
    }
}
