package dev.quarry.io;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Work that must run on a selector's producing thread (registering a channel, syncing a key's interest ops), queued
 * on an intrusive lock-free stack: the update is its own node, so submitting allocates nothing, and an update object
 * that is already queued is not queued twice.
 *
 * <p>Thread-safety: {@link ManagedSelector#submit(SelectorUpdate)} may be called from any thread; {@link #update()}
 * runs on the selector's producing thread.
 */
public abstract class SelectorUpdate {
    private static final VarHandle QUEUED;

    static {
        try {
            QUEUED = MethodHandles.lookup().findVarHandle(SelectorUpdate.class, "queued", boolean.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    // Written by the submitting thread before the publishing CAS, read by the selector after the draining swap.
    SelectorUpdate next;

    @SuppressWarnings("unused") // through QUEUED
    private volatile boolean queued;

    /** Runs on the selector's producing thread. */
    protected abstract void update();

    /** Called instead of {@link #update()} when the selector stopped before it could run. */
    protected void onSelectorStopped() {}

    boolean tryMarkQueued() {
        return QUEUED.compareAndSet(this, false, true);
    }

    void clearQueued() {
        queued = false;
    }
}
