package dev.quarry.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PoolCacheTest {

    /** Acquires entries 0..2 (FIRST strategy), then releases them in the given order. */
    private static void acquireThreeAndRelease(Pool<Pooled> pool, int... releaseOrder) {
        List<Pool.Entry<Pooled>> held = Pools.acquire(pool, 3);
        for (int id : releaseOrder) {
            assertTrue(held.get(id).release());
        }
    }

    @Test
    void aThreadGetsTheEntryItLastReleasedBeforeIteration() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(3).cacheSize(1), 3);
        acquireThreeAndRelease(pool, 0, 1, 2);

        Pool.Entry<Pooled> entry = pool.acquire();

        assertEquals(2, entry.pooled().id, "the cache, not FIRST's iteration, picked the entry");
        assertEquals(1, pool.cacheSize());
    }

    @Test
    void withoutTheCacheTheSameSequenceGetsTheFirstEntry() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(3), 3);
        acquireThreeAndRelease(pool, 0, 1, 2);

        assertEquals(0, pool.acquire().pooled().id);
        assertEquals(0, pool.cacheSize());
    }

    @Test
    void aBusyCachedEntryFallsBackToIteration() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(3).cacheSize(1), 3);
        acquireThreeAndRelease(pool, 0, 1, 2);
        Pool.Entry<Pooled> cached = pool.acquire(); // entry 2, from the cache

        Pool.Entry<Pooled> next = pool.acquire();

        assertEquals(2, cached.pooled().id);
        assertEquals(0, next.pooled().id);
    }

    @Test
    void aLargerCacheTriesTheMostRecentlyReleasedEntriesFirst() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(4).cacheSize(2), 4);
        Pools.acquire(pool, 1); // entry 0 stays busy
        List<Pool.Entry<Pooled>> held = Pools.acquire(pool, 3);
        held.get(0).release(); // entry 1
        held.get(2).release(); // entry 3
        held.get(1).release(); // entry 2: the cache keeps 2 and 3, entry 1 fell out

        assertEquals(List.of(2, 3, 1), Pools.ids(Pools.acquire(pool, 3)));
    }

    @Test
    void theCacheBelongsToTheThreadThatReleased() throws Exception {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(3).cacheSize(1), 3);
        acquireThreeAndRelease(pool, 0, 1, 2);

        CompletableFuture<Integer> other = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            Pool.Entry<Pooled> entry = pool.acquire();
            other.complete(entry.pooled().id);
            entry.release();
        });
        thread.start();

        assertEquals(0, other.get(10, TimeUnit.SECONDS), "another thread has nothing cached: FIRST");
        assertEquals(2, pool.acquire().pooled().id);
    }

    @Test
    void aRemovedCachedEntryIsSkipped() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(3).cacheSize(1), 3);
        acquireThreeAndRelease(pool, 0, 1, 2);
        Pool.Entry<Pooled> cached = pool.entries().get(2);
        assertTrue(cached.removeIfIdle());

        Pool.Entry<Pooled> entry = pool.acquire();

        assertEquals(0, entry.pooled().id);
        assertEquals(2, pool.size());
    }

    @Test
    void aCachedPositionThatShiftedStillYieldsAnIdleEntry() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(3).cacheSize(1), 3);
        acquireThreeAndRelease(pool, 0, 2, 1); // cache: position 1
        assertTrue(pool.entries().get(0).removeIfIdle()); // entry 2 moves to position 1

        Pool.Entry<Pooled> entry = pool.acquire();

        assertSame(pool.entries().get(1), entry);
        assertEquals(2, entry.pooled().id);
    }
}
