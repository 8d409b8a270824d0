package dev.quarry.core.pool;

import java.util.Objects;

/**
 * The configuration of a {@link Pool}. Not thread-safe; {@link #build()} may be called more than once.
 *
 * @param <T> the type of the pooled objects
 */
public final class PoolBuilder<T> {
    final int maxEntries;
    int maxMultiplex = 1;
    int maxUsage;
    PoolStrategy strategy = PoolStrategy.FIRST;
    int cacheSize;

    PoolBuilder(int maxEntries) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1: " + maxEntries);
        }
        this.maxEntries = maxEntries;
    }

    /**
     * @param maxMultiplex how many holders an entry may have at once, at least 1 (default 1); changeable later
     *     with {@link Pool#maxMultiplex(int)}
     * @return this builder
     */
    public PoolBuilder<T> maxMultiplex(int maxMultiplex) {
        this.maxMultiplex = checkMaxMultiplex(maxMultiplex);
        return this;
    }

    /**
     * @param maxUsage how many times an entry may be acquired before it must be closed; 0 (the default) for
     *     unlimited, at most 2^30 - 1
     * @return this builder
     */
    public PoolBuilder<T> maxUsage(int maxUsage) {
        if (maxUsage < 0 || maxUsage > EntryState.MAX_USAGE) {
            throw new IllegalArgumentException(
                    "maxUsage must be 0 (unlimited) or in [1, " + EntryState.MAX_USAGE + "]: " + maxUsage);
        }
        this.maxUsage = maxUsage;
        return this;
    }

    /**
     * @param strategy where acquires start looking (default {@link PoolStrategy#FIRST})
     * @return this builder
     */
    public PoolBuilder<T> strategy(PoolStrategy strategy) {
        this.strategy = Objects.requireNonNull(strategy, "strategy");
        return this;
    }

    /**
     * @param cacheSize how many recently acquired entries each thread remembers and tries first on its next
     *     acquire; 0 (the default) turns the cache off. With the cache on, an acquire that misses it prefers an
     *     idle entry to a shared one, so that each thread sticks to an entry of its own: affinity over maximal
     *     reuse. It pays when threads are long-lived platform threads, about
     *     as many as the entries; with virtual threads it rarely hits
     * @return this builder
     */
    public PoolBuilder<T> cacheSize(int cacheSize) {
        if (cacheSize < 0) {
            throw new IllegalArgumentException("cacheSize must be 0 (off) or positive: " + cacheSize);
        }
        this.cacheSize = cacheSize;
        return this;
    }

    /** @return a new, empty pool with this configuration */
    public Pool<T> build() {
        return new Pool<>(this);
    }

    static int checkMaxMultiplex(int maxMultiplex) {
        if (maxMultiplex < 1) {
            throw new IllegalArgumentException("maxMultiplex must be at least 1: " + maxMultiplex);
        }
        return maxMultiplex;
    }

    @Override
    public String toString() {
        return "PoolBuilder{maxEntries=" + maxEntries + ",maxMultiplex=" + maxMultiplex + ",maxUsage=" + maxUsage
                + ",strategy=" + strategy + ",cacheSize=" + cacheSize + "}";
    }
}
