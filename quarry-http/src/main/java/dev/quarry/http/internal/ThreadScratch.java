package dev.quarry.http.internal;

import dev.quarry.core.thread.VirtualProducerThreads;

/**
 * Scratch byte arrays lent to code that fills and reads them within one call and trusts nothing in them afterwards
 * (the HTTP/1 parser's window over a direct buffer, the generator's head bytes): one per platform thread and kind,
 * instead of one per connection, since every idle connection would keep its own (two arrays of 256 bytes each, a fifth
 * of an idle connection's heap). A connection borrows again at each call, so a reference it keeps in between costs
 * nothing and is never used by two threads.
 *
 * <p>Virtual threads are many and short-lived: {@link #get()} gives them null, and the caller uses an array of its own
 * (a connection served on virtual threads keeps one, as before). Virtual selector threads ({@link
 * VirtualProducerThreads}) are the exception: few and as long-lived as platform selectors, they get arrays of their
 * own, so that their idle connections keep none.
 *
 * <p>Thread-safety: each array is confined to its thread. Cost: a thread-local lookup per call; nothing allocated
 * after a thread's first use, unless a caller grows its array.
 */
public final class ThreadScratch {
    private final ThreadLocal<byte[]> arrays;

    /** @param initialSize the size of a thread's array at first use */
    public ThreadScratch(int initialSize) {
        this.arrays = ThreadLocal.withInitial(() -> new byte[initialSize]);
    }

    /** @return the calling platform thread's (or virtual selector's) array, or null on another virtual thread */
    public byte[] get() {
        return lends() ? arrays.get() : null;
    }

    private static boolean lends() {
        return !Thread.currentThread().isVirtual() || VirtualProducerThreads.isCurrentThread();
    }

    /**
     * Keeps a grown array as the calling thread's, for its next callers; nothing on a virtual thread.
     *
     * @param grown the array that replaces the thread's
     */
    public void keep(byte[] grown) {
        if (lends()) {
            arrays.set(grown);
        }
    }
}
