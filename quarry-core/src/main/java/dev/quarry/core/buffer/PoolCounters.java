package dev.quarry.core.buffer;

import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of one kind of buffer in a pool. {@link LongAdder}s rather than atomic longs: every acquisition and
 * release from every thread increments them, and an adder spreads contended increments over per-thread cells (created
 * once, on the first contention) instead of bouncing one cache line between cores.
 *
 * <p>Also the {@link CountedByteBuffer.Recycler} of the buffers the pool does not keep (larger than its largest
 * bucket, or from a non-pooling pool): their release is counted and the buffer dropped.
 */
final class PoolCounters implements CountedByteBuffer.Recycler {

    final LongAdder acquired = new LongAdder();
    final LongAdder released = new LongAdder();
    final LongAdder misses = new LongAdder();
    final LongAdder dropped = new LongAdder();

    @Override
    public void recycle(CountedByteBuffer buffer) {
        released.increment();
        dropped.increment();
    }

    /**
     * @param pooled idle buffers kept
     * @param pooledMemory their total capacity
     * @return the counters with the given pool contents
     */
    BufferPoolStatistics snapshot(long pooled, long pooledMemory) {
        return new BufferPoolStatistics(
                acquired.sum(), released.sum(), misses.sum(), dropped.sum(), pooled, pooledMemory);
    }
}
