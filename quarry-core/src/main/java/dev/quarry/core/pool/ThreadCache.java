package dev.quarry.core.pool;

/**
 * The optional thread-local cache of a {@link Pool}: per thread, the positions of the last few entries it released, so
 * that its next acquire tries them before iterating. In the ideal case (as many entries as threads) each thread keeps
 * getting "its" entry back, touching no other entry's cache line.
 *
 * <p>It remembers <em>positions</em> in the pool's entry array, not entries: a thread-local value that referenced an
 * entry would keep the entry, its pooled object and (through the entry) the pool reachable for as long as the thread
 * lives, even after the pool is closed and dropped. A position is only a hint: after entries are added or removed it
 * may name another entry, or none, which costs one failed try and nothing else.
 *
 * <p>Each slot is confined to its thread: no synchronisation. One {@link Slot} is allocated per thread on its first use;
 * acquire and release allocate nothing afterwards.
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
        private final int[] positions;
        private int count;
        private int next;

        Slot(int size) {
            this.positions = new int[size];
        }

        /** @return how many positions are remembered */
        int count() {
            return count;
        }

        /** @return the {@code k}-th most recently remembered position, {@code 0 <= k < count()} */
        int position(int k) {
            int index = next - 1 - k;
            return positions[index < 0 ? index + positions.length : index];
        }

        /** Remembers {@code position} unless it is already remembered. */
        void remember(int position) {
            for (int k = 0; k < count; k++) {
                if (positions[k] == position) {
                    return;
                }
            }
            positions[next] = position;
            if (++next == positions.length) {
                next = 0;
            }
            if (count < positions.length) {
                count++;
            }
        }

        @Override
        public String toString() {
            StringBuilder builder = new StringBuilder("Slot[");
            for (int k = 0; k < count; k++) {
                builder.append(k == 0 ? "" : ",").append(position(k));
            }
            return builder.append(']').toString();
        }
    }
}
