package dev.quarry.core.buffer;

import dev.quarry.core.Dumpable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A {@link ByteBufferPool} that keeps idle buffers in size buckets, separately for direct and heap buffers.
 *
 * <p><b>Buckets.</b> A request for {@code n} bytes is served from the bucket of capacity {@code n} rounded up to a
 * multiple of the {@linkplain Builder#factor(int) factor} (4096 by default; a request for 0 bytes gets one factor's
 * worth), up to the {@linkplain Builder#maxCapacity(int) maximum capacity} (64 KiB by default). Larger requests are
 * allocated with exactly the requested capacity and dropped on release: they are counted as misses and drops.
 *
 * <p><b>Limits.</b> Each kind has a memory limit ({@linkplain Builder#maxDirectMemory(long) direct} and
 * {@linkplain Builder#maxHeapMemory(long) heap}, 64 MiB each by default), shared evenly among its buckets, and each
 * bucket keeps at most {@linkplain Builder#maxBucketSize(int) maxBucketSize} buffers (1024 by default). A bucket's slots
 * are allocated up front to the number of buffers its share allows, so the idle memory of a kind never exceeds its
 * limit, whatever the interleaving of threads; a buffer released into a full bucket is dropped for the garbage
 * collector.
 *
 * <p><b>Thread-safety and cost.</b> Any thread may acquire and release. In steady state both are lock-free and
 * allocation-free: the {@link RetainableByteBuffer} object is pooled together with its {@link ByteBuffer}, each bucket
 * is an array of slots taken and filled by compare-and-set (see {@code BufferBucket}), and the statistics are
 * {@link java.util.concurrent.atomic.LongAdder}s. An acquisition that finds the bucket empty allocates. {@link
 * #statistics(boolean)}, {@link #dump(Appendable, String)} and {@link #toString()} scan every slot: not for hot paths.
 *
 * <p>Buffers are handed out in fill mode: position 0, limit = capacity, big-endian.
 */
public final class BucketedByteBufferPool implements ByteBufferPool, Dumpable {

    /** Default bucket granularity: 4 KiB. */
    public static final int DEFAULT_FACTOR = 4096;
    /** Default largest pooled capacity: 64 KiB. */
    public static final int DEFAULT_MAX_CAPACITY = 64 * 1024;
    /** Default limit of idle memory for each kind: 64 MiB. */
    public static final long DEFAULT_MAX_MEMORY = 64L * 1024 * 1024;
    /** Default limit of idle buffers in one bucket. */
    public static final int DEFAULT_MAX_BUCKET_SIZE = 1024;

    private final int factor;
    private final int maxCapacity;
    private final int maxBucketSize;
    private final Kind direct;
    private final Kind heap;

    /** A pool with the default configuration: 4 KiB steps up to 64 KiB, 64 MiB of each kind. */
    public BucketedByteBufferPool() {
        this(builder());
    }

    private BucketedByteBufferPool(Builder builder) {
        this.factor = builder.factor;
        this.maxCapacity = builder.maxCapacity;
        this.maxBucketSize = builder.maxBucketSize;
        this.direct = new Kind(true, builder.maxDirectMemory, factor, maxCapacity, maxBucketSize);
        this.heap = new Kind(false, builder.maxHeapMemory, factor, maxCapacity, maxBucketSize);
    }

    /** @return a builder with the default configuration */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the bucket granularity: pooled capacities are multiples of it */
    public int factor() {
        return factor;
    }

    /** @return the largest pooled capacity */
    public int maxCapacity() {
        return maxCapacity;
    }

    /** @return the limit of idle direct memory, in bytes */
    public long maxDirectMemory() {
        return direct.maxMemory;
    }

    /** @return the limit of idle heap memory, in bytes */
    public long maxHeapMemory() {
        return heap.maxMemory;
    }

    /** @return the most idle buffers one bucket keeps */
    public int maxBucketSize() {
        return maxBucketSize;
    }

    /**
     * {@inheritDoc}
     *
     * <p>O(1) and allocation-free when the bucket has an idle buffer near the calling thread's start slot.
     */
    @Override
    public RetainableByteBuffer acquire(int minCapacity, boolean direct) {
        if (minCapacity < 0) {
            throw new IllegalArgumentException("minCapacity must not be negative: " + minCapacity);
        }
        Kind kind = direct ? this.direct : this.heap;
        kind.counters.acquired.increment();
        if (minCapacity > maxCapacity) {
            kind.counters.misses.increment();
            ByteBuffer buffer = direct ? ByteBuffer.allocateDirect(minCapacity) : ByteBuffer.allocate(minCapacity);
            return new CountedByteBuffer(buffer, kind.counters);
        }
        int index = minCapacity <= factor ? 0 : (minCapacity - 1) / factor;
        return kind.buckets[index].acquire();
    }

    @Override
    public BufferPoolStatistics statistics(boolean direct) {
        return (direct ? this.direct : this.heap).statistics();
    }

    @Override
    public void clear() {
        direct.clear();
        heap.clear();
    }

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        out.append(toString()).append(System.lineSeparator());
        direct.dump(out, indent + "  ");
        heap.dump(out, indent + "  ");
    }

    @Override
    public String toString() {
        return String.format(
                "%s@%x{factor=%d,maxCapacity=%d,maxBucketSize=%d,direct=%s,heap=%s}",
                getClass().getSimpleName(),
                System.identityHashCode(this),
                factor,
                maxCapacity,
                maxBucketSize,
                direct.summary(),
                heap.summary());
    }

    /** The buckets and counters of one kind of buffer (direct or heap). */
    private static final class Kind {
        final boolean direct;
        final long maxMemory;
        final PoolCounters counters = new PoolCounters();
        final BufferBucket[] buckets;

        Kind(boolean direct, long maxMemory, int factor, int maxCapacity, int maxBucketSize) {
            this.direct = direct;
            this.maxMemory = maxMemory;
            int bucketCount = maxCapacity / factor;
            long share = maxMemory / bucketCount;
            this.buckets = new BufferBucket[bucketCount];
            for (int index = 0; index < bucketCount; index++) {
                int capacity = (index + 1) * factor;
                int maxBuffers = (int) Math.min(maxBucketSize, share / capacity);
                buckets[index] = new BufferBucket(capacity, direct, maxBuffers, counters);
            }
        }

        BufferPoolStatistics statistics() {
            long pooled = 0;
            long pooledMemory = 0;
            for (BufferBucket bucket : buckets) {
                int count = bucket.pooled();
                pooled += count;
                pooledMemory += (long) count * bucket.capacity();
            }
            return counters.snapshot(pooled, pooledMemory);
        }

        void clear() {
            for (BufferBucket bucket : buckets) {
                bucket.clear();
            }
        }

        String summary() {
            BufferPoolStatistics statistics = statistics();
            return String.format(
                    "[pooled=%d,memory=%d/%d,acquired=%d,released=%d,misses=%d,dropped=%d]",
                    statistics.pooled(),
                    statistics.pooledMemory(),
                    maxMemory,
                    statistics.acquired(),
                    statistics.released(),
                    statistics.misses(),
                    statistics.dropped());
        }

        void dump(Appendable out, String indent) throws IOException {
            out.append(indent)
                    .append(direct ? "direct " : "heap ")
                    .append(summary())
                    .append(System.lineSeparator());
            for (BufferBucket bucket : buckets) {
                int pooled = bucket.pooled();
                if (pooled > 0) {
                    out.append(indent).append("  ").append(bucket.toString()).append(System.lineSeparator());
                }
            }
        }
    }

    /**
     * Configuration of a {@link BucketedByteBufferPool}. Not thread-safe; {@link #build()} may be called more than
     * once, each time for a new pool.
     */
    public static final class Builder {
        private int factor = DEFAULT_FACTOR;
        private int maxCapacity = DEFAULT_MAX_CAPACITY;
        private long maxDirectMemory = DEFAULT_MAX_MEMORY;
        private long maxHeapMemory = DEFAULT_MAX_MEMORY;
        private int maxBucketSize = DEFAULT_MAX_BUCKET_SIZE;

        private Builder() {}

        /**
         * @param factor the bucket granularity in bytes: pooled capacities are multiples of it (default 4096)
         * @return this builder
         * @throws IllegalArgumentException if {@code factor} is not positive
         */
        public Builder factor(int factor) {
            if (factor <= 0) {
                throw new IllegalArgumentException("factor must be positive: " + factor);
            }
            this.factor = factor;
            return this;
        }

        /**
         * @param maxCapacity the largest pooled capacity in bytes, a multiple of the factor (default 64 KiB); larger
         *     requests are allocated and dropped
         * @return this builder
         * @throws IllegalArgumentException if {@code maxCapacity} is not positive
         */
        public Builder maxCapacity(int maxCapacity) {
            if (maxCapacity <= 0) {
                throw new IllegalArgumentException("maxCapacity must be positive: " + maxCapacity);
            }
            this.maxCapacity = maxCapacity;
            return this;
        }

        /**
         * @param maxDirectMemory the most bytes of idle direct buffers kept (default 64 MiB); 0 pools no direct
         *     buffer
         * @return this builder
         * @throws IllegalArgumentException if {@code maxDirectMemory} is negative
         */
        public Builder maxDirectMemory(long maxDirectMemory) {
            if (maxDirectMemory < 0) {
                throw new IllegalArgumentException("maxDirectMemory must not be negative: " + maxDirectMemory);
            }
            this.maxDirectMemory = maxDirectMemory;
            return this;
        }

        /**
         * @param maxHeapMemory the most bytes of idle heap buffers kept (default 64 MiB); 0 pools no heap buffer
         * @return this builder
         * @throws IllegalArgumentException if {@code maxHeapMemory} is negative
         */
        public Builder maxHeapMemory(long maxHeapMemory) {
            if (maxHeapMemory < 0) {
                throw new IllegalArgumentException("maxHeapMemory must not be negative: " + maxHeapMemory);
            }
            this.maxHeapMemory = maxHeapMemory;
            return this;
        }

        /**
         * @param maxBucketSize the most idle buffers one bucket keeps (default 1024), which also bounds the length of
         *     a bucket scan
         * @return this builder
         * @throws IllegalArgumentException if {@code maxBucketSize} is negative
         */
        public Builder maxBucketSize(int maxBucketSize) {
            if (maxBucketSize < 0) {
                throw new IllegalArgumentException("maxBucketSize must not be negative: " + maxBucketSize);
            }
            this.maxBucketSize = maxBucketSize;
            return this;
        }

        /**
         * @return a new pool with this configuration
         * @throws IllegalArgumentException if the maximum capacity is not a multiple of the factor
         */
        public BucketedByteBufferPool build() {
            if (maxCapacity % factor != 0) {
                throw new IllegalArgumentException(
                        "maxCapacity " + maxCapacity + " must be a multiple of factor " + factor);
            }
            return new BucketedByteBufferPool(this);
        }
    }
}
