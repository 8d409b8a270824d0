package dev.quarry.core.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.test.Concurrently;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Many threads acquire, retain and release buffers of random sizes and kinds from a pool with small buckets, so that
 * they compete for the same slots. Each holder marks its ownership in a shared map and stamps the buffer; a buffer
 * handed to two holders at once would fail the map's put or show a foreign stamp.
 */
class BucketedByteBufferPoolConcurrencyTest {

    private static final long MAX_MEMORY = 64 * 1024;

    @Test
    void noBufferIsEverHeldByTwoHoldersAtOnce() throws InterruptedException {
        hammer(4, 20_000);
    }

    @Test
    @Tag("stress")
    void noBufferIsEverHeldByTwoHoldersAtOnceUnderStress() throws InterruptedException {
        hammer(8, 2_000_000);
    }

    private static void hammer(int workers, int steps) throws InterruptedException {
        BucketedByteBufferPool pool = BucketedByteBufferPool.builder()
                .factor(1024)
                .maxCapacity(8192)
                .maxBucketSize(4)
                .maxDirectMemory(MAX_MEMORY)
                .maxHeapMemory(MAX_MEMORY)
                .build();
        ConcurrentHashMap<RetainableByteBuffer, Integer> owners = new ConcurrentHashMap<>();
        AtomicInteger running = new AtomicInteger(workers);

        // Thread 0 watches the limit while the others work.
        Concurrently.run(workers + 1, Duration.ofMinutes(5), thread -> {
            if (thread == 0) {
                while (running.get() > 0) {
                    assertWithinLimit(pool);
                    LockSupport.parkNanos(100_000); // leave the cores to the workers
                }
                return;
            }
            try {
                work(pool, owners, thread, steps);
            } finally {
                running.decrementAndGet();
            }
        });

        assertTrue(owners.isEmpty(), () -> "still owned: " + owners);
        for (boolean direct : new boolean[] {true, false}) {
            BufferPoolStatistics statistics = pool.statistics(direct);
            assertEquals(0, statistics.outstanding(), statistics::toString);
            assertTrue(statistics.hits() > 0, () -> "buffers were reused: " + statistics);
            assertTrue(statistics.dropped() > 0, () -> "the small buckets overflowed: " + statistics);
        }
        assertWithinLimit(pool);
    }

    private static void work(
            BucketedByteBufferPool pool,
            ConcurrentHashMap<RetainableByteBuffer, Integer> owners,
            int thread,
            int steps) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        RetainableByteBuffer[] held = new RetainableByteBuffer[3];
        long[] stamps = new long[held.length];
        long sequence = 0;
        for (int step = 0; step < steps; step++) {
            int slot = random.nextInt(held.length);
            RetainableByteBuffer buffer = held[slot];
            if (buffer == null) {
                RetainableByteBuffer acquired = pool.acquire(random.nextInt(9000), random.nextBoolean());
                assertNull(owners.putIfAbsent(acquired, thread), () -> "handed to two holders at once: " + acquired);
                buffer = acquired;
                ByteBuffer bytes = buffer.byteBuffer();
                assertEquals(0, bytes.position());
                assertEquals(bytes.capacity(), bytes.limit());
                assertFalse(buffer.isRetained());
                long stamp = ((long) thread << 40) | ++sequence;
                bytes.putLong(0, stamp).putLong(bytes.capacity() - 8, stamp);
                held[slot] = buffer;
                stamps[slot] = stamp;
            } else {
                ByteBuffer bytes = buffer.byteBuffer();
                assertEquals(stamps[slot], bytes.getLong(0), "another holder wrote into the buffer");
                assertEquals(stamps[slot], bytes.getLong(bytes.capacity() - 8), "another holder wrote into it");
                if (random.nextInt(4) == 0) {
                    buffer.retain();
                    assertFalse(buffer.release());
                }
                assertTrue(owners.remove(buffer, thread));
                assertTrue(buffer.release());
                held[slot] = null;
            }
        }
        for (int slot = 0; slot < held.length; slot++) {
            if (held[slot] != null) {
                assertTrue(owners.remove(held[slot], thread));
                assertTrue(held[slot].release());
            }
        }
    }

    private static void assertWithinLimit(ByteBufferPool pool) {
        for (boolean direct : new boolean[] {true, false}) {
            BufferPoolStatistics statistics = pool.statistics(direct);
            assertTrue(statistics.pooledMemory() <= MAX_MEMORY, statistics::toString);
        }
    }
}
