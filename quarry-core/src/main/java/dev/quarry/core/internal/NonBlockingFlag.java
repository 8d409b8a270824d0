package dev.quarry.core.internal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The per-thread "must not block" mark behind {@link dev.quarry.core.Invocable#invokeNonBlocking(Runnable)}: set while
 * a thread produces (selects) or runs a task declared non-blocking, and read by whoever must decide whether the current
 * thread may block (the handler dispatch point, an {@code EITHER} task, the blocking detector of the tests).
 *
 * <p>Quarry's own threads ({@link MarkableThread}) keep the mark in a field: setting, clearing and reading it is a type
 * check and a plain field access. Other threads (virtual threads, a user's threads) keep it in a thread-local one-element
 * array, so that setting and clearing never touch the thread-local map again. Reading it on such a thread would create
 * the thread's thread-local map (about 160 bytes, per request for a handler's virtual thread), so a count of those
 * threads holding the mark now lets a read answer false without looking while there are none, which is the usual case.
 *
 * <p>Thread-safety: every method acts on the current thread only.
 */
public final class NonBlockingFlag {
    private static final ThreadLocal<boolean[]> FLAG = ThreadLocal.withInitial(() -> new boolean[1]);
    /**
     * Threads other than {@link MarkableThread}s that hold the mark now. A thread sets its own mark after counting it and
     * clears it before uncounting it, so a thread that holds the mark always sees a count above zero.
     */
    private static final AtomicInteger FOREIGN_MARKS = new AtomicInteger();

    private NonBlockingFlag() {}

    /** @return whether the current thread must not block now */
    public static boolean isSet() {
        if (Thread.currentThread() instanceof MarkableThread thread) {
            return thread.nonBlocking;
        }
        return FOREIGN_MARKS.get() != 0 && FLAG.get()[0];
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
        FOREIGN_MARKS.incrementAndGet();
        flag[0] = true;
        return false;
    }

    /** Clears the mark on the current thread. */
    public static void clear() {
        if (Thread.currentThread() instanceof MarkableThread thread) {
            thread.nonBlocking = false;
            return;
        }
        if (FOREIGN_MARKS.get() == 0) {
            return; // no thread of this kind holds the mark, this one neither: nothing to clear, no map to create
        }
        boolean[] flag = FLAG.get();
        if (flag[0]) {
            flag[0] = false;
            FOREIGN_MARKS.decrementAndGet();
        }
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
