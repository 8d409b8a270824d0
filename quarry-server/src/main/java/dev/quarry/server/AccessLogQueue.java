package dev.quarry.server;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The access log's queue: a bounded, lock-free, multi-producer single-consumer ring of entries. Producers are the
 * threads that complete exchanges (selectors among them), so {@link #offer} never waits: it fails when the ring is
 * full. The one consumer is the access log's writer thread.
 *
 * <p>A producer claims a sequence number with one CAS on the producer index, then publishes its entry into the slot
 * with a release store. The consumer takes the slot at its index with an acquire load, clears it and moves its index
 * on with a release store: a producer that sees the moved index also sees the cleared slot. Between a producer's claim
 * and its store the slot is briefly empty although the index says otherwise; the consumer, which may wait, spins on
 * that slot only.
 *
 * <p>Producers compare their index with a cached limit (consumer index + capacity) and read the consumer's index only
 * when they reach it, so that the consumer's line is not pulled on every offer; the fields of the two sides are padded
 * apart.
 *
 * <p>Thread-safety: {@link #offer} from any thread; {@link #poll} from one thread at a time. Cost: offer O(1), one CAS,
 * allocation-free.
 */
final class AccessLogQueue {
    private static final VarHandle PRODUCER_INDEX;
    private static final VarHandle PRODUCER_LIMIT;
    private static final VarHandle CONSUMER_INDEX;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(AccessLogEntry[].class);

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            PRODUCER_INDEX = lookup.findVarHandle(AccessLogQueue.class, "producerIndex", long.class);
            PRODUCER_LIMIT = lookup.findVarHandle(AccessLogQueue.class, "producerLimit", long.class);
            CONSUMER_INDEX = lookup.findVarHandle(AccessLogQueue.class, "consumerIndex", long.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final AccessLogEntry[] slots;
    private final int mask;
    private final int capacity;

    @SuppressWarnings("unused") // through PRODUCER_INDEX
    private volatile long producerIndex;

    @SuppressWarnings("unused") // through PRODUCER_LIMIT
    private volatile long producerLimit;

    @SuppressWarnings("unused")
    private long p0, p1, p2, p3, p4, p5, p6, p7;

    @SuppressWarnings("unused") // through CONSUMER_INDEX
    private volatile long consumerIndex;

    /** @param capacity the most entries queued at once, rounded up to a power of two */
    AccessLogQueue(int capacity) {
        if (capacity < 1 || capacity > 1 << 30) {
            throw new IllegalArgumentException("queue capacity must be 1 to 2^30, was " + capacity);
        }
        int size = Integer.highestOneBit(capacity);
        if (size < capacity) {
            size <<= 1;
        }
        this.slots = new AccessLogEntry[size];
        this.mask = size - 1;
        this.capacity = size;
        this.producerLimit = size;
    }

    /** @return the capacity (a power of two) */
    int capacity() {
        return capacity;
    }

    /**
     * Appends an entry unless the queue is full; never waits.
     *
     * @param entry the entry
     * @return whether it was queued
     */
    boolean offer(AccessLogEntry entry) {
        long limit = (long) PRODUCER_LIMIT.getVolatile(this);
        long index;
        do {
            index = (long) PRODUCER_INDEX.getVolatile(this);
            if (index >= limit) {
                limit = (long) CONSUMER_INDEX.getVolatile(this) + capacity;
                if (index >= limit) {
                    return false;
                }
                PRODUCER_LIMIT.setVolatile(this, limit);
            }
        } while (!PRODUCER_INDEX.compareAndSet(this, index, index + 1));
        SLOT.setRelease(slots, (int) (index & mask), entry);
        return true;
    }

    /**
     * Takes the oldest entry; by the single consumer only.
     *
     * @return the entry, or null if the queue is empty
     */
    AccessLogEntry poll() {
        long index = (long) CONSUMER_INDEX.getOpaque(this);
        int slot = (int) (index & mask);
        AccessLogEntry entry = (AccessLogEntry) SLOT.getAcquire(slots, slot);
        if (entry == null) {
            if (index == (long) PRODUCER_INDEX.getVolatile(this)) {
                return null;
            }
            // Claimed but not yet stored: the producer is between its CAS and its store.
            do {
                Thread.onSpinWait();
                entry = (AccessLogEntry) SLOT.getAcquire(slots, slot);
            } while (entry == null);
        }
        SLOT.setOpaque(slots, slot, null);
        CONSUMER_INDEX.setRelease(this, index + 1);
        return entry;
    }

    /** @return whether no entry is queued or being queued (exact for the consumer, a snapshot for others) */
    boolean isEmpty() {
        return (long) CONSUMER_INDEX.getVolatile(this) == (long) PRODUCER_INDEX.getVolatile(this);
    }

    /** @return the entries queued or being queued, a snapshot */
    int size() {
        long consumer = (long) CONSUMER_INDEX.getVolatile(this);
        return (int) Math.max(0, (long) PRODUCER_INDEX.getVolatile(this) - consumer);
    }
}
