package dev.quarry.core.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class BucketedByteBufferPoolTest {

    private final List<ByteBufferPool> pools = new ArrayList<>();

    /** The leak check of these tests: every buffer acquired from a pool under test went back to it. */
    @AfterEach
    void everyBufferCameBack() {
        for (ByteBufferPool pool : pools) {
            assertEquals(0, pool.statistics(true).outstanding(), () -> "direct buffers leaked from " + pool);
            assertEquals(0, pool.statistics(false).outstanding(), () -> "heap buffers leaked from " + pool);
        }
    }

    private BucketedByteBufferPool track(BucketedByteBufferPool pool) {
        pools.add(pool);
        return pool;
    }

    private BucketedByteBufferPool defaultPool() {
        return track(new BucketedByteBufferPool());
    }

    /** Factor 1024 up to 4096: four buckets; 16 KiB of heap gives each a 4 KiB share. */
    private BucketedByteBufferPool smallPool() {
        return track(BucketedByteBufferPool.builder()
                .factor(1024)
                .maxCapacity(4096)
                .maxHeapMemory(16 * 1024)
                .maxDirectMemory(16 * 1024)
                .build());
    }

    @ParameterizedTest(name = "{0} bytes come from the {1}-byte bucket")
    @CsvSource({
        "0, 4096",
        "1, 4096",
        "4095, 4096",
        "4096, 4096",
        "4097, 8192",
        "8192, 8192",
        "65535, 65536",
        "65536, 65536"
    })
    void requestsAreRoundedUpToAMultipleOfTheFactor(int requested, int capacity) {
        BucketedByteBufferPool pool = defaultPool();

        RetainableByteBuffer buffer = pool.acquire(requested, true);

        assertEquals(capacity, buffer.capacity());
        buffer.release();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void buffersAreOfTheRequestedKind(boolean direct) {
        BucketedByteBufferPool pool = defaultPool();

        RetainableByteBuffer buffer = pool.acquire(100, direct);

        assertEquals(direct, buffer.isDirect());
        assertEquals(direct, buffer.byteBuffer().isDirect());
        assertEquals(1, pool.statistics(direct).acquired());
        assertEquals(0, pool.statistics(!direct).acquired());
        buffer.release();
    }

    @Test
    void directAndHeapBuffersArePooledSeparately() {
        BucketedByteBufferPool pool = defaultPool();
        RetainableByteBuffer direct = pool.acquire(100, true);
        direct.release();

        RetainableByteBuffer heap = pool.acquire(100, false);

        assertNotSame(direct, heap);
        assertFalse(heap.isDirect());
        assertEquals(1, pool.statistics(true).pooled());
        assertEquals(0, pool.statistics(false).pooled());
        heap.release();
    }

    @Test
    void aReleasedBufferComesBackAsTheSameInstance() {
        BucketedByteBufferPool pool = defaultPool();
        RetainableByteBuffer first = pool.acquire(1000, true);
        assertTrue(first.release());

        RetainableByteBuffer second = pool.acquire(3000, true);

        assertSame(first, second, "same bucket, so the idle buffer is reused");
        BufferPoolStatistics statistics = pool.statistics(true);
        assertEquals(2, statistics.acquired());
        assertEquals(1, statistics.misses());
        assertEquals(1, statistics.hits());
        second.release();
    }

    @Test
    void buffersAreHandedOutInFillModeWhateverTheLastHolderDid() {
        BucketedByteBufferPool pool = defaultPool();
        RetainableByteBuffer buffer = pool.acquire(10, false);
        assertEquals(0, buffer.byteBuffer().position());
        assertEquals(buffer.capacity(), buffer.byteBuffer().limit());
        buffer.byteBuffer().order(ByteOrder.LITTLE_ENDIAN).putInt(42).flip();
        buffer.release();

        RetainableByteBuffer again = pool.acquire(10, false);

        assertSame(buffer, again);
        assertEquals(0, again.byteBuffer().position());
        assertEquals(again.capacity(), again.byteBuffer().limit());
        assertEquals(ByteOrder.BIG_ENDIAN, again.byteBuffer().order());
        assertFalse(again.isRetained());
        again.release();
    }

    @Test
    void aRetainedBufferGoesBackOnlyAfterTheLastRelease() {
        BucketedByteBufferPool pool = defaultPool();
        RetainableByteBuffer buffer = pool.acquire(10, true);
        buffer.retain();

        assertFalse(buffer.release());
        assertEquals(0, pool.statistics(true).pooled(), "still held by the second holder");
        assertTrue(buffer.release());
        assertEquals(1, pool.statistics(true).pooled());
        assertEquals(1, pool.statistics(true).released());
    }

    @Test
    void releasingAPooledBufferTwiceThrowsNamingIt() {
        BucketedByteBufferPool pool = defaultPool();
        RetainableByteBuffer buffer = pool.acquire(10, true);
        buffer.release();

        IllegalStateException failure = assertThrows(IllegalStateException.class, buffer::release);

        assertTrue(failure.getMessage().contains("CountedByteBuffer@"), failure.getMessage());
        assertEquals(1, pool.statistics(true).released(), "the refused release changed nothing");
        assertEquals(1, pool.statistics(true).pooled());
    }

    @Test
    void oversizeRequestsAreAllocatedExactlyAndDropped() {
        BucketedByteBufferPool pool = defaultPool();
        RetainableByteBuffer big = pool.acquire(65537, true);
        assertEquals(65537, big.capacity());
        assertTrue(big.release());

        RetainableByteBuffer again = pool.acquire(65537, true);

        assertNotSame(big, again);
        again.release();
        BufferPoolStatistics statistics = pool.statistics(true);
        assertEquals(2, statistics.misses());
        assertEquals(2, statistics.released());
        assertEquals(2, statistics.dropped());
        assertEquals(0, statistics.pooled());
    }

    @Test
    void aFullBucketDropsReleasedBuffers() {
        BucketedByteBufferPool pool = smallPool(); // the 1 KiB bucket keeps 4 buffers
        List<RetainableByteBuffer> held = acquire(pool, 10, 1024, false);

        held.forEach(RetainableByteBuffer::release);

        BufferPoolStatistics statistics = pool.statistics(false);
        assertEquals(4, statistics.pooled());
        assertEquals(4 * 1024, statistics.pooledMemory());
        assertEquals(10, statistics.released());
        assertEquals(6, statistics.dropped());
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void idleMemoryNeverExceedsTheLimit(boolean direct) {
        BucketedByteBufferPool pool = smallPool();
        List<RetainableByteBuffer> held = new ArrayList<>();
        for (int capacity = 1024; capacity <= 4096; capacity += 1024) {
            held.addAll(acquire(pool, 10, capacity, direct));
        }

        held.forEach(RetainableByteBuffer::release);

        BufferPoolStatistics statistics = pool.statistics(direct);
        assertTrue(statistics.pooledMemory() <= 16 * 1024, statistics::toString);
        // Each bucket keeps what fits its 4 KiB share: 4 x 1 KiB, 2 x 2 KiB, 1 x 3 KiB, 1 x 4 KiB.
        assertEquals(4 * 1024 + 2 * 2048 + 3072 + 4096, statistics.pooledMemory());
        assertEquals(40 - 8, statistics.dropped());
    }

    @Test
    void maxBucketSizeCapsEachBucket() {
        BucketedByteBufferPool pool =
                track(BucketedByteBufferPool.builder().maxBucketSize(2).build());

        acquire(pool, 5, 100, true).forEach(RetainableByteBuffer::release);

        assertEquals(2, pool.statistics(true).pooled());
        assertEquals(3, pool.statistics(true).dropped());
    }

    @Test
    void noMemoryMeansNoPooling() {
        BucketedByteBufferPool pool =
                track(BucketedByteBufferPool.builder().maxDirectMemory(0).build());
        RetainableByteBuffer first = pool.acquire(100, true);
        first.release();

        RetainableByteBuffer second = pool.acquire(100, true);

        assertNotSame(first, second);
        second.release();
        assertEquals(2, pool.statistics(true).misses());
        assertEquals(0, pool.statistics(true).pooled());
    }

    @Test
    void clearDropsIdleBuffersButNotHeldOnes() {
        BucketedByteBufferPool pool = defaultPool();
        pool.acquire(10, true).release();
        RetainableByteBuffer held = pool.acquire(10, false);

        pool.clear();

        assertEquals(0, pool.statistics(true).pooled());
        RetainableByteBuffer fresh = pool.acquire(10, true);
        assertEquals(2, pool.statistics(true).misses(), "the cleared buffer was not reused");
        fresh.release();
        held.release();
        assertEquals(1, pool.statistics(false).pooled(), "a buffer held across clear() still comes back");
    }

    @Test
    void negativeCapacityIsRejectedNamingTheValue() {
        BucketedByteBufferPool pool = defaultPool();

        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, () -> pool.acquire(-1, true));

        assertTrue(failure.getMessage().contains("-1"), failure.getMessage());
        assertEquals(0, pool.statistics(true).acquired());
    }

    @Test
    void configurationErrorsNameTheOffendingValue() {
        assertMessageContains("0", () -> BucketedByteBufferPool.builder().factor(0));
        assertMessageContains("-5", () -> BucketedByteBufferPool.builder().maxCapacity(-5));
        assertMessageContains("-1", () -> BucketedByteBufferPool.builder().maxDirectMemory(-1));
        assertMessageContains("-1", () -> BucketedByteBufferPool.builder().maxHeapMemory(-1));
        assertMessageContains("-3", () -> BucketedByteBufferPool.builder().maxBucketSize(-3));
        assertMessageContains(
                "5000",
                () -> BucketedByteBufferPool.builder()
                        .factor(4096)
                        .maxCapacity(5000)
                        .build());
    }

    @Test
    void theDefaultsAreVisible() {
        BucketedByteBufferPool pool = defaultPool();

        assertEquals(4096, pool.factor());
        assertEquals(65536, pool.maxCapacity());
        assertEquals(64L << 20, pool.maxDirectMemory());
        assertEquals(64L << 20, pool.maxHeapMemory());
        assertEquals(1024, pool.maxBucketSize());
        String string = pool.toString();
        assertTrue(string.contains("factor=4096"), string);
        assertTrue(string.contains("maxCapacity=65536"), string);
    }

    @Test
    void dumpShowsCountersAndNonEmptyBuckets() {
        BucketedByteBufferPool pool = defaultPool();
        pool.acquire(5000, true).release();
        RetainableByteBuffer held = pool.acquire(10, false);

        String dump = pool.dump();

        assertTrue(dump.contains("direct [pooled=1,memory=8192/67108864,acquired=1,released=1"), dump);
        assertTrue(dump.contains("heap [pooled=0,memory=0/67108864,acquired=1,released=0"), dump);
        assertTrue(dump.contains("capacity=8192,pooled=1/"), dump);
        held.release();
    }

    private static List<RetainableByteBuffer> acquire(ByteBufferPool pool, int count, int capacity, boolean direct) {
        List<RetainableByteBuffer> buffers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            buffers.add(pool.acquire(capacity, direct));
        }
        return buffers;
    }

    private static void assertMessageContains(String value, org.junit.jupiter.api.function.Executable executable) {
        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class, executable);
        assertTrue(failure.getMessage().contains(value), failure.getMessage());
    }
}
