package dev.quarry.core.internal;

/**
 * The per-thread "must not block" mark behind {@link dev.quarry.core.Invocable#invokeNonBlocking(Runnable)}: set while
 * a thread produces (selects) or runs a task declared non-blocking, and read by whoever must decide whether the current
 * thread may block (the handler dispatch point, an {@code EITHER} task, the blocking detector of the tests).
 *
 * <p>Quarry's own threads ({@link MarkableThread}) keep the mark in a field: setting, clearing and reading it is a type
 * check and a plain field access. Other threads (virtual threads, a user's threads) keep it in a thread-local one-element
 * array, so that setting and clearing never touch the thread-local map again.
 *
 * <p>Thread-safety: every method acts on the current thread only.
 */
public final class NonBlockingFlag {
    private static final ThreadLocal<boolean[]> FLAG = ThreadLocal.withInitial(() -> new boolean[1]);

    private NonBlockingFlag() {}

    /** @return whether the current thread must not block now */
    public static boolean isSet() {
        return Thread.currentThread() instanceof MarkableThread thread ? thread.nonBlocking : FLAG.get()[0];
    }

    /**
     * Sets the mark on the current thread.
     *
     * @return whether it was already set, in which case the caller must not clear it
     */
    public static boolean set() {
        if (Thread.currentThread() instanceof MarkableThread thread) {
            boolean was = thread.nonBlocking;
            thread.nonBlocking = true;
            return was;
        }
        boolean[] flag = FLAG.get();
        if (flag[0]) {
            return true;
        }
        flag[0] = true;
        return false;
    }

    /** Clears the mark on the current thread. */
    public static void clear() {
        if (Thread.currentThread() instanceof MarkableThread thread) {
            thread.nonBlocking = false;
            return;
        }
        FLAG.get()[0] = false;
    }

    /**
     * Restores the mark to what {@link #set()} found.
     *
     * @param wasSet what {@link #set()} returned
     */
    public static void restore(boolean wasSet) {
        if (!wasSet) {
            clear();
        }
    }
}
