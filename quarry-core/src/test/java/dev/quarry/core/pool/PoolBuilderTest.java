package dev.quarry.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PoolBuilderTest {

    @Test
    void defaultsAreDuplexUnlimitedFirstWithoutCache() {
        Pool<Pooled> pool = Pool.<Pooled>builder(5).build();

        assertEquals(5, pool.maxEntries());
        assertEquals(1, pool.maxMultiplex());
        assertEquals(0, pool.maxUsage());
        assertEquals(PoolStrategy.FIRST, pool.strategy());
        assertEquals(0, pool.cacheSize());
        assertEquals(0, pool.size());
        assertFalse(pool.isClosed());
    }

    @Test
    void everySettingReachesThePool() {
        Pool<Pooled> pool = Pool.<Pooled>builder(3)
                .maxMultiplex(4)
                .maxUsage(10)
                .strategy(PoolStrategy.RANDOM)
                .cacheSize(2)
                .build();

        assertEquals(4, pool.maxMultiplex());
        assertEquals(10, pool.maxUsage());
        assertEquals(PoolStrategy.RANDOM, pool.strategy());
        assertEquals(2, pool.cacheSize());
        assertTrue(pool.toString().contains("maxMultiplex=4,maxUsage=10,strategy=RANDOM,cacheSize=2"), pool::toString);
    }

    @Test
    void invalidSettingsAreRejectedWithTheValue() {
        IllegalArgumentException entries = assertThrows(IllegalArgumentException.class, () -> Pool.builder(0));
        assertTrue(entries.getMessage().contains("0"), entries.getMessage());
        IllegalArgumentException cache = assertThrows(
                IllegalArgumentException.class, () -> Pool.builder(1).cacheSize(-2));
        assertTrue(cache.getMessage().contains("-2"), cache.getMessage());
        assertThrows(NullPointerException.class, () -> Pool.builder(1).strategy(null));
    }
}
