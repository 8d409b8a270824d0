package dev.quarry.core.pool;

/**
 * The optional thread-local cache of a {@link Pool}: per thread, the positions of the last few entries it acquired by
 * iterating, so that its next acquire tries them first. In the ideal case (about as many entries as threads) each
 * thread keeps getting "its" entry back and touches no other entry's cache line, instead of contending with every other
 * thread on the first entries.
 *
 * <p>On a miss, a multiplexed pool looks for an idle entry before a shared one: otherwise every thread of a FIRST pool
 * would cache the first entry, still contend on its state word, and gain nothing.
 *
 * <p>The cache is filled when an acquire falls back to iterating, as the pooling article describes (the thread stores
 * the connection it acquired), not when an entry is released: that costs one thread-local lookup per acquire and none
 * per release, and it also serves a thread that hands its entry to another thread to release.
 *
 * <p>It remembers <em>positions</em> in the pool's entry array, not entries: a thread-local value that referenced an
 * entry would keep the entry, its pooled object and (through the entry) the pool reachable for as long as the thread
 * lives, even after the pool is closed and dropped. A position is only a hint: after entries are added or removed it
 * may name another entry, or none, which costs one failed try and nothing else.
 *
 * <p>Each slot is confined to its thread: no synchronisation. One {@link Slot} is allocated per thread on its first
 * acquire; acquires allocate nothing afterwards. A hit costs one thread-local lookup; a miss also updates the slot,
 * O(size).
 */
final class ThreadCache {
    private final int size;
    private final ThreadLocal<Slot> slots;

    /** @param size how many positions each thread remembers, at least 1 */
    ThreadCache(int size) {
        this.size = size;
        this.slots = ThreadLocal.withInitial(() -> new Slot(size));
    }

    int size() {
        return size;
    }

    /** @return the calling thread's slot */
    Slot slot() {
        return slots.get();
    }

    @Override
    public String toString() {
        return "ThreadCache[size=" + size + "]";
    }

    /** The positions one thread remembers, most recent first. Confined to its thread. */
    static final class Slot {
        /** {@code positions[0, count)}, most recent first. */
        final int[] positions;

        int count;

        Slot(int size) {
            this.positions = new int[size];
        }

        /** Remembers {@code position} as the most recent, forgetting the oldest if the slot is full. */
        void remember(int position) {
            int[] positions = this.positions;
            // Shift right up to the old place of this position, or over the whole slot, dropping the oldest.
            int end = 0;
            while (end < count && positions[end] != position) {
                end++;
            }
            if (end == count && count < positions.length) {
                count++;
            }
            for (int k = Math.min(end, positions.length - 1); k > 0; k--) {
                positions[k] = positions[k - 1];
            }
            positions[0] = position;
        }

        @Override
        public String toString() {
            StringBuilder builder = new StringBuilder("Slot[");
            for (int k = 0; k < count; k++) {
                builder.append(k == 0 ? "" : ",").append(positions[k]);
            }
            return builder.append(']').toString();
        }
    }
}
