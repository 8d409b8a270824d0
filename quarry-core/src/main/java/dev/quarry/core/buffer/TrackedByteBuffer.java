package dev.quarry.core.buffer;

import java.nio.ByteBuffer;

/**
 * One acquisition from a {@link LeakTrackingByteBufferPool}: a wrapper with its own reference count around the
 * delegate pool's buffer, so that a stale release or use is caught even after the delegate buffer has been handed to
 * someone else. The delegate holds exactly one reference, released when this wrapper's count reaches zero.
 *
 * <p>Thread-safety as for {@link RetainableByteBuffer}. Each acquisition allocates this wrapper and captures a stack:
 * for tests, not production.
 */
final class TrackedByteBuffer extends AbstractRetainableByteBuffer {

    private final LeakTrackingByteBufferPool pool;
    private final RetainableByteBuffer delegate;
    private final AcquisitionSite acquired;
    /** Where the final release happened; written once by the releasing thread before the count is read as zero. */
    private volatile AcquisitionSite released;

    TrackedByteBuffer(LeakTrackingByteBufferPool pool, RetainableByteBuffer delegate, AcquisitionSite acquired) {
        this.pool = pool;
        this.delegate = delegate;
        this.acquired = acquired;
    }

    /** @return where this buffer was acquired */
    AcquisitionSite acquired() {
        return acquired;
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalStateException if this holder already released the buffer: its bytes may belong to another
     *     holder by now
     */
    @Override
    public ByteBuffer byteBuffer() {
        if (references() <= 0) {
            throw new IllegalStateException("byteBuffer() of a buffer already released: " + this);
        }
        return delegate.byteBuffer();
    }

    @Override
    void deallocate() {
        released = new AcquisitionSite();
        pool.untrack(this);
        delegate.release();
    }

    @Override
    RuntimeException overReleased() {
        String report = pool.recordDoubleRelease(this, released, new AcquisitionSite());
        return new IllegalStateException(report);
    }

    @Override
    public String toString() {
        return String.format(
                "%s@%x{references=%d,delegate=%s}",
                getClass().getSimpleName(), System.identityHashCode(this), references(), delegate);
    }
}
