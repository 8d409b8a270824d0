package dev.quarry.core.internal;

/**
 * A platform thread of Quarry's own (pool threads, the timer's ticker) that keeps the {@link NonBlockingFlag} in a
 * field instead of a thread-local, because it is read and written on every produced task.
 *
 * <p>Thread-safety: the field is confined to the thread itself.
 */
public class MarkableThread extends Thread {
    /** Whether this thread must not block now; written and read by this thread only. */
    boolean nonBlocking;

    /**
     * @param group the thread group, or null
     * @param task what the thread runs, or null to run {@link #run()}
     * @param name the thread's name
     * @param inheritThreadLocals whether to inherit inheritable thread-locals
     */
    public MarkableThread(ThreadGroup group, Runnable task, String name, boolean inheritThreadLocals) {
        super(group, task, name, 0, inheritThreadLocals);
    }
}
