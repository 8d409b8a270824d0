package dev.quarry.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PoolMultiplexTest {

    @Test
    void duplexEntryHasOneHolderAtATime() {
        Pool<Pooled> pool = Pools.filled(Pool.builder(1), 1);
        Pool.Entry<Pooled> entry = pool.acquire();

        assertNull(pool.acquire());
        assertEquals(1, entry.multiplexCount());

        assertTrue(entry.release());
        assertSame(entry, pool.acquire());
    }

    @Test
    void multiplexedEntryTakesUpToMaxMultiplexHolders() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(1).maxMultiplex(3), 1);

        List<Pool.Entry<Pooled>> held = Pools.acquire(pool, 3);

        assertEquals(List.of(0, 0, 0), Pools.ids(held));
        assertEquals(3, held.get(0).multiplexCount());
        assertNull(pool.acquire());
        assertTrue(held.get(0).release());
        assertEquals(2, held.get(0).multiplexCount());
        assertSame(held.get(0), pool.acquire());
    }

    @Test
    void firstStrategyFillsTheFirstEntryBeforeTheNext() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(3).maxMultiplex(2), 3);

        assertEquals(List.of(0, 0, 1, 1, 2), Pools.ids(Pools.acquire(pool, 5)));
    }

    @Test
    void raisingMaxMultiplexAtRunTimeLetsMoreHoldersIn() {
        Pool<Pooled> pool = Pools.filled(Pool.builder(1), 1);
        Pool.Entry<Pooled> entry = pool.acquire();
        assertNull(pool.acquire());

        pool.maxMultiplex(2);

        assertEquals(2, pool.maxMultiplex());
        assertSame(entry, pool.acquire());
        assertEquals(2, entry.multiplexCount());
        assertNull(pool.acquire());
    }

    @Test
    void loweringMaxMultiplexAtRunTimeKeepsCurrentHoldersButAdmitsNoneUntilBelowTheLimit() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(1).maxMultiplex(3), 1);
        List<Pool.Entry<Pooled>> held = Pools.acquire(pool, 3);

        pool.maxMultiplex(1);

        assertEquals(3, held.get(0).multiplexCount());
        assertTrue(held.get(0).release());
        assertNull(pool.acquire(), "2 holders remain, above the new limit of 1");
        assertTrue(held.get(1).release());
        assertNull(pool.acquire(), "1 holder remains, at the new limit of 1");
        assertTrue(held.get(2).release());
        assertSame(held.get(0), pool.acquire());
    }

    @Test
    void anEntryWithItsOwnLimitTakesNoMoreHoldersThanThatInAMultiplexedPool() {
        // An HTTP/1.1 connection (one exchange) in a pool of HTTP/2 connections (many streams).
        Pool<Pooled> pool = Pool.<Pooled>builder(2).maxMultiplex(4).build();
        Pool.Entry<Pooled> duplex = pool.reserve().maxHolders(1);
        assertTrue(duplex.enable(new Pooled(0), false));
        assertTrue(pool.reserve().enable(new Pooled(1), false));

        assertEquals(List.of(0, 1, 1, 1, 1), Pools.ids(Pools.acquire(pool, 5)));
        assertEquals(1, duplex.multiplexCount());
        assertNull(pool.acquire());
        assertTrue(duplex.release());
        assertSame(duplex, pool.acquire());
    }

    @Test
    void anEntrysOwnLimitIsSetBeforeItIsEnabled() {
        Pool<Pooled> pool = Pools.filled(Pool.<Pooled>builder(1).maxMultiplex(2), 1);
        Pool.Entry<Pooled> entry = pool.acquire();

        assertThrows(IllegalStateException.class, () -> entry.maxHolders(1));
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> entry.maxHolders(0));
        assertTrue(x.getMessage().contains("0"), x.getMessage());
    }

    @Test
    void maxMultiplexBelowOneIsRejectedWithTheValue() {
        Pool<Pooled> pool = Pool.<Pooled>builder(1).build();

        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> pool.maxMultiplex(0));
        assertTrue(x.getMessage().contains("0"), x.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Pool.builder(1).maxMultiplex(-1));
        assertEquals(1, pool.maxMultiplex());
    }

    @Test
    void releasingAnEntryThatIsNotInUseIsAnError() {
        Pool<Pooled> pool = Pools.filled(Pool.builder(1), 1);
        Pool.Entry<Pooled> entry = pool.acquire();
        entry.release();

        IllegalStateException x = assertThrows(IllegalStateException.class, entry::release);
        assertTrue(x.getMessage().contains("not in use"), x.getMessage());
        assertTrue(entry.isIdle());
    }
}
