package dev.quarry.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PoolUsageLimitTest {

    @Test
    void entryThatReachedMaxUsageCannotBeAcquiredAgain() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(1).maxUsage(2), 1);
        Pool.Entry<Pooled> entry = pool.acquire();
        assertTrue(entry.release(), "first of two uses");

        assertSame(entry, pool.acquire());
        assertFalse(entry.release(), "second use reached maxUsage: must be removed");

        assertNull(pool.acquire());
        assertEquals(2, entry.usageCount());
    }

    @Test
    void releaseRefusedForUsageKeepsTheHoldUntilRemove() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(1).maxUsage(1), 1);
        Pool.Entry<Pooled> entry = pool.acquire();

        assertFalse(entry.release());

        assertTrue(entry.isInUse());
        assertEquals(1, pool.inUseCount());
        assertTrue(entry.remove(), "the only holder closes the worn-out object");
        assertTrue(entry.isClosed());
        assertEquals(0, pool.size());
    }

    @Test
    void wornOutMultiplexedEntryIsClosedByItsLastHolder() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(1).maxMultiplex(2).maxUsage(2), 1);
        List<Pool.Entry<Pooled>> held = Pools.acquire(pool, 2);
        Pool.Entry<Pooled> entry = held.get(0);

        assertFalse(entry.release());
        assertFalse(entry.remove(), "another holder still uses it");
        assertTrue(entry.isClosed());
        assertEquals(0, pool.size(), "removed from the pool at once");
        assertFalse(entry.release(), "closed now");
        assertTrue(entry.remove(), "the last holder closes the object");
        assertEquals(0, entry.multiplexCount());
    }

    @Test
    void enablingAcquiredCountsAsAUse() {
        Pool<Pooled> pool = Pool.<Pooled>builder(1).maxUsage(1).build();
        Pool.Entry<Pooled> entry = pool.reserve();
        entry.enable(new Pooled(1), true);

        assertFalse(entry.release());
    }

    @Test
    void usageIsCountedWithoutALimit() {
        Pool<Pooled> pool = Pools.filled(Pool.builder(1), 1);
        for (int i = 0; i < 1000; i++) {
            assertTrue(pool.acquire().release());
        }

        assertEquals(1000, pool.entries().get(0).usageCount());
        assertEquals(0, pool.maxUsage());
    }

    @Test
    void maxUsageOutOfRangeIsRejectedWithTheValue() {
        IllegalArgumentException x = assertThrows(
                IllegalArgumentException.class, () -> Pool.builder(1).maxUsage(-5));
        assertTrue(x.getMessage().contains("-5"), x.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Pool.builder(1).maxUsage(1 << 30));
    }
}
