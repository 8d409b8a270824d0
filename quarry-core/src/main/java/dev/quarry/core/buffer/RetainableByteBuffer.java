package dev.quarry.core.buffer;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A {@link ByteBuffer} with a reference count. Whoever acquires one holds one reference; {@link #retain()} adds a
 * reference for another holder (a second consumer of the same bytes, an asynchronous write still in flight) and every
 * holder calls {@link #release()} exactly once. The release that drops the count to zero gives the buffer back to the
 * {@link ByteBufferPool} it came from, after which nobody may touch it again.
 *
 * <p><b>Mode convention.</b> Quarry uses plain NIO <em>fill mode</em> everywhere: a pool hands out a buffer cleared,
 * with position 0 and limit = capacity, ready to be written into (for example by {@code channel.read(buffer)}). The
 * holder calls {@link ByteBuffer#flip()} before reading the bytes back. {@link #remaining()}, {@link #hasRemaining()}
 * and {@link #isEmpty()} describe the bytes between position and limit, whatever mode the holder has put the buffer
 * in.
 *
 * <p><b>Thread-safety.</b> {@link #retain()}, {@link #release()} and {@link #isRetained()} may be called from any
 * thread; the count is changed by compare-and-set, lock-free and allocation-free. The {@link ByteBuffer} itself is not
 * thread-safe: its position, limit and contents belong to one thread at a time, and handing it to another thread needs
 * a happens-before edge (a queue, a lock, a volatile write) like any other mutable object.
 *
 * <p><b>Errors.</b> Releasing more times than the buffer was acquired and retained, or retaining a buffer whose count
 * already reached zero, throws {@link IllegalStateException} naming the buffer. A pooled buffer that was released and
 * then handed to another holder cannot tell a stale release from a legitimate one: the
 * {@link LeakTrackingByteBufferPool} used in tests gives each acquisition its own identity and always catches it.
 */
public interface RetainableByteBuffer {

    /**
     * Wraps a buffer that belongs to no pool: it is counted like a pooled one, and its final release simply lets the
     * garbage collector have it. The buffer is used as it is (its position and limit are not changed).
     *
     * @param buffer the buffer to count references to
     * @return a retainable buffer with one reference
     */
    static RetainableByteBuffer wrap(ByteBuffer buffer) {
        return new CountedByteBuffer(Objects.requireNonNull(buffer, "buffer"), CountedByteBuffer.Recycler.NOWHERE);
    }

    /**
     * The underlying buffer. It must not be used after this holder's {@link #release()}.
     *
     * @return the buffer, never null
     */
    ByteBuffer byteBuffer();

    /**
     * Adds a reference for one more holder, who must call {@link #release()} once. O(1), lock-free.
     *
     * @throws IllegalStateException if the count already reached zero
     */
    void retain();

    /**
     * Drops one reference. O(1), lock-free; allocation-free for pooled buffers.
     *
     * @return true when the count reached zero and the buffer went back to its pool (which may keep it for reuse or
     *     drop it for the garbage collector); false while other holders still retain it
     * @throws IllegalStateException if the buffer was already released as many times as it was acquired and retained
     */
    boolean release();

    /**
     * Whether more than one holder has a reference, that is whether the count is greater than one. A holder that sees
     * {@code false} is the only one and may, for example, reuse the buffer for a new read without copying.
     *
     * @return whether the reference count is greater than one
     */
    boolean isRetained();

    /** @return the capacity of the underlying buffer */
    default int capacity() {
        return byteBuffer().capacity();
    }

    /** @return whether the underlying buffer is direct (off-heap), as the pools give for I/O */
    default boolean isDirect() {
        return byteBuffer().isDirect();
    }

    /** Clears the underlying buffer back to fill mode: position 0, limit = capacity, no mark. */
    default void clear() {
        byteBuffer().clear();
    }

    /**
     * Whether there is nothing between position and limit: after {@link ByteBuffer#flip()}, that no byte is left to
     * read.
     *
     * @return {@code !hasRemaining()}
     */
    default boolean isEmpty() {
        return !byteBuffer().hasRemaining();
    }

    /** @return the number of bytes between position and limit */
    default int remaining() {
        return byteBuffer().remaining();
    }

    /** @return whether there is at least one byte between position and limit */
    default boolean hasRemaining() {
        return byteBuffer().hasRemaining();
    }
}
