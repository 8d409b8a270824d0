package dev.quarry.core.buffer;

/**
 * A snapshot of one kind (direct or heap) of a {@link ByteBufferPool}'s buffers. The counters are read one after the
 * other while other threads keep acquiring and releasing, so under load they are each exact but not mutually
 * consistent: {@link #outstanding()} is then an estimate.
 *
 * @param acquired number of {@link ByteBufferPool#acquire(int, boolean)} calls
 * @param released number of buffers whose reference count reached zero and came back to the pool
 * @param misses number of acquisitions the pool could not serve from its idle buffers, and so allocated a new one
 *     (including requests larger than the pool's largest bucket)
 * @param dropped number of released buffers the pool did not keep (its limit was reached, or the buffer was larger than
 *     its largest bucket) and left to the garbage collector
 * @param pooled number of idle buffers the pool keeps for reuse
 * @param pooledMemory total capacity in bytes of the idle buffers
 */
public record BufferPoolStatistics(
        long acquired, long released, long misses, long dropped, long pooled, long pooledMemory) {

    /** Statistics of a pool that never saw a buffer. */
    public static final BufferPoolStatistics EMPTY = new BufferPoolStatistics(0, 0, 0, 0, 0, 0);

    /** @return buffers acquired and not (yet) released: {@code acquired - released} */
    public long outstanding() {
        return acquired - released;
    }

    /** @return the hits: acquisitions served by reusing an idle buffer, {@code acquired - misses} */
    public long hits() {
        return acquired - misses;
    }
}
