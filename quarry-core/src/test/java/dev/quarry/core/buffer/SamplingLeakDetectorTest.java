package dev.quarry.core.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SamplingLeakDetectorTest {

    private final BucketedByteBufferPool delegate = new BucketedByteBufferPool();
    private final BlockingQueue<SamplingLeakDetector.Leak> reports = new LinkedBlockingQueue<>();

    private SamplingLeakDetector detector(int sampleInterval) {
        return new SamplingLeakDetector(delegate, sampleInterval, reports::add);
    }

    @Test
    void reportsAWatchedBufferGarbageCollectedUnreleased() throws InterruptedException {
        SamplingLeakDetector detector = detector(1);
        leakOneBuffer(detector);

        SamplingLeakDetector.Leak leak = awaitReport();

        assertEquals("direct buffer of capacity 4096", leak.buffer());
        assertEquals(Thread.currentThread().getName(), leak.thread());
        StackTraceElement site = leak.acquisitionSite().get(0);
        assertEquals(getClass().getName(), site.getClassName());
        assertEquals("leakOneBuffer", site.getMethodName(), "the first frame is the caller of acquire()");
        String report = leak.report();
        assertTrue(report.startsWith("LEAK: direct buffer of capacity 4096 acquired by thread"), report);
        assertTrue(report.contains(".leakOneBuffer("), report);
        assertEquals(1, detector.leaks());
        assertEquals(1, delegate.statistics(true).outstanding(), "the leaked buffer never came back");
    }

    /** Acquires in a frame of its own, so that no local variable of the test keeps the buffer reachable. */
    private static void leakOneBuffer(SamplingLeakDetector detector) {
        RetainableByteBuffer buffer = detector.acquire(100, true);
        buffer.byteBuffer().put((byte) 1);
    }

    @Test
    void releasedBuffersAreNeverReported() throws InterruptedException {
        SamplingLeakDetector detector = detector(1);
        for (int i = 0; i < 100; i++) {
            RetainableByteBuffer buffer = detector.acquire(100, false);
            buffer.retain();
            buffer.release();
            assertTrue(buffer.release());
        }
        leakOneBuffer(detector); // a marker, so that the test knows when the cleaner has run

        awaitReport();

        assertEquals(1, detector.leaks());
        assertTrue(reports.isEmpty(), () -> "unexpected reports: " + reports);
        assertEquals(100, delegate.statistics(false).released());
    }

    @Test
    void watchesEveryAcquisitionWithIntervalOne() {
        SamplingLeakDetector detector = detector(1);

        RetainableByteBuffer buffer = detector.acquire(10, true);

        assertInstanceOf(SampledByteBuffer.class, buffer);
        assertEquals(1, detector.sampled());
        assertTrue(buffer.release());
        assertEquals(1, delegate.statistics(true).pooled(), "the final release gave the buffer back");
    }

    @Test
    void watchesAboutOneAcquisitionInTheInterval() {
        SamplingLeakDetector detector = detector(1000);
        int acquisitions = 100_000;
        int unwatched = 0;

        for (int i = 0; i < acquisitions; i++) {
            RetainableByteBuffer buffer = detector.acquire(10, false);
            if (buffer instanceof CountedByteBuffer) {
                unwatched++; // the delegate's own buffer, returned as it is
            }
            buffer.release();
        }

        // 100 expected; the bounds are more than 6 standard deviations away.
        long sampled = detector.sampled();
        assertTrue(sampled >= 40 && sampled <= 200, () -> sampled + " watched");
        assertEquals(acquisitions - sampled, unwatched);
    }

    @Test
    void aWatchedBufferCountsLikeAnyOther() {
        SamplingLeakDetector detector = detector(1);
        RetainableByteBuffer buffer = detector.acquire(10, true);
        buffer.retain();

        assertTrue(buffer.isRetained());
        assertFalse(buffer.release());
        assertTrue(buffer.release());
        assertThrows(IllegalStateException.class, buffer::release);
        assertEquals(1, delegate.statistics(true).released(), "the delegate was released exactly once");
    }

    @Test
    void rejectsANonPositiveInterval() {
        IllegalArgumentException failure =
                assertThrows(IllegalArgumentException.class, () -> new SamplingLeakDetector(delegate, 0));

        assertTrue(failure.getMessage().contains("0"), failure.getMessage());
    }

    @Test
    void toStringShowsTheCounters() {
        SamplingLeakDetector detector = detector(1);
        detector.acquire(10, true).release();

        String string = detector.toString();

        assertTrue(string.contains("sampleInterval=1,sampled=1,leaks=0"), string);
    }

    /** Asks for garbage collections until the cleaner reports a leak, for at most 30 s. */
    private SamplingLeakDetector.Leak awaitReport() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() - deadline < 0) {
            System.gc();
            SamplingLeakDetector.Leak leak = reports.poll(20, TimeUnit.MILLISECONDS);
            if (leak != null) {
                return leak;
            }
        }
        throw new AssertionError("no leak reported within 30 s of garbage collections");
    }
}
