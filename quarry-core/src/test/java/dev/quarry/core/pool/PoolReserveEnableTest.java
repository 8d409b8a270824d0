package dev.quarry.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PoolReserveEnableTest {

    @Test
    void reservedEntryCountsInSizeButCannotBeAcquired() {
        Pool<Pooled> pool = Pool.<Pooled>builder(2).build();
        Pool.Entry<Pooled> entry = pool.reserve();

        assertNotNull(entry);
        assertTrue(entry.isReserved());
        assertNull(entry.pooled());
        assertEquals(1, pool.size());
        assertEquals(1, pool.reservedCount());
        assertNull(pool.acquire());
    }

    @Test
    void enabledEntryIsIdleAndAcquirable() {
        Pool<Pooled> pool = Pool.<Pooled>builder(2).build();
        Pool.Entry<Pooled> entry = pool.reserve();
        Pooled pooled = new Pooled(1);

        assertTrue(entry.enable(pooled, false));

        assertTrue(entry.isIdle());
        assertFalse(entry.isReserved());
        assertEquals(0, pool.reservedCount());
        assertEquals(1, pool.idleCount());
        assertSame(entry, pool.acquire());
        assertSame(pooled, entry.pooled());
        assertTrue(entry.isInUse());
    }

    @Test
    void enableAcquiredHandsTheEntryToTheCallerAsItsFirstUse() {
        Pool<Pooled> pool = Pool.<Pooled>builder(2).build();
        Pool.Entry<Pooled> entry = pool.reserve();

        assertTrue(entry.enable(new Pooled(1), true));

        assertTrue(entry.isInUse());
        assertEquals(1, entry.multiplexCount());
        assertEquals(1, entry.usageCount());
        assertEquals(1, pool.inUseCount());
        assertNull(pool.acquire(), "a duplex entry enabled acquired has no room for another holder");
        assertTrue(entry.release());
        assertTrue(entry.isIdle());
    }

    @Test
    void reserveReturnsNullWhenMaxEntriesIsReachedCountingReservedEntries() {
        Pool<Pooled> pool = Pool.<Pooled>builder(3).build();
        Pools.fill(pool, 1);
        assertNotNull(pool.reserve());
        assertNotNull(pool.reserve());

        assertNull(pool.reserve(), "two reserved + one enabled entries fill a pool of 3");
        assertEquals(3, pool.size());
        assertEquals(2, pool.reservedCount());
    }

    @Test
    void reservedCountFallsAsEntriesAreEnabledOrRemoved() {
        Pool<Pooled> pool = Pool.<Pooled>builder(3).build();
        Pool.Entry<Pooled> first = pool.reserve();
        Pool.Entry<Pooled> second = pool.reserve();
        assertEquals(2, pool.reservedCount());

        first.enable(new Pooled(1), false);
        assertEquals(1, pool.reservedCount());

        assertTrue(second.remove(), "removing a reserved entry is the last word on it");
        assertEquals(0, pool.reservedCount());
        assertEquals(1, pool.size());
    }

    @Test
    void removingAReservedEntryFreesItsPlaceForAnotherReservation() {
        Pool<Pooled> pool = Pool.<Pooled>builder(1).build();
        Pool.Entry<Pooled> failed = pool.reserve();
        assertNull(pool.reserve());

        failed.remove();

        assertTrue(failed.isClosed());
        assertNotNull(pool.reserve());
    }

    @Test
    void enablingAnEntryTwiceIsAnError() {
        Pool<Pooled> pool = Pool.<Pooled>builder(1).build();
        Pool.Entry<Pooled> entry = pool.reserve();
        entry.enable(new Pooled(1), false);

        IllegalStateException x = assertThrows(IllegalStateException.class, () -> entry.enable(new Pooled(2), false));
        assertTrue(x.getMessage().contains("not reserved"), x.getMessage());
        assertEquals(1, entry.pooled().id);
    }

    @Test
    void enablingWithNullIsRejected() {
        Pool<Pooled> pool = Pool.<Pooled>builder(1).build();
        Pool.Entry<Pooled> entry = pool.reserve();

        assertThrows(NullPointerException.class, () -> entry.enable(null, false));
        assertTrue(entry.isReserved());
    }

    @Test
    void enablingAfterThePoolClosedFailsAndLeavesTheObjectToTheCaller() {
        Pool<Pooled> pool = Pool.<Pooled>builder(1).build();
        Pool.Entry<Pooled> entry = pool.reserve();
        pool.close();

        assertFalse(entry.enable(new Pooled(1), true));

        assertNull(entry.pooled());
        assertTrue(entry.isClosed());
        assertEquals(0, pool.reservedCount());
        assertFalse(entry.remove(), "nothing left to close");
    }

    @Test
    void acquireWithCreatorCreatesOnlyWhenNothingIsIdle() {
        Pool<Pooled> pool = Pools.filled(Pool.builder(2), 1);
        AtomicInteger created = new AtomicInteger();

        Pool.Entry<Pooled> reused = pool.acquire(entry -> new Pooled(100 + created.incrementAndGet()));
        Pool.Entry<Pooled> fresh = pool.acquire(entry -> new Pooled(100 + created.incrementAndGet()));

        assertEquals(0, reused.pooled().id);
        assertEquals(101, fresh.pooled().id);
        assertTrue(fresh.isInUse());
        assertEquals(1, fresh.usageCount());
        assertEquals(1, created.get());
        assertEquals(2, pool.size());
        assertEquals(0, pool.reservedCount());
    }

    @Test
    void acquireWithCreatorReturnsNullWhenThePoolIsFullAndBusy() {
        Pool<Pooled> pool = Pools.filled(Pool.builder(1), 1);
        pool.acquire();

        assertNull(pool.acquire(entry -> {
            throw new AssertionError("must not create beyond maxEntries");
        }));
    }

    @Test
    void acquireWithCreatorRemovesTheReservationWhenTheCreatorFails() {
        Pool<Pooled> pool = Pool.<Pooled>builder(1).build();

        assertThrows(
                IllegalStateException.class,
                () -> pool.acquire(entry -> {
                    throw new IllegalStateException("connect failed");
                }));
        assertNull(pool.acquire(entry -> null));

        assertEquals(0, pool.size());
        assertEquals(0, pool.reservedCount());
    }

    @Test
    void acquireWithCreatorClosesAnObjectCreatedWhileThePoolClosed() {
        Pool<Pooled> pool = Pool.<Pooled>builder(1).build();
        Pooled created = new Pooled(1);

        Pool.Entry<Pooled> entry = pool.acquire(reserved -> {
            pool.close();
            return created;
        });

        assertNull(entry);
        assertEquals(1, created.closes.get());
        assertEquals(0, pool.size());
    }
}
