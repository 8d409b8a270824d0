package dev.quarry.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PoolStrategyTest {
    private static final int ENTRIES = 5;

    @ParameterizedTest
    @EnumSource(PoolStrategy.class)
    void everyStrategyHandsOutEveryEntryBeforeReturningNull(PoolStrategy strategy) {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(ENTRIES).strategy(strategy), ENTRIES);

        List<Integer> ids = Pools.ids(Pools.acquire(pool, ENTRIES));

        assertEquals(Set.of(0, 1, 2, 3, 4), new HashSet<>(ids));
        assertNull(pool.acquire());
    }

    @ParameterizedTest
    @EnumSource(PoolStrategy.class)
    void everyStrategyFindsTheOnlyIdleEntryWherever(PoolStrategy strategy) {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(ENTRIES).strategy(strategy), ENTRIES);
        List<Pool.Entry<Pooled>> held = Pools.acquire(pool, ENTRIES);
        for (Pool.Entry<Pooled> idle : held) {
            idle.release();
            for (int attempt = 0; attempt < 3 * ENTRIES; attempt++) {
                Pool.Entry<Pooled> found = pool.acquire();
                assertSame(idle, found, strategy + " from attempt " + attempt);
                found.release();
            }
            assertSame(idle, pool.acquire());
        }
    }

    @Test
    void firstStrategyKeepsReusingTheFirstIdleEntry() {
        Pool<Pooled> pool = Pools.filled(Pool.builder(ENTRIES), ENTRIES);
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < ENTRIES; i++) {
            Pool.Entry<Pooled> entry = pool.acquire();
            ids.add(entry.pooled().id);
            entry.release();
        }

        assertEquals(List.of(0, 0, 0, 0, 0), ids);
    }

    @Test
    void roundRobinStrategyRotatesOverTheEntries() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(ENTRIES).strategy(PoolStrategy.ROUND_ROBIN), ENTRIES);
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < 2 * ENTRIES; i++) {
            Pool.Entry<Pooled> entry = pool.acquire();
            ids.add(entry.pooled().id);
            entry.release();
        }

        assertEquals(List.of(0, 1, 2, 3, 4, 0, 1, 2, 3, 4), ids);
    }

    @Test
    void threadIdStrategyStartsAtTheThreadIdModuloTheSize() throws Exception {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(ENTRIES).strategy(PoolStrategy.THREAD_ID), ENTRIES);
        for (int t = 0; t < 4; t++) {
            CompletableFuture<long[]> result = new CompletableFuture<>();
            Thread thread = new Thread(() -> {
                Pool.Entry<Pooled> entry = pool.acquire();
                entry.release();
                result.complete(new long[] {Thread.currentThread().threadId(), entry.pooled().id});
            });
            thread.start();
            long[] idAndEntry = result.get(10, TimeUnit.SECONDS);
            assertEquals(idAndEntry[0] % ENTRIES, idAndEntry[1], "thread id " + idAndEntry[0]);
        }
    }

    @Test
    void randomStrategySpreadsAcquiresOverAllEntries() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(ENTRIES).strategy(PoolStrategy.RANDOM), ENTRIES);
        Set<Integer> seen = new HashSet<>();
        // 1000 uniform draws miss one of 5 entries with probability 5 * 0.8^1000, about 1e-96.
        for (int i = 0; i < 1000; i++) {
            Pool.Entry<Pooled> entry = pool.acquire();
            seen.add(entry.pooled().id);
            entry.release();
        }

        assertEquals(Set.of(0, 1, 2, 3, 4), seen);
    }
}
