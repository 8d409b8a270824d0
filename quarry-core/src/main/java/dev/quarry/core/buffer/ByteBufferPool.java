package dev.quarry.core.buffer;

/**
 * A source of {@link RetainableByteBuffer}s. A buffer's final {@link RetainableByteBuffer#release()} gives it back to
 * the pool it came from; the pool may keep it for the next {@link #acquire(int, boolean)} or drop it.
 *
 * <p>Implementations are safe for use by any number of threads. Buffers are handed out in fill mode (position 0,
 * limit = capacity), see {@link RetainableByteBuffer}.
 */
public interface ByteBufferPool {

    /**
     * A pool that allocates a fresh buffer of exactly the requested capacity for every acquisition and keeps nothing:
     * for tests, and for comparing against pooling. Its statistics count all acquisitions as misses and all releases as
     * drops, process-wide.
     */
    ByteBufferPool NON_POOLING = new NonPoolingByteBufferPool();

    /**
     * Acquires a buffer with one reference, in fill mode (position 0, limit = capacity).
     *
     * @param minCapacity the smallest capacity the caller needs, at least 0; the buffer may be larger
     * @param direct true for a direct (off-heap) buffer, as I/O wants; false for a heap buffer
     * @return a buffer of at least {@code minCapacity} bytes
     * @throws IllegalArgumentException if {@code minCapacity} is negative
     */
    RetainableByteBuffer acquire(int minCapacity, boolean direct);

    /**
     * Statistics of one kind of buffer. Cost: at most linear in the number of idle-buffer slots; not for hot paths.
     *
     * @param direct true for direct buffers, false for heap buffers
     * @return a snapshot of the counters
     */
    BufferPoolStatistics statistics(boolean direct);

    /**
     * Drops every idle buffer the pool keeps, leaving them to the garbage collector. Buffers still held are not
     * affected and come back to the pool when released.
     */
    void clear();
}
