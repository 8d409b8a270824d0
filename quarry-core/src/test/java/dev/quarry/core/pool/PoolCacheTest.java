package dev.quarry.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PoolCacheTest {

    /** Acquires entries 0..2 by iteration (FIRST strategy), so that the last one acquired is entry 2; releases all. */
    private static void acquireThreeAndReleaseAll(Pool<Pooled> pool) {
        for (Pool.Entry<Pooled> entry : Pools.acquire(pool, 3)) {
            assertTrue(entry.release());
        }
    }

    @Test
    void aThreadGetsTheEntryItLastAcquiredBeforeIterating() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(3).cacheSize(1), 3);
        acquireThreeAndReleaseAll(pool);

        Pool.Entry<Pooled> entry = pool.acquire();

        assertEquals(2, entry.pooled().id, "the cache, not FIRST's iteration, picked the entry");
        assertEquals(1, pool.cacheSize());
    }

    @Test
    void withoutTheCacheTheSameSequenceGetsTheFirstEntry() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(3), 3);
        acquireThreeAndReleaseAll(pool);

        assertEquals(0, pool.acquire().pooled().id);
        assertEquals(0, pool.cacheSize());
    }

    @Test
    void aCacheHitKeepsServingTheSameEntry() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(3).cacheSize(1), 3);
        acquireThreeAndReleaseAll(pool);

        for (int i = 0; i < 10; i++) {
            Pool.Entry<Pooled> entry = pool.acquire();
            assertEquals(2, entry.pooled().id);
            entry.release();
        }
    }

    @Test
    void aBusyCachedEntryFallsBackToIterationAndIsReplacedInTheCache() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(3).cacheSize(1), 3);
        acquireThreeAndReleaseAll(pool);
        Pool.Entry<Pooled> cached = pool.acquire(); // entry 2, from the cache

        Pool.Entry<Pooled> next = pool.acquire(); // entry 2 is busy: iteration finds entry 0
        cached.release();
        next.release();

        assertEquals(2, cached.pooled().id);
        assertEquals(0, next.pooled().id);
        assertEquals(0, pool.acquire().pooled().id, "the cache now remembers entry 0");
    }

    @Test
    void aLargerCacheTriesTheMostRecentlyAcquiredEntriesFirst() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(4).cacheSize(2), 4);
        List<Pool.Entry<Pooled>> all = Pools.acquire(pool, 4); // the cache keeps 3 and 2; 1 and 0 fell out
        all.forEach(Pool.Entry::release);

        assertEquals(List.of(3, 2, 0), Pools.ids(Pools.acquire(pool, 3)));
    }

    @Test
    void theCacheBelongsToTheThreadThatAcquired() throws Exception {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(3).cacheSize(1), 3);
        acquireThreeAndReleaseAll(pool);

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
        acquireThreeAndReleaseAll(pool);
        Pool.Entry<Pooled> cached = pool.entries().get(2);
        assertTrue(cached.removeIfIdle());

        Pool.Entry<Pooled> entry = pool.acquire();

        assertEquals(0, entry.pooled().id);
        assertEquals(2, pool.size());
    }

    @Test
    void aCachedPositionThatShiftedStillYieldsAnIdleEntry() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(3).cacheSize(1), 3);
        List<Pool.Entry<Pooled>> held = Pools.acquire(pool, 2); // cache: position 1
        held.forEach(Pool.Entry::release);
        assertTrue(pool.entries().get(0).removeIfIdle()); // entry 2 moves to position 1

        Pool.Entry<Pooled> entry = pool.acquire();

        assertSame(pool.entries().get(1), entry);
        assertEquals(2, entry.pooled().id);
    }

    /** Acquires from a new thread and returns the id of what it got, leaving the entry held. */
    private static int acquireOnAnotherThread(Pool<Pooled> pool) throws Exception {
        CompletableFuture<Integer> id = new CompletableFuture<>();
        Thread thread = new Thread(() -> id.complete(pool.acquire().pooled().id));
        thread.start();
        return id.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aCacheMissInAMultiplexedPoolPrefersAnIdleEntryToASharedOne() throws Exception {
        Pool<Pooled> cached =
                Pools.filled(Pool.<Pooled>builder(3).maxMultiplex(3).cacheSize(1), 3);
        Pool<Pooled> uncached = Pools.filled(Pool.<Pooled>builder(3).maxMultiplex(3), 3);
        cached.acquire();
        uncached.acquire();

        assertEquals(1, acquireOnAnotherThread(cached), "with the cache: an entry of its own");
        assertEquals(0, acquireOnAnotherThread(uncached), "without: FIRST fills entry 0 first");
    }

    @Test
    void aCacheMissInAMultiplexedPoolSharesAnEntryWhenNoneIsIdle() throws Exception {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(2).maxMultiplex(2).cacheSize(1), 2);
        assertEquals(0, acquireOnAnotherThread(pool));
        assertEquals(1, acquireOnAnotherThread(pool));

        assertEquals(0, acquireOnAnotherThread(pool));
        assertEquals(2, pool.entries().get(0).multiplexCount());
    }

    @Test
    void slotKeepsTheMostRecentPositionsFirstWithoutDuplicates() {
        ThreadCache.Slot slot = new ThreadCache.Slot(3);
        slot.remember(4);
        slot.remember(7);
        slot.remember(4);
        assertEquals("Slot[4,7]", slot.toString());
        slot.remember(1);
        slot.remember(9);
        assertEquals("Slot[9,1,4]", slot.toString());
    }
}
