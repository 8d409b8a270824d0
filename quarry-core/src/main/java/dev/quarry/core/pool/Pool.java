package dev.quarry.core.pool;

import dev.quarry.core.Dumpable;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * A lock-free pool of expensive objects (connections, deflaters, parsers), each wrapped in an {@link Entry} that says
 * whether it is reserved, idle, in use or closed.
 *
 * <p><b>Design.</b> The entries live in an array that never changes shape on acquire or release: an acquire walks the
 * array from a start index chosen by the {@link PoolStrategy} and tries to take each entry with one CAS on the entry's
 * state word ({@link EntryState}: lifecycle, usage count and multiplex count in one {@code long}); a release is one CAS
 * on the same word. Nothing is dequeued or enqueued, so threads contend only when they want the same entry. Adding and
 * removing entries is rare (an object is created or closed): it replaces the array (copy-on-write) with a CAS on the
 * array reference, retried if another change won, and readers see either the old or the new array. No lock anywhere:
 * a client's selector thread reserves and removes entries, and a selector must never wait for another thread. The design is that of the Jetty blog's "Object Pooling, Benchmarks,
 * and Another Way" (the pooling article below).
 *
 * <p><b>Creating entries asynchronously.</b> {@link #reserve()} adds a reserved entry (counted against
 * {@code maxEntries} as soon as it exists, so concurrent creations never overshoot), the caller creates the object, then
 * {@link Entry#enable(Object, boolean)} makes it available, optionally already acquired. {@link #reservedCount()} counts
 * the reserved entries that are not enabled yet.
 *
 * <p><b>Limits.</b> An entry can be held by up to {@link #maxMultiplex()} holders at once (1 for HTTP/1 connections,
 * more for HTTP/2), changeable at run time. With {@code maxUsage > 0} an entry that was acquired {@code maxUsage} times
 * cannot be acquired again, and its {@link Entry#release()} returns false so that the holder removes and closes it.
 *
 * <p><b>Ending a hold.</b> A holder ends its hold with {@link Entry#release()}; if that returns false (entry closed or
 * worn out) the hold is still in place and the holder calls {@link Entry#remove()}. {@code remove()} returns true to
 * exactly one caller per entry, the one that leaves it closed and without holders: that caller closes the pooled object.
 * So every pooled object is closed exactly once, whether it is removed while idle, while in use, or when the pool
 * closes.
 *
 * <p><b>Thread-safety and cost.</b> Thread-safe. {@link #acquire()} and {@link Entry#release()} are lock-free and
 * allocate nothing (the optional thread-local cache allocates one small slot per thread, once): an acquire costs one
 * volatile read of the array plus, per visited entry, one read and at most one successful CAS. {@link #reserve()},
 * {@link Entry#remove()} and {@link #close()} copy the array with a CAS, lock-free: O(size). The status counters
 * {@link #idleCount()} and {@link #inUseCount()} scan the array: O(size), meant for status pages.
 *
 * @param <T> the type of the pooled objects
 */
public final class Pool<T> implements Dumpable {
    private static final System.Logger LOG = System.getLogger(Pool.class.getName());
    private static final VarHandle PENDING;
    private static final VarHandle ENTRIES;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            PENDING = lookup.findVarHandle(Pool.class, "pending", int.class);
            ENTRIES = lookup.findVarHandle(Pool.class, "entries", Entry[].class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final int maxEntries;
    private final int maxUsage;
    /** {@code maxUsage}, or {@link Integer#MAX_VALUE} when unlimited: one comparison on the hot path either way. */
    private final int usageLimit;

    private final PoolStrategy strategy;
    /** Null unless the strategy is {@link PoolStrategy#ROUND_ROBIN}. */
    private final RoundRobinCounter roundRobin;
    /** Null when the cache is off. */
    private final ThreadCache cache;

    /** Replaced (never modified) by a CAS through {@link #ENTRIES}. */
    private volatile Entry<T>[] entries;

    private volatile int maxMultiplex;
    /**
     * Reserved entries not enabled yet: incremented by reserve before its CAS (undone if the CAS is not made, so the
     * count may briefly be high by as many reserves as are racing, never low), decremented by enable, remove and
     * close.
     */
    private volatile int pending;
    /** Set once by {@link #close()}, before it takes the array. */
    private volatile boolean closed;

    Pool(PoolBuilder<T> builder) {
        this.maxEntries = builder.maxEntries;
        this.maxMultiplex = builder.maxMultiplex;
        this.maxUsage = builder.maxUsage;
        this.usageLimit = maxUsage == 0 ? Integer.MAX_VALUE : maxUsage;
        this.strategy = builder.strategy;
        this.roundRobin = strategy == PoolStrategy.ROUND_ROBIN ? new RoundRobinCounter() : null;
        this.cache = builder.cacheSize == 0 ? null : new ThreadCache(builder.cacheSize);
        this.entries = newArray(0);
    }

    /**
     * Starts the configuration of a pool.
     *
     * @param maxEntries the most entries the pool holds, reserved ones included; at least 1
     * @param <T> the type of the pooled objects
     * @return a builder with the defaults: {@code maxMultiplex} 1, {@code maxUsage} 0 (unlimited), strategy
     *     {@link PoolStrategy#FIRST}, no thread-local cache
     * @throws IllegalArgumentException if {@code maxEntries < 1}
     */
    public static <T> PoolBuilder<T> builder(int maxEntries) {
        return new PoolBuilder<>(maxEntries);
    }

    /**
     * Adds a reserved entry, for an object the caller is about to create (possibly asynchronously). The entry counts
     * against {@link #maxEntries()} at once, but cannot be acquired until {@link Entry#enable(Object, boolean)}. If
     * creating the object fails, the caller must {@link Entry#remove()} the entry.
     *
     * @return the reserved entry, or null if the pool is full (reserved entries included) or closed
     */
    public Entry<T> reserve() {
        if (closed || entries.length >= maxEntries) {
            // The common answer of a full pool, asked again by each pass of a client's queue: no entry made, no
            // shared counter touched.
            return null;
        }
        Entry<T> entry = new Entry<>(this);
        PENDING.getAndAdd(this, 1);
        while (true) {
            // The array is read before the flag: a close that set the flag after this read also replaced the array,
            // so the CAS below fails and the retry sees the flag.
            Entry<T>[] current = entries;
            if (closed || current.length >= maxEntries) {
                PENDING.getAndAdd(this, -1);
                return null;
            }
            Entry<T>[] next = Arrays.copyOf(current, current.length + 1);
            next[current.length] = entry;
            if (ENTRIES.compareAndSet(this, current, next)) {
                return entry;
            }
        }
    }

    /**
     * Acquires an available entry: open, below {@link #maxMultiplex()} holders and below its usage limit. When the
     * cache is on, the entries this thread last acquired are tried first; then the array in the order of the
     * {@link PoolStrategy} (with the cache on, a multiplexed pool first looks for an idle entry, so that each thread
     * gets an entry to itself; without it, FIRST fills the first entry up to {@code maxMultiplex} before the next).
     *
     * <p>Returns null rather than an {@code Optional}: this is the measured hot path, and it allocates nothing.
     *
     * <p>Each entry is looked at once, without a lock: under concurrency an entry released after the scan passed it is
     * not seen, so null means "nothing was available where and when this acquire looked", and a caller that can wait
     * may simply retry.
     *
     * @return the acquired entry, or null if no entry is available (all busy or reserved, none at all, or the pool is
     *     closed); a caller that may create objects then calls {@link #reserve()}, or uses {@link #acquire(Function)}
     */
    public Entry<T> acquire() {
        Entry<T>[] array = entries;
        int multiplex = maxMultiplex;
        int limit = usageLimit;
        if (cache != null) {
            return acquireCached(array, multiplex, limit);
        }
        int index = acquireIndex(array, multiplex, limit);
        return index < 0 ? null : array[index];
    }

    private Entry<T> acquireCached(Entry<T>[] array, int multiplex, int limit) {
        ThreadCache.Slot slot = cache.slot();
        int[] positions = slot.positions;
        for (int k = 0, count = slot.count; k < count; k++) {
            int position = positions[k];
            if (position < array.length) {
                Entry<T> entry = array[position];
                if (entry.tryAcquire(multiplex, limit)) {
                    return entry;
                }
            }
        }
        // A miss looks for an idle entry first (at most one holder: its own), so that each thread gets an entry of its
        // own to stick to, the pooling article's ideal case; otherwise every thread of a multiplexed FIRST pool would
        // cache the first entry and the cache would save nothing of the contention on its state word.
        int index = multiplex > 1 ? acquireIndex(array, 1, limit) : -1;
        if (index < 0) {
            index = acquireIndex(array, multiplex, limit);
            if (index < 0) {
                return null;
            }
        }
        slot.remember(index);
        return array[index];
    }

    /**
     * Visits the entries from the strategy's start index and acquires the first available one. As in the pooling
     * article, a lost CAS race moves on to the next entry instead of retrying: under contention the load spills over to
     * the next entries rather than every thread fighting over the first one's cache line (measured: +16% for a
     * multiplexed FIRST pool on 2 cores). So that a lost race never turns into a false "nothing available", a pass that
     * lost any race is followed by one that retries each entry until it is acquired or seen unavailable.
     *
     * @return the index of the acquired entry, or -1 (an index rather than the entry, so that the cache can remember
     *     the position without another lookup)
     */
    private int acquireIndex(Entry<T>[] array, int multiplex, int limit) {
        int length = array.length;
        if (length == 0) {
            return -1;
        }
        int start = strategy == PoolStrategy.FIRST ? 0 : startIndex(length);
        int index = start;
        boolean contended = false;
        for (int visited = 0; visited < length; visited++) {
            int result = array[index].tryAcquireOnce(multiplex, limit);
            if (result == EntryState.ACQUIRED) {
                return index;
            }
            contended |= result == EntryState.CONTENDED;
            if (++index == length) {
                index = 0;
            }
        }
        if (!contended) {
            return -1;
        }
        index = start;
        for (int visited = 0; visited < length; visited++) {
            if (array[index].tryAcquire(multiplex, limit)) {
                return index;
            }
            if (++index == length) {
                index = 0;
            }
        }
        return -1;
    }

    /**
     * Acquires an available entry, or creates one if none is available and the pool is not full: reserves an entry,
     * calls {@code creator} on the calling thread, and enables the entry already acquired.
     *
     * @param creator creates the object of the reserved entry it is given; it may return null to give up, and may
     *     throw, in both cases the reserved entry is removed
     * @return the acquired entry, or null if none was available and none could be created (pool full or closed, or
     *     {@code creator} returned null)
     */
    public Entry<T> acquire(Function<Entry<T>, T> creator) {
        Entry<T> entry = acquire();
        if (entry != null) {
            return entry;
        }
        entry = reserve();
        if (entry == null) {
            return null;
        }
        T pooled;
        try {
            pooled = creator.apply(entry);
        } catch (RuntimeException | Error x) {
            entry.remove();
            throw x;
        }
        if (pooled == null) {
            entry.remove();
            return null;
        }
        if (entry.enable(pooled, true)) {
            return entry;
        }
        // The pool closed the reserved entry while the object was being created: nobody else knows the object, so it
        // is ours to close.
        closeOrphan(pooled);
        return null;
    }

    private static void closeOrphan(Object pooled) {
        if (pooled instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception x) {
                LOG.log(System.Logger.Level.WARNING, "could not close " + pooled + " created while its pool closed", x);
            }
        }
    }

    private int startIndex(int length) {
        return switch (strategy) {
            case FIRST -> 0;
            case RANDOM -> ThreadLocalRandom.current().nextInt(length);
            case THREAD_ID -> ((int) Thread.currentThread().threadId() & Integer.MAX_VALUE) % length;
            case ROUND_ROBIN -> roundRobin.next(length);
        };
    }

    /** Called once per entry, by the transition that closed it: takes it out of the array. */
    private void removed(Entry<T> entry, boolean wasReserved) {
        if (wasReserved) {
            PENDING.getAndAdd(this, -1);
        }
        while (true) {
            Entry<T>[] current = entries;
            int index = indexOf(current, entry);
            if (index < 0) {
                return; // the pool closed and dropped the whole array already
            }
            Entry<T>[] next = newArray(current.length - 1);
            System.arraycopy(current, 0, next, 0, index);
            System.arraycopy(current, index + 1, next, index, next.length - index);
            if (ENTRIES.compareAndSet(this, current, next)) {
                return;
            }
        }
    }

    /** A search rather than a stored index: the copy that follows is O(size) anyway, and an index would need a lock. */
    private static <T> int indexOf(Entry<T>[] array, Entry<T> entry) {
        for (int i = 0; i < array.length; i++) {
            if (array[i] == entry) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Closes the pool: later acquires and reserves return null, and every entry is closed. Idle entries are removed at
     * once and their objects returned, for the caller to close. Entries in use stay with their holders: their
     * {@link Entry#release()} returns false, and the holder whose {@link Entry#remove()} returns true closes the object.
     * Reserved entries fail to enable: their creators close what they created. Idempotent.
     *
     * @return the pooled objects the caller must close now (empty if the pool was already closed)
     */
    public List<T> close() {
        closed = true;
        // Taking the array after setting the flag: a reserve or remove racing with this either changed the array before
        // (its entry is closed below) or fails its CAS and sees the flag or a missing entry. A second close takes the
        // empty array and returns nothing.
        @SuppressWarnings("unchecked")
        Entry<T>[] taken = (Entry<T>[]) ENTRIES.getAndSet(this, newArray(0));
        List<T> idle = new ArrayList<>();
        for (Entry<T> entry : taken) {
            long before = entry.close();
            long lifecycle = EntryState.lifecycle(before);
            if (lifecycle == EntryState.RESERVED) {
                PENDING.getAndAdd(this, -1);
            } else if (lifecycle == EntryState.OPEN && EntryState.holders(before) == 0) {
                idle.add(entry.pooled);
            }
        }
        return idle;
    }

    /** @return whether {@link #close()} was called */
    public boolean isClosed() {
        return closed;
    }

    /** @return the most entries the pool holds, reserved ones included */
    public int maxEntries() {
        return maxEntries;
    }

    /** @return how many holders an entry may have at once */
    public int maxMultiplex() {
        return maxMultiplex;
    }

    /**
     * Changes how many holders an entry may have at once. Lowering it does not take entries away from their current
     * holders: entries above the new limit cannot be acquired until enough holders release them.
     *
     * @param maxMultiplex the new limit, at least 1
     * @throws IllegalArgumentException if {@code maxMultiplex < 1}
     */
    public void maxMultiplex(int maxMultiplex) {
        this.maxMultiplex = PoolBuilder.checkMaxMultiplex(maxMultiplex);
    }

    /** @return how many times an entry may be acquired before it must be closed; 0 for unlimited */
    public int maxUsage() {
        return maxUsage;
    }

    /** @return where acquires start looking */
    public PoolStrategy strategy() {
        return strategy;
    }

    /** @return how many entries each thread's cache remembers; 0 when the cache is off */
    public int cacheSize() {
        return cache == null ? 0 : cache.size();
    }

    /** @return the number of entries, reserved ones included */
    public int size() {
        return entries.length;
    }

    /** @return the number of reserved entries not enabled yet */
    public int reservedCount() {
        return pending;
    }

    /** @return the number of open entries without holders; O(size) */
    public int idleCount() {
        int count = 0;
        for (Entry<T> entry : entries) {
            if (entry.isIdle()) {
                count++;
            }
        }
        return count;
    }

    /** @return the number of open entries with at least one holder; O(size) */
    public int inUseCount() {
        int count = 0;
        for (Entry<T> entry : entries) {
            if (entry.isInUse()) {
                count++;
            }
        }
        return count;
    }

    /** @return a snapshot of the entries, in array order; O(size) */
    public List<Entry<T>> entries() {
        return List.of(entries);
    }

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        out.append(toString()).append(System.lineSeparator());
        for (Entry<T> entry : entries) {
            out.append(indent).append("+- ").append(entry.toString()).append(System.lineSeparator());
        }
    }

    @Override
    public String toString() {
        Entry<T>[] array = entries;
        int idle = 0;
        int inUse = 0;
        for (Entry<T> entry : array) {
            idle += entry.isIdle() ? 1 : 0;
            inUse += entry.isInUse() ? 1 : 0;
        }
        return "Pool@" + Integer.toHexString(hashCode()) + "{size=" + array.length + "/" + maxEntries + ",reserved="
                + pending + ",idle=" + idle + ",inUse=" + inUse + ",maxMultiplex=" + maxMultiplex + ",maxUsage="
                + maxUsage + ",strategy=" + strategy + ",cacheSize=" + cacheSize() + ",closed=" + closed + "}";
    }

    @SuppressWarnings("unchecked") // an array of the erased entry type, only ever holding entries of this pool
    private static <T> Entry<T>[] newArray(int length) {
        return (Entry<T>[]) new Entry<?>[length];
    }

    /**
     * One pooled object and its state. Obtained from {@link Pool#reserve()} or {@link Pool#acquire()}.
     *
     * <p>Thread-safe: every state change is one CAS on the entry's padded state word (see {@link EntryState}).
     * {@link #release()} is lock-free and allocation-free; {@link #remove()} replaces the pool's array once per entry, with a CAS.
     *
     * @param <T> the type of the pooled object
     */
    public static final class Entry<T> extends EntryRightPadding {
        private final Pool<T> pool;
        /** Written by {@link #enable} before the state CAS that publishes it; read after the acquiring CAS. */
        private T pooled;

        private Entry(Pool<T> pool) {
            this.pool = pool;
        }

        /**
         * Makes a reserved entry available with its object.
         *
         * @param pooled the object, not null
         * @param acquire true to enable the entry already acquired by the caller (its first use), false to enable it
         *     idle
         * @return true if enabled; false if the entry was removed or the pool closed before: the caller then closes
         *     {@code pooled} itself
         * @throws IllegalStateException if the entry was already enabled
         */
        public boolean enable(T pooled, boolean acquire) {
            Objects.requireNonNull(pooled, "pooled object to enable");
            long lifecycle = lifecycle(word());
            if (lifecycle == CLOSED && this.pooled == null) {
                return false; // removed or pool closed while reserved
            }
            if (lifecycle != RESERVED) {
                throw new IllegalStateException("enable of an entry that is not reserved: " + this);
            }
            // Written before the CAS so that the CAS's volatile write publishes it to every later acquirer.
            this.pooled = pooled;
            if (tryEnable(acquire)) {
                PENDING.getAndAdd(pool, -1);
                return true;
            }
            // Closed between the check and the CAS: the entry was never enabled, so it must not keep the object.
            this.pooled = null;
            return false;
        }

        /**
         * Limits how many holders this entry takes, below the pool's {@link Pool#maxMultiplex()}: for a pool whose
         * objects differ, such as a client's pool of HTTP/2 connections (many streams each) that also holds HTTP/1.1
         * connections (one exchange each, when the h2c upgrade was not made). Call it on a reserved entry, before
         * {@link #enable}.
         *
         * @param max the most holders at once, at least 1
         * @return this entry
         * @throws IllegalArgumentException if {@code max < 1}
         * @throws IllegalStateException if the entry was already enabled
         */
        public Entry<T> maxHolders(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxHolders must be >= 1, was " + max);
            }
            if (pooled != null || lifecycle(word()) == OPEN) {
                throw new IllegalStateException("maxHolders of an entry already enabled: " + this);
            }
            this.maxHolders = max;
            return this;
        }

        /** @return the pooled object; null only while the entry is reserved and not enabled */
        public T pooled() {
            return pooled;
        }

        /**
         * Ends the caller's hold so that the entry can be acquired again.
         *
         * @return true if released; false if the entry must not be reused because it is closed (removed, or its pool
         *     closed) or reached its pool's max usage: the caller still holds it and must call {@link #remove()}
         * @throws IllegalStateException if the entry is not in use (released twice, or never acquired)
         */
        public boolean release() {
            return tryRelease(pool.usageLimit);
        }

        /**
         * Closes the entry so that it is never acquired again, and takes it out of the pool. If the entry is in use,
         * the caller must be one of its holders, and this ends its hold: call it instead of {@link #release()} for a
         * broken object, or after {@code release()} returned false. A thread that does not hold the entry uses it only
         * on a reserved entry (creating its object failed); to evict an idle entry, such as on an idle timeout, use
         * {@link #removeIfIdle()}, which cannot race with an acquire.
         *
         * @return true to exactly one caller per entry, the one that leaves the entry closed with no holders: that
         *     caller must close the pooled object (if any). False while other holders remain (the last one gets true),
         *     or if the entry was already closed without holders (by an earlier remove, or by the pool's close, which
         *     returned the object)
         */
        public boolean remove() {
            long before = leave();
            long lifecycle = lifecycle(before);
            int holders = holders(before);
            if (lifecycle == CLOSED && holders == 0) {
                return false;
            }
            if (lifecycle != CLOSED) {
                pool.removed(this, lifecycle == RESERVED);
            }
            return holders <= 1;
        }

        /**
         * Removes the entry only if it is enabled and idle; safe for a thread that does not hold it (idle timeouts,
         * sweepers): if another thread acquires the entry first, nothing happens.
         *
         * @return true if removed: the caller must close the pooled object; false if the entry is reserved, in use or
         *     already closed
         */
        public boolean removeIfIdle() {
            if (tryCloseIdle()) {
                pool.removed(this, false);
                return true;
            }
            return false;
        }

        /** @return whether the entry is reserved and not enabled yet */
        public boolean isReserved() {
            return lifecycle(word()) == RESERVED;
        }

        /** @return whether the entry is enabled, open and has no holder */
        public boolean isIdle() {
            long word = word();
            return lifecycle(word) == OPEN && holders(word) == 0;
        }

        /** @return whether the entry is open and has at least one holder */
        public boolean isInUse() {
            long word = word();
            return lifecycle(word) == OPEN && holders(word) > 0;
        }

        /** @return whether the entry is closed: removed, worn out and removed, or its pool closed */
        public boolean isClosed() {
            return lifecycle(word()) == CLOSED;
        }

        /** @return how many holders the entry has now (its multiplex count) */
        public int multiplexCount() {
            return holders(word());
        }

        /** @return how many times the entry was acquired (saturating at 2^30 - 1) */
        public int usageCount() {
            return usage(word());
        }

        @Override
        public String toString() {
            return "Entry@" + Integer.toHexString(hashCode()) + "{" + describe(word()) + ",pooled=" + pooled + "}";
        }
    }
}
