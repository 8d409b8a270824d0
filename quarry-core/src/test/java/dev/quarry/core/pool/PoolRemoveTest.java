package dev.quarry.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PoolRemoveTest {

    @Test
    void removingAnIdleEntryReturnsTrueOnceAndShrinksThePool() {
        Pool<Pooled> pool = Pools.filled(Pool.builder(3), 3);
        Pool.Entry<Pooled> entry = pool.entries().get(1);

        assertTrue(entry.remove());
        assertFalse(entry.remove());

        assertEquals(2, pool.size());
        assertEquals(List.of(0, 2), Pools.ids(pool.entries()));
    }

    @Test
    void removingWhileHoldingEndsTheHoldAndHandsTheObjectToTheHolder() {
        Pool<Pooled> pool = Pools.filled(Pool.builder(2), 2);
        Pool.Entry<Pooled> broken = pool.acquire();

        assertTrue(broken.remove());

        assertEquals(0, broken.multiplexCount());
        assertTrue(broken.isClosed());
        assertThrows(IllegalStateException.class, broken::release, "the hold already ended");
        assertNotSame(broken, pool.acquire());
    }

    @Test
    void removingAMultiplexedEntryHandsTheObjectToTheLastHolder() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(1).maxMultiplex(3), 1);
        List<Pool.Entry<Pooled>> held = Pools.acquire(pool, 3);

        assertFalse(held.get(0).remove());
        assertNull(pool.acquire(), "removed: nobody else gets it");
        assertFalse(held.get(1).release());
        assertFalse(held.get(1).remove());
        assertTrue(held.get(2).remove());
    }

    @Test
    void removeIfIdleRemovesOnlyAnIdleEntry() {
        Pool<Pooled> pool = Pools.filled(Pool.builder(1), 1);
        Pool.Entry<Pooled> entry = pool.acquire();

        assertFalse(entry.removeIfIdle(), "in use");
        assertTrue(entry.isInUse());
        entry.release();
        assertTrue(entry.removeIfIdle());
        assertFalse(entry.removeIfIdle());

        assertTrue(entry.isClosed());
        assertEquals(0, pool.size());
    }

    @Test
    void removeIfIdleLeavesAReservedEntryToItsCreator() {
        Pool<Pooled> pool = Pool.<Pooled>builder(1).build();
        Pool.Entry<Pooled> reserved = pool.reserve();

        assertFalse(reserved.removeIfIdle());
        assertTrue(reserved.enable(new Pooled(1), false));
    }

    @Test
    void entriesAfterARemovedOneKeepWorking() {
        Pool<Pooled> pool = Pools.filled(Pool.builder(4), 4);
        pool.entries().get(0).remove();
        pool.entries().get(1).remove(); // Pooled#2, now at position 1

        assertEquals(List.of(1, 3), Pools.ids(Pools.acquire(pool, 2)));
        assertNull(pool.acquire());
        assertTrue(pool.entries().get(1).release());
        assertTrue(pool.entries().get(1).remove());
        assertEquals(List.of(1), Pools.ids(pool.entries()));
    }

    @Test
    void countersAddUpForAStatusPage() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(6).maxMultiplex(2), 3);
        pool.reserve();
        Pools.acquire(pool, 3); // 2 on entry 0, 1 on entry 1

        assertEquals(4, pool.size());
        assertEquals(1, pool.reservedCount());
        assertEquals(1, pool.idleCount());
        assertEquals(2, pool.inUseCount());
        assertFalse(pool.isClosed());
        assertEquals(pool.size(), pool.reservedCount() + pool.idleCount() + pool.inUseCount());
    }

    @Test
    void dumpAndToStringShowTheLiveState() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(4).maxMultiplex(2), 2);
        pool.acquire();

        String dump = pool.dump();

        assertTrue(dump.startsWith("Pool@"), dump);
        assertTrue(dump.contains("size=2/4,reserved=0,idle=1,inUse=1,maxMultiplex=2"), dump);
        assertTrue(dump.contains("OPEN,holders=1,usage=1,pooled=Pooled#0"), dump);
        assertTrue(dump.contains("OPEN,holders=0,usage=0,pooled=Pooled#1"), dump);
        assertEquals(3, dump.lines().count(), dump);
    }
}
