package dev.quarry.core.buffer;

import dev.quarry.core.Dumpable;
import java.io.IOException;
import java.lang.ref.Cleaner;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * A {@link ByteBufferPool} wrapper for production that watches one acquisition in {@code sampleInterval}, chosen at
 * random, and logs a warning with the acquisition site when a watched buffer is garbage-collected without having been
 * released. Leaks are usually systematic (a code path that forgets to release), so sampling finds them with a fraction
 * of the cost of tracking every buffer as {@link LeakTrackingByteBufferPool} does in tests.
 *
 * <p>Off by default: nothing wraps a pool in a detector unless the application does, for example with
 * {@code new SamplingLeakDetector(pool, SamplingLeakDetector.DEFAULT_SAMPLE_INTERVAL)}.
 *
 * <p><b>Cost.</b> An acquisition that is not sampled costs one {@link ThreadLocalRandom} draw (a few nanoseconds, no
 * allocation, no shared write) on top of the delegate's, and returns the delegate's buffer itself. A sampled one
 * allocates a wrapper, captures a stack (a few microseconds, depending on its depth) and registers with a
 * {@link Cleaner}; its final release deregisters. With the default interval of 1024 the amortized cost is a few
 * nanoseconds per acquisition. A leak is reported only after a garbage collection finds the wrapper unreachable, so
 * reports come late and, for leaks that are rare, may never come.
 *
 * <p><b>Thread-safety.</b> Safe for concurrent use. Reports are made on the cleaner's thread.
 */
public final class SamplingLeakDetector implements ByteBufferPool, Dumpable {

    /** One acquisition in 1024 is watched, by default. */
    public static final int DEFAULT_SAMPLE_INTERVAL = 1024;

    private static final System.Logger LOG = System.getLogger(SamplingLeakDetector.class.getName());

    /** One cleaner thread for every detector in the process, started on first use. */
    private static final class CleanerHolder {
        static final Cleaner CLEANER = Cleaner.create();
    }

    private final ByteBufferPool delegate;
    private final int sampleInterval;
    private final Consumer<Leak> reporter;
    private final LongAdder sampled = new LongAdder();
    private final LongAdder leaks = new LongAdder();

    /**
     * Watches one acquisition in {@code sampleInterval} of the given pool; leaks are logged as warnings.
     *
     * @param delegate the pool that provides the buffers
     * @param sampleInterval 1 to watch every acquisition, {@code n} to watch one in {@code n} on average
     * @throws IllegalArgumentException if {@code sampleInterval} is not positive
     */
    public SamplingLeakDetector(ByteBufferPool delegate, int sampleInterval) {
        this(delegate, sampleInterval, SamplingLeakDetector::log);
    }

    /**
     * The test hook: reports go to {@code reporter} instead of the log.
     *
     * @param reporter receives each leak, on the cleaner's thread
     */
    SamplingLeakDetector(ByteBufferPool delegate, int sampleInterval, Consumer<Leak> reporter) {
        if (sampleInterval <= 0) {
            throw new IllegalArgumentException("sampleInterval must be positive: " + sampleInterval);
        }
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.sampleInterval = sampleInterval;
        this.reporter = Objects.requireNonNull(reporter, "reporter");
    }

    /** @return the pool that provides the buffers */
    public ByteBufferPool delegate() {
        return delegate;
    }

    /** @return one acquisition in this many is watched, on average */
    public int sampleInterval() {
        return sampleInterval;
    }

    /** @return how many acquisitions have been watched */
    public long sampled() {
        return sampled.sum();
    }

    /** @return how many watched buffers were garbage-collected without having been released */
    public long leaks() {
        return leaks.sum();
    }

    @Override
    public RetainableByteBuffer acquire(int minCapacity, boolean direct) {
        RetainableByteBuffer buffer = delegate.acquire(minCapacity, direct);
        if (sampleInterval > 1 && ThreadLocalRandom.current().nextInt(sampleInterval) != 0) {
            return buffer;
        }
        sampled.increment();
        return new SampledByteBuffer(buffer, this, CleanerHolder.CLEANER);
    }

    @Override
    public BufferPoolStatistics statistics(boolean direct) {
        return delegate.statistics(direct);
    }

    @Override
    public void clear() {
        delegate.clear();
    }

    /** Called on the cleaner's thread for each watched buffer found unreachable and unreleased. */
    void report(Leak leak) {
        leaks.increment();
        try {
            reporter.accept(leak);
        } catch (RuntimeException x) {
            // The cleaner's thread would swallow it; say that the report itself failed.
            LOG.log(System.Logger.Level.ERROR, "Could not report " + leak.report(), x);
        }
    }

    private static void log(Leak leak) {
        LOG.log(System.Logger.Level.WARNING, leak::report);
    }

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        out.append(toString()).append(System.lineSeparator());
    }

    @Override
    public String toString() {
        return String.format(
                "%s@%x{sampleInterval=%d,sampled=%d,leaks=%d,delegate=%s}",
                getClass().getSimpleName(),
                System.identityHashCode(this),
                sampleInterval,
                sampled.sum(),
                leaks.sum(),
                delegate);
    }

    /**
     * A watched buffer that was garbage-collected without having been released. The buffer itself is gone; its
     * delegate pool never gets it back.
     *
     * @param buffer a description of the buffer as it was acquired
     * @param thread the name of the thread that acquired it
     * @param acquisitionSite the stack of the acquisition, innermost frame first
     */
    public record Leak(String buffer, String thread, List<StackTraceElement> acquisitionSite) {

        /** @return the buffer, the thread and the stack, formatted like a stack trace */
        public String report() {
            return AcquisitionSite.format(
                    "LEAK: " + buffer + " acquired by thread '" + thread
                            + "' was garbage-collected without being released",
                    acquisitionSite);
        }
    }
}
