package dev.quarry.core.buffer;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.test.Concurrently;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LeakTrackingByteBufferPoolTest {

    private final BucketedByteBufferPool delegate = new BucketedByteBufferPool();
    private final LeakTrackingByteBufferPool pool = new LeakTrackingByteBufferPool(delegate);

    /** Tests that leak on purpose release the leaked buffers; the delegate must then have them all back. */
    @AfterEach
    void everyBufferCameBackToTheDelegate() {
        assertEquals(0, delegate.statistics(true).outstanding(), delegate::toString);
        assertEquals(0, delegate.statistics(false).outstanding(), delegate::toString);
    }

    @Test
    void releasedBuffersAreNotLeaks() {
        RetainableByteBuffer buffer = pool.acquire(100, true);
        buffer.release();

        assertTrue(pool.leaks().isEmpty());
        assertDoesNotThrow(() -> pool.assertNoLeaks());
        assertEquals(1, pool.acquired());
    }

    @Test
    void reportsALeakWithItsAcquisitionSite() {
        RetainableByteBuffer buffer = pool.acquire(100, true);

        List<LeakTrackingByteBufferPool.Leak> leaks = pool.leaks();

        assertEquals(1, leaks.size());
        LeakTrackingByteBufferPool.Leak leak = leaks.get(0);
        assertSame(buffer, leak.buffer());
        assertEquals(Thread.currentThread().getName(), leak.thread());
        StackTraceElement site = leak.acquisitionSite().get(0);
        assertEquals(getClass().getName(), site.getClassName(), "the first frame is the caller of acquire()");
        assertEquals("reportsALeakWithItsAcquisitionSite", site.getMethodName());
        buffer.release();
    }

    @Test
    void assertNoLeaksListsTheCountAndEachAcquisitionStack() {
        RetainableByteBuffer first = acquireInHelper();
        RetainableByteBuffer second = pool.acquire(10, false);

        AssertionError failure = assertThrows(AssertionError.class, pool::assertNoLeaks);

        String message = failure.getMessage();
        assertTrue(message.startsWith("2 buffers leaked"), message);
        assertTrue(message.contains(getClass().getName() + ".acquireInHelper("), message);
        assertTrue(
                message.contains(getClass().getName() + ".assertNoLeaksListsTheCountAndEachAcquisitionStack("),
                message);
        first.release();
        second.release();
        assertDoesNotThrow(() -> pool.assertNoLeaks());
    }

    private RetainableByteBuffer acquireInHelper() {
        return pool.acquire(10, true);
    }

    @Test
    void aRetainedBufferLeaksUntilEveryHolderReleases() {
        RetainableByteBuffer buffer = pool.acquire(10, true);
        buffer.retain();

        assertFalse(buffer.release());
        assertEquals(1, pool.leaks().size());
        assertTrue(buffer.release());
        assertTrue(pool.leaks().isEmpty());
    }

    @Test
    void detectsADoubleReleaseAndKeepsReportingIt() {
        RetainableByteBuffer buffer = pool.acquire(10, true);
        buffer.release();

        IllegalStateException thrown = assertThrows(IllegalStateException.class, buffer::release);

        assertTrue(thrown.getMessage().contains("already released"), thrown.getMessage());
        assertEquals(1, pool.doubleReleases().size());
        // Code under test may swallow the exception: the pool still fails the test.
        AssertionError failure = assertThrows(AssertionError.class, pool::assertNoLeaks);
        String message = failure.getMessage();
        assertTrue(message.contains("1 buffer released more times than acquired and retained"), message);
        assertTrue(message.contains("first released by thread"), message);
        assertTrue(message.contains("released again by thread"), message);
        assertTrue(message.contains(".detectsADoubleReleaseAndKeepsReportingIt("), message);
    }

    @Test
    void aStaleReleaseCannotCorruptTheNextHolder() {
        RetainableByteBuffer stale = pool.acquire(10, true);
        stale.release();
        RetainableByteBuffer next = pool.acquire(10, true);
        assertEquals(1, delegate.statistics(true).hits(), "the delegate handed the same buffer to the next holder");

        assertThrows(IllegalStateException.class, stale::release);

        assertNotSame(stale, next);
        assertFalse(next.isRetained());
        assertTrue(next.release(), "the next holder's count was untouched");
        assertEquals(1, pool.doubleReleases().size());
    }

    @Test
    void usingABufferAfterReleaseThrows() {
        RetainableByteBuffer buffer = pool.acquire(10, true);
        buffer.release();

        IllegalStateException failure = assertThrows(IllegalStateException.class, buffer::byteBuffer);

        assertTrue(failure.getMessage().contains("byteBuffer() of a buffer already released"), failure.getMessage());
    }

    @Test
    void tracksBuffersFromManyThreadsAtOnce() throws InterruptedException {
        int threads = 4;

        Concurrently.run(threads, Duration.ofSeconds(60), thread -> {
            for (int i = 0; i < 2_000; i++) {
                RetainableByteBuffer buffer = pool.acquire(i % 10_000, (i & 1) == 0);
                if (i % 3 == 0) {
                    buffer.retain();
                    buffer.release();
                }
                buffer.release();
            }
            pool.acquire(1, true); // each thread leaks one buffer
        });

        List<LeakTrackingByteBufferPool.Leak> leaks = pool.leaks();
        assertEquals(threads, leaks.size());
        Set<String> threadNames =
                leaks.stream().map(LeakTrackingByteBufferPool.Leak::thread).collect(Collectors.toSet());
        assertEquals(Set.of("worker-0", "worker-1", "worker-2", "worker-3"), threadNames);
        assertEquals(threads * 2_001L, pool.acquired());
        assertTrue(pool.doubleReleases().isEmpty());
        leaks.forEach(leak -> leak.buffer().release());
    }

    @Test
    void awaitNoLeaksWaitsForAReleaseOnAnotherThread() throws InterruptedException {
        RetainableByteBuffer buffer = pool.acquire(10, true);
        CountDownLatch waiting = new CountDownLatch(1);
        Thread releaser = Thread.ofPlatform().start(() -> {
            try {
                if (waiting.await(10, TimeUnit.SECONDS)) {
                    buffer.release();
                }
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
        });

        waiting.countDown();
        assertTrue(pool.awaitNoLeaks(Duration.ofSeconds(10)));
        assertTrue(releaser.join(Duration.ofSeconds(10)));
    }

    @Test
    void awaitNoLeaksGivesUpAfterTheTimeout() {
        RetainableByteBuffer buffer = pool.acquire(10, true);

        long start = System.nanoTime();
        assertFalse(pool.awaitNoLeaks(Duration.ofMillis(50)));
        assertTrue(System.nanoTime() - start >= Duration.ofMillis(50).toNanos());
        buffer.release();
    }

    @Test
    void statisticsAndClearGoToTheDelegate() {
        pool.acquire(10, true).release();

        assertEquals(1, pool.statistics(true).pooled());
        pool.clear();
        assertEquals(0, delegate.statistics(true).pooled());
    }

    @Test
    void dumpListsOutstandingBuffers() {
        RetainableByteBuffer buffer = pool.acquire(10, false);

        String dump = pool.dump();

        assertTrue(dump.contains("outstanding=1"), dump);
        assertTrue(dump.contains("TrackedByteBuffer@"), dump);
        buffer.release();
    }
}
