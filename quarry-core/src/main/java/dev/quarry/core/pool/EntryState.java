package dev.quarry.core.pool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The state machine of one pool entry, packed in a single {@code long} so that every transition (acquire, release,
 * enable, remove, close) is one compare-and-set. Layout of the word:
 *
 * <pre>
 *   bits 63-62  lifecycle   00 OPEN (enabled), 11 RESERVED (not enabled yet), 10 CLOSED (removed, or pool closed)
 *   bits 61-32  usage       how many times the entry was acquired, saturating at 2^30 - 1
 *   bits 31-0   holders     acquisitions not yet released: the multiplex count, 0 when idle
 * </pre>
 *
 * <p>Both lifecycles that forbid acquiring have bit 63 set, so the first test of an acquire is a sign test. Keeping the
 * holder count when an entry is closed is what lets exactly one party learn that it must close the pooled object: the
 * one whose transition leaves the entry CLOSED with no holders (see {@link #leave()}).
 *
 * <p>Thread-safe and lock-free: a failed CAS only means another thread moved the word, and the loop re-checks the limits
 * against the new value. Allocation-free. The word sits between {@link EntryLeftPadding} and {@link EntryRightPadding}
 * so that it owns its cache line.
 */
abstract class EntryState extends EntryLeftPadding {
    static final long OPEN = 0L;
    static final long RESERVED = 3L << 62;
    static final long CLOSED = 1L << 63;
    static final long LIFECYCLE = 3L << 62;
    static final long USAGE = ((1L << 30) - 1) << 32;
    static final long ONE_USE = 1L << 32;
    static final long HOLDERS = 0xFFFF_FFFFL;
    /** The largest usage count the word can hold; also the largest {@code maxUsage} a pool accepts. */
    static final int MAX_USAGE = (1 << 30) - 1;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(EntryState.class, "state", long.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    // Read directly where a volatile read is all we need, written only through STATE.
    private volatile long state = RESERVED;

    /**
     * The entry's own limit on holders, below the pool's {@code maxMultiplex}: for a pool that mixes objects taking one
     * holder (HTTP/1.1 connections) with objects taking many (HTTP/2). Plain: written only while the entry is reserved,
     * before the CAS that enables it, and read only after a volatile read of {@link #state} saw it enabled, so that CAS
     * publishes it. Beside the state word, on its cache line: checking it costs an acquire no extra line.
     */
    int maxHolders = Integer.MAX_VALUE;

    static long lifecycle(long word) {
        return word & LIFECYCLE;
    }

    static int usage(long word) {
        return (int) ((word & USAGE) >>> 32);
    }

    static int holders(long word) {
        return (int) word;
    }

    /** @return the current state word (a volatile read) */
    final long word() {
        return state;
    }

    /**
     * Acquires the entry if it is open, has fewer than {@code maxMultiplex} holders (and fewer than its own
     * {@link #maxHolders}) and was acquired fewer than
     * {@code usageLimit} times.
     *
     * @param usageLimit the usage limit, {@link Integer#MAX_VALUE} for none (the usage count saturates below it)
     * @return whether the caller now holds the entry
     */
    final boolean tryAcquire(int maxMultiplex, int usageLimit) {
        while (true) {
            // Reading first (test-and-test-and-set) lets a scan skip a busy entry without taking its cache line
            // exclusive, which a failed CAS would do.
            long word = state;
            if (word < 0 || (int) word >= maxMultiplex || (int) word >= maxHolders) {
                return false;
            }
            int usage = (int) (word >>> 32); // word >= 0: the lifecycle bits are zero
            if (usage >= usageLimit) {
                return false;
            }
            long next = usage < MAX_USAGE ? word + ONE_USE + 1 : word + 1;
            if (STATE.compareAndSet(this, word, next)) {
                return true;
            }
        }
    }

    /** {@link #tryAcquireOnce} took the entry. */
    static final int ACQUIRED = 1;
    /** {@link #tryAcquireOnce} found the entry closed, reserved, full or worn out. */
    static final int UNAVAILABLE = 0;
    /** {@link #tryAcquireOnce} lost a race: another thread changed the word, and the entry may still have room. */
    static final int CONTENDED = -1;

    /**
     * Tries once to acquire the entry, without retrying a lost race: the pooling article's scan moves on to the next
     * entry rather than fight for this one, which spreads the load when many threads want the same early entry.
     *
     * @return {@link #ACQUIRED}, {@link #UNAVAILABLE} or {@link #CONTENDED}
     */
    final int tryAcquireOnce(int maxMultiplex, int usageLimit) {
        long word = state;
        if (word < 0 || (int) word >= maxMultiplex || (int) word >= maxHolders) {
            return UNAVAILABLE;
        }
        int usage = (int) (word >>> 32);
        if (usage >= usageLimit) {
            return UNAVAILABLE;
        }
        long next = usage < MAX_USAGE ? word + ONE_USE + 1 : word + 1;
        return STATE.compareAndSet(this, word, next) ? ACQUIRED : CONTENDED;
    }

    /**
     * Ends one hold of an open entry that may be used again.
     *
     * @return true if the hold ended; false, leaving the hold in place, if the entry is closed or has reached
     *     {@code usageLimit}
     * @throws IllegalStateException if the entry has no holder (released twice, or never acquired)
     */
    final boolean tryRelease(int usageLimit) {
        while (true) {
            long word = state;
            if ((int) word <= 0) {
                throw new IllegalStateException("release of an entry that is not in use: " + describe(word));
            }
            if (word < 0 || usage(word) >= usageLimit) {
                return false;
            }
            if (STATE.compareAndSet(this, word, word - 1)) {
                return true;
            }
        }
    }

    /**
     * Moves a reserved entry to OPEN, optionally with the caller as its first holder.
     *
     * @return true if enabled; false if the entry was closed first (removed, or its pool closed)
     * @throws IllegalStateException if the entry was already enabled
     */
    final boolean tryEnable(boolean acquire) {
        if (STATE.compareAndSet(this, RESERVED, acquire ? OPEN + ONE_USE + 1 : OPEN)) {
            return true;
        }
        long word = state;
        if (lifecycle(word) == CLOSED) {
            return false;
        }
        throw new IllegalStateException("enable of an entry that is not reserved: " + describe(word));
    }

    /**
     * Closes the entry and ends the caller's hold if it has holders (the caller must then be one of them).
     *
     * @return the word before the transition; it is returned unchanged, with no transition, when the entry was
     *     already CLOSED without holders
     */
    final long leave() {
        while (true) {
            long word = state;
            int holders = (int) word;
            if (lifecycle(word) == CLOSED && holders == 0) {
                return word;
            }
            long next = CLOSED | (word & USAGE) | (holders > 0 ? holders - 1 : 0);
            if (STATE.compareAndSet(this, word, next)) {
                return word;
            }
        }
    }

    /** @return true if the entry was open and idle and is now closed; false if it was reserved, in use or closed */
    final boolean tryCloseIdle() {
        long word = state;
        while (word >= 0 && (int) word == 0) {
            if (STATE.compareAndSet(this, word, word | CLOSED)) {
                return true;
            }
            word = state;
        }
        return false;
    }

    /**
     * Closes the entry, keeping its holders: their release then fails and they leave with {@link #leave()}.
     *
     * @return the word before the transition (unchanged if already closed)
     */
    final long close() {
        while (true) {
            long word = state;
            if (lifecycle(word) == CLOSED) {
                return word;
            }
            if (STATE.compareAndSet(this, word, CLOSED | (word & (USAGE | HOLDERS)))) {
                return word;
            }
        }
    }

    /** @return the word in words, e.g. {@code OPEN,holders=1,usage=12} */
    static String describe(long word) {
        String lifecycle = switch ((int) (lifecycle(word) >>> 62)) {
            case 0 -> "OPEN";
            case 3 -> "RESERVED";
            default -> "CLOSED";
        };
        return lifecycle + ",holders=" + holders(word) + ",usage=" + usage(word);
    }
}
