package dev.quarry.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PoolCloseTest {

    @Test
    void closeReturnsTheIdleObjectsAndEmptiesThePool() {
        Pool<Pooled> pool = Pools.filled(Pool.builder(3), 3);
        List<Pool.Entry<Pooled>> entries = pool.entries();

        List<Pooled> toClose = pool.close();

        assertEquals(List.of(0, 1, 2), toClose.stream().map(p -> p.id).toList());
        assertTrue(pool.isClosed());
        assertEquals(0, pool.size());
        assertTrue(entries.stream().allMatch(Pool.Entry::isClosed));
    }

    @Test
    void acquireAndReserveReturnNullAfterClose() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(3).cacheSize(1), 1);
        pool.acquire().release(); // puts the entry in this thread's cache
        pool.close();

        assertNull(pool.acquire());
        assertNull(pool.reserve());
        assertNull(pool.acquire(entry -> new Pooled(9)));
    }

    @Test
    void anEntryInUseAtCloseIsClosedByItsHolderNotReturned() {
        Pool<Pooled> pool = Pools.filled(Pool.builder(2), 2);
        Pool.Entry<Pooled> held = pool.acquire();

        List<Pooled> toClose = pool.close();

        assertEquals(List.of(1), toClose.stream().map(p -> p.id).toList());
        assertTrue(held.isClosed());
        assertFalse(held.release(), "closed: must not go back to the pool");
        assertTrue(held.remove(), "the holder closes the object");
        assertFalse(held.remove());
    }

    @Test
    void aMultiplexedEntryInUseAtCloseIsClosedByItsLastHolder() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(1).maxMultiplex(2), 1);
        List<Pool.Entry<Pooled>> held = Pools.acquire(pool, 2);

        assertEquals(List.of(), pool.close());

        assertFalse(held.get(0).release());
        assertFalse(held.get(0).remove());
        assertFalse(held.get(1).release());
        assertTrue(held.get(1).remove());
    }

    @Test
    void reservedEntriesAtCloseNoLongerCount() {
        Pool<Pooled> pool = Pool.<Pooled>builder(2).build();
        Pool.Entry<Pooled> reserved = pool.reserve();

        pool.close();

        assertEquals(0, pool.reservedCount());
        assertTrue(reserved.isClosed());
        assertFalse(reserved.enable(new Pooled(1), false));
    }

    @Test
    void closeIsIdempotent() {
        Pool<Pooled> pool = Pools.filled(Pool.builder(1), 1);

        assertEquals(1, pool.close().size());
        assertEquals(List.of(), pool.close());
    }

    @Test
    void anEntryIdleAtCloseCannotBeRemovedForASecondClose() {
        Pool<Pooled> pool = Pools.filled(Pool.builder(1), 1);
        Pool.Entry<Pooled> entry = pool.entries().get(0);
        pool.close();

        assertFalse(entry.remove(), "close() already returned its object");
        assertFalse(entry.removeIfIdle());
    }
}
