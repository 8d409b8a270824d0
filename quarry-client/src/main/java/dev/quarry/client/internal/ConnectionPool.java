package dev.quarry.client.internal;

import dev.quarry.client.ConnectionPoolKind;
import dev.quarry.core.pool.Pool;
import dev.quarry.core.pool.PoolStrategy;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * The client's connection pool of one destination: quarry-core's lock-free {@link Pool} plus the client's rules for
 * taking a connection and giving it back. An acquire skips (and hands to the retirer) a connection that is no longer
 * usable or older than the max duration; a release refuses a connection that is worn out (max usage), older than the
 * max duration or whose pool closed, so that its holder retires it. A connection is thus never retired in the middle
 * of an exchange, only between two.
 *
 * <p>An HTTP/2 connection takes several holders at once: the pool's max multiplex is set from the server's SETTINGS
 * through {@link #pool()}.
 *
 * <p>Public for the benchmarks only (quarry-bench measures acquire and release against Jetty's client pools); the
 * package is not exported by the module.
 *
 * <p>Thread-safety and cost: as {@link Pool}: {@link #acquire()} and {@link #release(Pool.Entry)} are lock-free and
 * allocate nothing; with a max duration each also reads {@link System#nanoTime()} once.
 *
 * @param <C> the type of the pooled connections
 */
public final class ConnectionPool<C> {
    private final Pool<C> pool;
    private final long maxDurationNanos;
    private final Predicate<C> usable;
    private final ToLongFunction<C> createdNanos;
    private final Consumer<Pool.Entry<C>> retirer;

    /**
     * @param kind which available connection an acquire takes
     * @param maxConnections the most connections, reserved (connecting) ones included
     * @param maxUsage how many exchanges a connection carries before it is retired; 0 for no limit
     * @param cacheSize how many connections each thread remembers and tries first; 0 for no thread-local cache
     * @param maxDurationNanos the age past which a connection is not reused; 0 for no limit
     * @param usable whether a pooled connection may still take an exchange (open both ways)
     * @param createdNanos when a connection was created, on the {@link System#nanoTime()} clock
     * @param retirer closes a connection that an acquire skipped and removes its entry; the acquiring thread holds
     *     the entry when it is called
     */
    public ConnectionPool(
            ConnectionPoolKind kind,
            int maxConnections,
            int maxUsage,
            int cacheSize,
            long maxDurationNanos,
            Predicate<C> usable,
            ToLongFunction<C> createdNanos,
            Consumer<Pool.Entry<C>> retirer) {
        if (maxDurationNanos < 0) {
            throw new IllegalArgumentException("maxDurationNanos must not be negative: " + maxDurationNanos);
        }
        this.pool = Pool.<C>builder(maxConnections)
                .maxUsage(maxUsage)
                .strategy(strategy(kind))
                .cacheSize(cacheSize)
                .build();
        this.maxDurationNanos = maxDurationNanos;
        this.usable = Objects.requireNonNull(usable, "usable");
        this.createdNanos = Objects.requireNonNull(createdNanos, "createdNanos");
        this.retirer = Objects.requireNonNull(retirer, "retirer");
    }

    private static PoolStrategy strategy(ConnectionPoolKind kind) {
        return switch (Objects.requireNonNull(kind, "kind")) {
            case FIRST -> PoolStrategy.FIRST;
            case ROUND_ROBIN -> PoolStrategy.ROUND_ROBIN;
            case RANDOM -> PoolStrategy.RANDOM;
        };
    }

    /** @return the underlying pool, for reserving entries, statistics and closing */
    public Pool<C> pool() {
        return pool;
    }

    /** @return the age past which a connection is not reused, in nanoseconds; 0 for no limit */
    public long maxDurationNanos() {
        return maxDurationNanos;
    }

    /**
     * Acquires a usable connection that is not too old; retires the others it comes across.
     *
     * @return the acquired entry, or null if none is available
     */
    public Pool.Entry<C> acquire() {
        while (true) {
            Pool.Entry<C> entry = pool.acquire();
            if (entry == null) {
                return null;
            }
            C connection = entry.pooled();
            if (usable.test(connection) && !isExpired(connection)) {
                return entry;
            }
            retirer.accept(entry);
        }
    }

    /**
     * Ends the caller's hold on a connection that finished an exchange and may persist.
     *
     * @param entry the entry the caller holds
     * @return true if released; false if the connection must be retired (too old, worn out, or the pool closed): the
     *     caller still holds the entry
     */
    public boolean release(Pool.Entry<C> entry) {
        return !isExpired(entry.pooled()) && entry.release();
    }

    /**
     * @param connection a pooled connection
     * @return whether it is older than the max duration
     */
    public boolean isExpired(C connection) {
        return maxDurationNanos > 0 && System.nanoTime() - createdNanos.applyAsLong(connection) >= maxDurationNanos;
    }

    @Override
    public String toString() {
        return "ConnectionPool{" + pool
                + (maxDurationNanos > 0 ? ",maxDuration=" + TimeUnit.NANOSECONDS.toMillis(maxDurationNanos) + "ms" : "")
                + "}";
    }
}
