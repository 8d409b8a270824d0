package dev.quarry.core.pool;

import java.util.ArrayList;
import java.util.List;

/** Test helpers that build pools already holding enabled, idle entries. */
final class Pools {
    private Pools() {}

    /** Reserves and enables {@code count} idle entries holding {@code Pooled#0..count-1}. */
    static Pool<Pooled> fill(Pool<Pooled> pool, int count) {
        for (int i = 0; i < count; i++) {
            Pool.Entry<Pooled> entry = pool.reserve();
            if (entry == null || !entry.enable(new Pooled(i), false)) {
                throw new AssertionError("could not add entry " + i + " to " + pool);
            }
        }
        return pool;
    }

    /** A pool of {@code entries} idle entries with the builder's other settings. */
    static Pool<Pooled> filled(PoolBuilder<Pooled> builder, int entries) {
        return fill(builder.build(), entries);
    }

    /** Acquires {@code count} entries, failing if any acquire returns null. */
    static List<Pool.Entry<Pooled>> acquire(Pool<Pooled> pool, int count) {
        List<Pool.Entry<Pooled>> acquired = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Pool.Entry<Pooled> entry = pool.acquire();
            if (entry == null) {
                throw new AssertionError("acquire " + i + " returned null: " + pool);
            }
            acquired.add(entry);
        }
        return acquired;
    }

    /** @return the ids of the entries' objects, in order */
    static List<Integer> ids(List<Pool.Entry<Pooled>> entries) {
        return entries.stream().map(entry -> entry.pooled().id).toList();
    }
}
