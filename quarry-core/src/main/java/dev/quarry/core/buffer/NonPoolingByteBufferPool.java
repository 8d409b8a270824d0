package dev.quarry.core.buffer;

import java.nio.ByteBuffer;

/**
 * {@link ByteBufferPool#NON_POOLING}: every acquisition allocates, every release drops. Thread-safe; the cost of an
 * acquisition is the cost of {@link ByteBuffer#allocate(int)} or {@link ByteBuffer#allocateDirect(int)}.
 */
final class NonPoolingByteBufferPool implements ByteBufferPool {

    private final PoolCounters direct = new PoolCounters();
    private final PoolCounters heap = new PoolCounters();

    @Override
    public RetainableByteBuffer acquire(int minCapacity, boolean direct) {
        if (minCapacity < 0) {
            throw new IllegalArgumentException("minCapacity must not be negative: " + minCapacity);
        }
        PoolCounters counters = direct ? this.direct : this.heap;
        counters.acquired.increment();
        counters.misses.increment();
        ByteBuffer buffer = direct ? ByteBuffer.allocateDirect(minCapacity) : ByteBuffer.allocate(minCapacity);
        return new CountedByteBuffer(buffer, counters);
    }

    @Override
    public BufferPoolStatistics statistics(boolean direct) {
        return (direct ? this.direct : this.heap).snapshot(0, 0);
    }

    @Override
    public void clear() {
        // Nothing is kept, so nothing to drop.
    }

    @Override
    public String toString() {
        return "ByteBufferPool.NON_POOLING{direct=" + statistics(true) + ",heap=" + statistics(false) + "}";
    }
}
