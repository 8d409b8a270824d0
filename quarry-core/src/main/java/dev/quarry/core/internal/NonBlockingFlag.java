package dev.quarry.core.internal;

/**
 * The per-thread flag behind {@link dev.quarry.core.Invocable#invokeNonBlocking(Runnable)}. A one-element array is
 * stored rather than a {@code Boolean} so that setting and clearing never touch the thread-local map again.
 */
public final class NonBlockingFlag {
    private static final ThreadLocal<boolean[]> FLAG = ThreadLocal.withInitial(() -> new boolean[1]);

    private NonBlockingFlag() {}

    /** Whether the current thread runs in non-blocking mode. */
    public static boolean isSet() {
        return FLAG.get()[0];
    }

    /**
     * Sets the flag on the current thread.
     *
     * @return whether it was already set, in which case the caller must not clear it
     */
    public static boolean set() {
        boolean[] flag = FLAG.get();
        if (flag[0]) {
            return true;
        }
        flag[0] = true;
        return false;
    }

    /** Clears the flag on the current thread. */
    public static void clear() {
        FLAG.get()[0] = false;
    }
}
