package dev.quarry.core.buffer;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;

/**
 * A buffer picked by a {@link SamplingLeakDetector}: a wrapper with its own reference count around the delegate
 * pool's buffer, registered with a {@link Cleaner}. If the holder drops the wrapper without releasing it, the garbage
 * collector finds the wrapper unreachable and the cleaner reports the leak with the acquisition site. A final release
 * cleans the registration at once, so that the cleaner has nothing left to do for a well-behaved buffer.
 *
 * <p>Thread-safety as for {@link RetainableByteBuffer}.
 */
final class SampledByteBuffer extends AbstractRetainableByteBuffer {

    private final RetainableByteBuffer delegate;
    private final Watch watch;
    private final Cleaner.Cleanable cleanable;

    SampledByteBuffer(RetainableByteBuffer delegate, SamplingLeakDetector detector, Cleaner cleaner) {
        this.delegate = delegate;
        this.watch = new Watch(detector, delegate.capacity(), delegate.isDirect(), new AcquisitionSite());
        this.cleanable = cleaner.register(this, watch);
    }

    @Override
    public ByteBuffer byteBuffer() {
        return delegate.byteBuffer();
    }

    @Override
    void deallocate() {
        watch.released = true;
        cleanable.clean();
        delegate.release();
    }

    @Override
    public String toString() {
        return String.format(
                "%s@%x{references=%d,delegate=%s}",
                getClass().getSimpleName(), System.identityHashCode(this), references(), delegate);
    }

    /**
     * The cleaning action. It must not refer to the wrapper, or the wrapper would never become unreachable; it keeps
     * what a report needs instead.
     */
    private static final class Watch implements Runnable {
        private final SamplingLeakDetector detector;
        private final int capacity;
        private final boolean direct;
        private final AcquisitionSite site;
        /** Set by the final release before {@link Cleaner.Cleanable#clean()} runs this action on the same thread. */
        private volatile boolean released;

        Watch(SamplingLeakDetector detector, int capacity, boolean direct, AcquisitionSite site) {
            this.detector = detector;
            this.capacity = capacity;
            this.direct = direct;
            this.site = site;
        }

        @Override
        public void run() {
            if (!released) {
                String buffer = (direct ? "direct" : "heap") + " buffer of capacity " + capacity;
                detector.report(new SamplingLeakDetector.Leak(buffer, site.thread(), site.frames()));
            }
        }
    }
}
