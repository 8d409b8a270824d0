package dev.quarry.core.buffer;

import dev.quarry.core.Dumpable;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link ByteBufferPool} for tests that tracks every buffer it hands out: where each was acquired, which are not
 * released yet ({@link #leaks()}), and every release past zero ({@link #doubleReleases()}). {@link #assertNoLeaks()}
 * fails with the acquisition stack of each leaked buffer, so that a test report shows where the leak comes from.
 *
 * <p>Each acquisition gets its own wrapper with its own reference count around the delegate pool's buffer, so a stale
 * holder's second release, or its use of {@link RetainableByteBuffer#byteBuffer()} after release, is caught even after
 * the delegate buffer has gone to another holder. Consequently a buffer acquired again after release is a different
 * object, unlike with the delegate pool itself.
 *
 * <p><b>Thread-safety and cost.</b> Safe for concurrent use. Each acquisition allocates a wrapper and captures a stack
 * (microseconds), each final release captures another: the tier of leak detection for tests. Production code uses
 * {@link SamplingLeakDetector} instead.
 */
public final class LeakTrackingByteBufferPool implements ByteBufferPool, Dumpable {

    private final ByteBufferPool delegate;
    private final Set<TrackedByteBuffer> outstanding = ConcurrentHashMap.newKeySet();
    private final Queue<String> doubleReleases = new ConcurrentLinkedQueue<>();
    private final LongAdder acquired = new LongAdder();

    /** Tracks buffers of a new {@link BucketedByteBufferPool} with the default configuration. */
    public LeakTrackingByteBufferPool() {
        this(new BucketedByteBufferPool());
    }

    /**
     * Tracks buffers of the given pool.
     *
     * @param delegate the pool that provides the buffers
     */
    public LeakTrackingByteBufferPool(ByteBufferPool delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** @return the pool that provides the buffers */
    public ByteBufferPool delegate() {
        return delegate;
    }

    @Override
    public RetainableByteBuffer acquire(int minCapacity, boolean direct) {
        AcquisitionSite site = new AcquisitionSite();
        TrackedByteBuffer buffer = new TrackedByteBuffer(this, delegate.acquire(minCapacity, direct), site);
        outstanding.add(buffer);
        acquired.increment();
        return buffer;
    }

    @Override
    public BufferPoolStatistics statistics(boolean direct) {
        return delegate.statistics(direct);
    }

    @Override
    public void clear() {
        delegate.clear();
    }

    /** @return the number of buffers acquired through this pool */
    public long acquired() {
        return acquired.sum();
    }

    /**
     * The buffers acquired and not released yet. Cost: builds every leaked buffer's stack trace.
     *
     * @return one entry per leaked buffer, in no particular order
     */
    public List<Leak> leaks() {
        List<Leak> leaks = new ArrayList<>();
        for (TrackedByteBuffer buffer : outstanding) {
            AcquisitionSite site = buffer.acquired();
            leaks.add(new Leak(buffer, site.thread(), site.frames()));
        }
        return List.copyOf(leaks);
    }

    /** @return a report of every release past zero seen so far, each naming the buffer and the sites involved */
    public List<String> doubleReleases() {
        return List.copyOf(doubleReleases);
    }

    /**
     * Waits until every buffer has been released, for tests whose buffers are released by other threads shortly after
     * the test's last step. Polls with a sub-millisecond park; returns at once when nothing is outstanding.
     *
     * @param timeout how long to wait at most
     * @return true if no buffer is outstanding, false if some still are when the timeout expires
     */
    public boolean awaitNoLeaks(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!outstanding.isEmpty()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
        }
        return true;
    }

    /**
     * Fails if any buffer is not released, or was released too many times.
     *
     * @throws AssertionError listing the count and the acquisition stack of each leaked buffer, and each double release
     */
    public void assertNoLeaks() {
        List<Leak> leaks = leaks();
        List<String> doubles = doubleReleases();
        if (leaks.isEmpty() && doubles.isEmpty()) {
            return;
        }
        String nl = System.lineSeparator();
        StringBuilder message = new StringBuilder();
        if (!leaks.isEmpty()) {
            message.append(leaks.size())
                    .append(leaks.size() == 1 ? " buffer" : " buffers")
                    .append(" leaked (acquired and never released) from ")
                    .append(this);
            int number = 0;
            for (Leak leak : leaks) {
                message.append(nl).append('#').append(++number).append(' ').append(leak.report());
            }
        }
        if (!doubles.isEmpty()) {
            if (!message.isEmpty()) {
                message.append(nl);
            }
            message.append(doubles.size())
                    .append(doubles.size() == 1 ? " buffer" : " buffers")
                    .append(" released more times than acquired and retained");
            for (String report : doubles) {
                message.append(nl).append(report);
            }
        }
        throw new AssertionError(message.toString());
    }

    /**
     * {@link #awaitNoLeaks(Duration)} then {@link #assertNoLeaks()}.
     *
     * @param grace how long to wait for buffers still held by other threads
     * @throws AssertionError as {@link #assertNoLeaks()}
     */
    public void assertNoLeaks(Duration grace) {
        awaitNoLeaks(grace);
        assertNoLeaks();
    }

    void untrack(TrackedByteBuffer buffer) {
        outstanding.remove(buffer);
    }

    String recordDoubleRelease(TrackedByteBuffer buffer, AcquisitionSite firstRelease, AcquisitionSite secondRelease) {
        String nl = System.lineSeparator();
        String report = "release() of a buffer already released: " + buffer + nl
                + AcquisitionSite.format(
                        "acquired by thread '" + buffer.acquired().thread() + "'",
                        buffer.acquired().frames())
                + nl
                + (firstRelease == null
                        ? "first released concurrently with the second release"
                        : AcquisitionSite.format(
                                "first released by thread '" + firstRelease.thread() + "'", firstRelease.frames()))
                + nl
                + AcquisitionSite.format(
                        "released again by thread '" + secondRelease.thread() + "'", secondRelease.frames());
        doubleReleases.add(report);
        return report;
    }

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        out.append(toString()).append(System.lineSeparator());
        for (TrackedByteBuffer buffer : outstanding) {
            out.append(indent).append("  ").append(buffer.toString()).append(System.lineSeparator());
        }
    }

    @Override
    public String toString() {
        return String.format(
                "%s@%x{acquired=%d,outstanding=%d,doubleReleases=%d,delegate=%s}",
                getClass().getSimpleName(),
                System.identityHashCode(this),
                acquired.sum(),
                outstanding.size(),
                doubleReleases.size(),
                delegate);
    }

    /**
     * A buffer acquired and not released.
     *
     * @param buffer the leaked buffer, which the caller may still release
     * @param thread the name of the thread that acquired it
     * @param acquisitionSite the stack of the acquisition, innermost frame first, starting at the caller of
     *     {@link #acquire(int, boolean)}
     */
    public record Leak(RetainableByteBuffer buffer, String thread, List<StackTraceElement> acquisitionSite) {

        /** @return the buffer, the thread and the stack, formatted like a stack trace */
        public String report() {
            return AcquisitionSite.format(buffer + " acquired by thread '" + thread + "'", acquisitionSite);
        }
    }
}
