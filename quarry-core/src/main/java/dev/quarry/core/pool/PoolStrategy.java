package dev.quarry.core.pool;

/**
 * Where a {@link Pool#acquire()} starts looking for an available entry. Every strategy visits every entry once per
 * acquire (wrapping around the end of the array), so it only decides the order, never whether an available entry is
 * found.
 */
public enum PoolStrategy {
    /**
     * Always starts at the first entry. It maximises reuse of the early entries, so that the fewest objects stay busy
     * (the duplex and multiplex connection pools), at the price of contention on those early entries.
     */
    FIRST,

    /**
     * Starts at an index from {@link java.util.concurrent.ThreadLocalRandom}: load is spread over all entries with no
     * shared state written to pick the start.
     */
    RANDOM,

    /**
     * Starts at an index derived from the current thread's id: each thread tends to stay on "its" entry, with no
     * shared state written to pick the start. Useful when the pool is smaller than the number of threads and no
     * thread-local cache is configured.
     */
    THREAD_ID,

    /**
     * Starts at an index taken from an atomic counter incremented on every acquire: the load rotates predictably over
     * all entries (the round-robin connection pool), at the price of every acquire writing the shared counter.
     */
    ROUND_ROBIN
}
