package dev.quarry.core.buffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * The idle buffers of one capacity and kind in a {@link BucketedByteBufferPool}: a fixed array of slots, each empty or
 * holding one idle {@link CountedByteBuffer}. The array's length is the most buffers the bucket may keep, so the pool's
 * memory limit holds by construction, without a shared counter that every thread would write.
 *
 * <p><b>Algorithm.</b> Taking a buffer scans the slots from a start index derived from the calling thread's id and
 * empties the first full slot by compare-and-set; giving one back fills the first empty slot from the same index. A
 * thread that releases what it acquired (the usual pattern) therefore finds its buffer in its first slot, and threads
 * with different ids work in different parts of the array. A scan that finds nothing costs one pass over the slots; to
 * keep a miss on an empty bucket O(1), the bucket keeps a hint, {@link #mayHaveBuffers}, that a full fruitless scan
 * clears and a successful put sets.
 *
 * <p><b>Cost.</b> Lock-free and allocation-free except when allocating a new buffer on a miss. O(1) when a thread
 * finds its own buffers, at worst one pass over the slots.
 *
 * <p><b>The hint's race.</b> A taker that clears the hint after its scan may overwrite the {@code true} written by a
 * concurrent put, hiding that buffer until the next put sets the hint again. Nothing is lost: the hidden buffer still
 * occupies its slot (and the memory limit) and is found again after the next release into this bucket; in between,
 * acquisitions allocate as they would have if the put had come a moment later.
 */
final class BufferBucket implements CountedByteBuffer.Recycler {

    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(CountedByteBuffer[].class);
    private static final VarHandle MAY_HAVE_BUFFERS;

    static {
        try {
            MAY_HAVE_BUFFERS =
                    MethodHandles.lookup().findVarHandle(BufferBucket.class, "mayHaveBuffers", boolean.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final int capacity;
    private final boolean direct;
    private final PoolCounters counters;
    private final CountedByteBuffer[] slots;

    /** False only after a scan found every slot empty; see the class comment for its benign race. */
    @SuppressWarnings("unused") // accessed through MAY_HAVE_BUFFERS
    private boolean mayHaveBuffers;

    /**
     * @param capacity the capacity of every buffer in this bucket
     * @param direct whether the buffers are direct
     * @param maxBuffers the most idle buffers the bucket keeps, possibly 0
     * @param counters the statistics of this bucket's kind
     */
    BufferBucket(int capacity, boolean direct, int maxBuffers, PoolCounters counters) {
        this.capacity = capacity;
        this.direct = direct;
        this.counters = counters;
        this.slots = new CountedByteBuffer[maxBuffers];
    }

    /** @return the capacity of this bucket's buffers */
    int capacity() {
        return capacity;
    }

    /** @return the most idle buffers this bucket keeps */
    int maxBuffers() {
        return slots.length;
    }

    /**
     * Takes an idle buffer, or allocates a new one (a miss) if none is found.
     *
     * @return a buffer with one reference, in fill mode
     */
    CountedByteBuffer acquire() {
        CountedByteBuffer buffer = take();
        if (buffer != null) {
            return buffer.reuse();
        }
        counters.misses.increment();
        return new CountedByteBuffer(
                direct ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity), this);
    }

    @Override
    public void recycle(CountedByteBuffer buffer) {
        counters.released.increment();
        if (!put(buffer)) {
            counters.dropped.increment();
        }
    }

    private CountedByteBuffer take() {
        CountedByteBuffer[] slots = this.slots;
        int length = slots.length;
        if (length == 0 || !(boolean) MAY_HAVE_BUFFERS.getOpaque(this)) {
            return null;
        }
        int index = startIndex(length);
        for (int scanned = 0; scanned < length; scanned++) {
            // Read before compare-and-set: an empty slot costs a read of a shared cache line, not a write to it.
            CountedByteBuffer buffer = (CountedByteBuffer) SLOTS.getOpaque(slots, index);
            if (buffer != null && SLOTS.compareAndSet(slots, index, buffer, (CountedByteBuffer) null)) {
                return buffer;
            }
            if (++index == length) {
                index = 0;
            }
        }
        MAY_HAVE_BUFFERS.setOpaque(this, false);
        return null;
    }

    /**
     * Keeps a released buffer if a slot is free. The slot's compare-and-set publishes the buffer (and the releasing
     * holder's writes to it) to the thread that will take it.
     *
     * @return false if every slot was full and the buffer is dropped
     */
    private boolean put(CountedByteBuffer buffer) {
        CountedByteBuffer[] slots = this.slots;
        int length = slots.length;
        if (length == 0) {
            return false;
        }
        int index = startIndex(length);
        for (int scanned = 0; scanned < length; scanned++) {
            if (SLOTS.getOpaque(slots, index) == null
                    && SLOTS.compareAndSet(slots, index, (CountedByteBuffer) null, buffer)) {
                // Write the hint only when it changes, so that in steady state its cache line stays shared.
                if (!(boolean) MAY_HAVE_BUFFERS.getOpaque(this)) {
                    MAY_HAVE_BUFFERS.setOpaque(this, true);
                }
                return true;
            }
            if (++index == length) {
                index = 0;
            }
        }
        return false;
    }

    /** Empties every slot, leaving the idle buffers to the garbage collector. */
    void clear() {
        for (int index = 0; index < slots.length; index++) {
            SLOTS.setVolatile(slots, index, (CountedByteBuffer) null);
        }
    }

    /** @return the number of idle buffers; exact only when no other thread is taking or putting */
    int pooled() {
        int pooled = 0;
        for (int index = 0; index < slots.length; index++) {
            if (SLOTS.getOpaque(slots, index) != null) {
                pooled++;
            }
        }
        return pooled;
    }

    /**
     * Maps the calling thread to a slot: Fibonacci hashing of its id spreads consecutive ids over the array, and the
     * multiply-shift maps the 32-bit hash onto {@code [0, length)} without a division.
     */
    private static int startIndex(int length) {
        long hash = Thread.currentThread().threadId() * 0x9E3779B97F4A7C15L;
        return (int) (((hash >>> 32) * length) >>> 32);
    }

    @Override
    public String toString() {
        return String.format(
                "%s@%x{%s,capacity=%d,pooled=%d/%d}",
                getClass().getSimpleName(),
                System.identityHashCode(this),
                direct ? "direct" : "heap",
                capacity,
                pooled(),
                slots.length);
    }
}
