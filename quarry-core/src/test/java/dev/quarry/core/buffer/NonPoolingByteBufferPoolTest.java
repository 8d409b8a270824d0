package dev.quarry.core.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NonPoolingByteBufferPoolTest {

    private final ByteBufferPool pool = ByteBufferPool.NON_POOLING;

    @Test
    void allocatesExactlyTheRequestedCapacityOfTheRequestedKind() {
        RetainableByteBuffer direct = pool.acquire(1234, true);
        RetainableByteBuffer heap = pool.acquire(0, false);

        assertEquals(1234, direct.capacity());
        assertTrue(direct.isDirect());
        assertEquals(0, heap.capacity());
        assertTrue(!heap.isDirect());
        assertTrue(direct.release());
        assertTrue(heap.release());
    }

    @Test
    void neverReusesABuffer() {
        // The counters of the singleton are process-wide: compare before and after instead of absolute values.
        BufferPoolStatistics before = pool.statistics(true);
        RetainableByteBuffer first = pool.acquire(16, true);
        first.release();

        RetainableByteBuffer second = pool.acquire(16, true);
        second.release();

        assertNotSame(first, second);
        BufferPoolStatistics after = pool.statistics(true);
        assertTrue(after.misses() - before.misses() >= 2, after::toString);
        assertTrue(after.dropped() - before.dropped() >= 2, after::toString);
        assertEquals(0, after.pooled());
    }

    @Test
    void countsAreStillEnforced() {
        RetainableByteBuffer buffer = pool.acquire(16, false);
        buffer.release();

        assertThrows(IllegalStateException.class, buffer::release);
    }

    @Test
    void negativeCapacityIsRejectedNamingTheValue() {
        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, () -> pool.acquire(-7, true));

        assertTrue(failure.getMessage().contains("-7"), failure.getMessage());
    }
}
