package dev.quarry.core.buffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The reference count shared by every {@link RetainableByteBuffer} in this package. The count is one {@code int}
 * changed by compare-and-set, so retain and release are lock-free, allocation-free and safe from any thread; the
 * release that moves it from one to zero, and only that one, calls {@link #deallocate()}.
 *
 * <p>A count of zero means "released": neither {@link #retain()} nor {@link #release()} may move it from there, which
 * is how an extra release is refused instead of silently corrupting the count of the buffer's next holder.
 */
abstract class AbstractRetainableByteBuffer implements RetainableByteBuffer {

    private static final VarHandle REFERENCES;

    static {
        try {
            REFERENCES =
                    MethodHandles.lookup().findVarHandle(AbstractRetainableByteBuffer.class, "references", int.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    /** Number of holders; 0 once released. Read by any thread, changed only by compare-and-set (or by reuse). */
    @SuppressWarnings("unused") // accessed through REFERENCES
    private volatile int references = 1;

    /**
     * Called once, by the thread whose release dropped the count to zero. Nothing else touches the buffer afterwards,
     * so the implementation may hand it to another holder.
     */
    abstract void deallocate();

    /**
     * The exception for a release past zero. Subclasses may record the event before it is thrown.
     *
     * @return the exception to throw
     */
    RuntimeException overReleased() {
        return new IllegalStateException("release() of a buffer already released: " + this);
    }

    /**
     * Gives the buffer one reference again before it is handed to a new holder. A plain write is enough: the caller
     * took the buffer from a pool slot by compare-and-set, which ordered it after the release that put it there, and
     * the new holder publishes it to other threads like any other object.
     */
    final void resetReferences() {
        REFERENCES.set(this, 1);
    }

    /** @return the current number of holders, 0 once released */
    final int references() {
        return (int) REFERENCES.getVolatile(this);
    }

    @Override
    public final void retain() {
        int current = references();
        while (true) {
            if (current <= 0) {
                throw new IllegalStateException("retain() of a buffer already released: " + this);
            }
            if (current == Integer.MAX_VALUE) {
                throw new IllegalStateException("retain() would overflow the reference count of " + this);
            }
            int witness = (int) REFERENCES.compareAndExchange(this, current, current + 1);
            if (witness == current) {
                return;
            }
            current = witness;
        }
    }

    @Override
    public final boolean release() {
        int current = references();
        while (true) {
            if (current <= 0) {
                throw overReleased();
            }
            // Compare-and-set rather than getAndAdd(-1): a decrement past zero must be refused, not undone later,
            // because in between another thread could already have seen the negative count.
            int witness = (int) REFERENCES.compareAndExchange(this, current, current - 1);
            if (witness == current) {
                if (current == 1) {
                    deallocate();
                    return true;
                }
                return false;
            }
            current = witness;
        }
    }

    @Override
    public final boolean isRetained() {
        return references() > 1;
    }
}
