package dev.quarry.core.internal;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

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
 * A virtual thread that holds the mark for its whole life (a selector on a virtual thread, see
 * {@link #runWithOwnMark(Runnable)}) keeps it in a small registry of such threads instead, searched by identity: it
 * would otherwise keep that count above zero for good, and every handler's virtual thread would create its thread-local
 * map to read its mark. The registry holds one entry per selector, so the search is a few comparisons.
 *
 * <p>Thread-safety: every method acts on the current thread only.
 */
public final class NonBlockingFlag {
    private static final ThreadLocal<boolean[]> FLAG = ThreadLocal.withInitial(() -> new boolean[1]);
    /** The threads running {@link #runWithOwnMark(Runnable)} now, with their marks: copied on change, read lock-free. */
    private static final AtomicReference<OwnMark[]> OWN_MARKS = new AtomicReference<>(new OwnMark[0]);

    /** The mark of one thread running {@link #runWithOwnMark(Runnable)}; written by that thread only. */
    private static final class OwnMark {
        final Thread thread;
        boolean set;

        OwnMark(Thread thread) {
            this.thread = thread;
        }
    }

    private static OwnMark ownMark(Thread thread) {
        for (OwnMark mark : OWN_MARKS.get()) {
            if (mark.thread == thread) {
                return mark;
            }
        }
        return null;
    }
    /**
     * Threads other than {@link MarkableThread}s that hold the mark now. A thread sets its own mark after counting it and
     * clears it before uncounting it, so a thread that holds the mark always sees a count above zero.
     */
    private static final AtomicInteger FOREIGN_MARKS = new AtomicInteger();

    private NonBlockingFlag() {}

    /** @return how many threads hold the mark in the counted thread-local now: for tests */
    static int foreignMarks() {
        return FOREIGN_MARKS.get();
    }

    /** @return whether the current thread must not block now */
    public static boolean isSet() {
        Thread current = Thread.currentThread();
        if (current instanceof MarkableThread thread) {
            return thread.nonBlocking;
        }
        OwnMark own = ownMark(current);
        if (own != null) {
            return own.set;
        }
        return FOREIGN_MARKS.get() != 0 && FLAG.get()[0];
    }

    /** @return whether the current thread runs {@link #runWithOwnMark(Runnable)} now (a virtual selector) */
    public static boolean hasOwnMark() {
        return ownMark(Thread.currentThread()) != null;
    }

    /**
     * Runs a task that may set and clear the mark for a long time (a producer's loop on a virtual thread), with the
     * mark kept for it alone: it leaves the count of marked threads alone, so the other virtual threads still read
     * their mark for free.
     *
     * @param task runs on the current thread, without the mark at first
     */
    public static void runWithOwnMark(Runnable task) {
        OwnMark own = new OwnMark(Thread.currentThread());
        OWN_MARKS.updateAndGet(marks -> {
            OwnMark[] more = Arrays.copyOf(marks, marks.length + 1);
            more[marks.length] = own;
            return more;
        });
        try {
            task.run();
        } finally {
            OWN_MARKS.updateAndGet(marks -> {
                OwnMark[] fewer = new OwnMark[marks.length - 1];
                int i = 0;
                for (OwnMark mark : marks) {
                    if (mark != own) {
                        fewer[i++] = mark;
                    }
                }
                return fewer;
            });
        }
    }

    /**
     * Sets the mark on the current thread.
     *
     * @return whether it was already set, in which case the caller must not clear it
     */
    public static boolean set() {
        Thread current = Thread.currentThread();
        if (current instanceof MarkableThread thread) {
            boolean was = thread.nonBlocking;
            thread.nonBlocking = true;
            return was;
        }
        OwnMark own = ownMark(current);
        if (own != null) {
            boolean was = own.set;
            own.set = true;
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
        Thread current = Thread.currentThread();
        if (current instanceof MarkableThread thread) {
            thread.nonBlocking = false;
            return;
        }
        OwnMark own = ownMark(current);
        if (own != null) {
            own.set = false;
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
