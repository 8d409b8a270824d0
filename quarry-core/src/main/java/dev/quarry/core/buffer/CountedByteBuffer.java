package dev.quarry.core.buffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The plain {@link RetainableByteBuffer}: a {@link ByteBuffer} and a reference count, pooled together so that reusing
 * a buffer allocates nothing. Its final release hands it to its {@link Recycler}: a pool bucket, a statistics sink for
 * unpooled buffers, or {@link Recycler#NOWHERE}.
 *
 * <p>Thread-safety as for {@link RetainableByteBuffer}; {@link #reuse()} is only called by the one thread that took the
 * buffer out of a pool slot.
 */
final class CountedByteBuffer extends AbstractRetainableByteBuffer {

    /** Where a buffer goes when its count reaches zero. Called once per acquisition, by the releasing thread. */
    @FunctionalInterface
    interface Recycler {

        /** For buffers that belong to nobody: the garbage collector takes them. */
        Recycler NOWHERE = buffer -> {};

        /**
         * Takes back a buffer whose count reached zero.
         *
         * @param buffer the released buffer, exclusively owned by the caller
         */
        void recycle(CountedByteBuffer buffer);
    }

    private final ByteBuffer buffer;
    private final Recycler recycler;

    CountedByteBuffer(ByteBuffer buffer, Recycler recycler) {
        this.buffer = buffer;
        this.recycler = recycler;
    }

    /**
     * Prepares a buffer taken from a pool for its new holder: fill mode, big-endian (a previous holder may have changed
     * the byte order) and one reference.
     *
     * @return this buffer
     */
    CountedByteBuffer reuse() {
        buffer.clear().order(ByteOrder.BIG_ENDIAN);
        resetReferences();
        return this;
    }

    @Override
    public ByteBuffer byteBuffer() {
        return buffer;
    }

    @Override
    void deallocate() {
        recycler.recycle(this);
    }

    @Override
    public String toString() {
        return String.format(
                "%s@%x{%s,capacity=%d,references=%d,position=%d,limit=%d}",
                getClass().getSimpleName(),
                System.identityHashCode(this),
                buffer.isDirect() ? "direct" : "heap",
                buffer.capacity(),
                references(),
                buffer.position(),
                buffer.limit());
    }
}
