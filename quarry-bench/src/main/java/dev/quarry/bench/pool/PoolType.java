package dev.quarry.bench.pool;

import dev.quarry.core.pool.PoolStrategy;
import java.util.Arrays;
import org.eclipse.jetty.util.ConcurrentPool;

/**
 * The pool configurations of the {@link PoolBenchmark}, by the name used as the JMH {@code type} parameter, with the
 * equivalent configuration of each peer. Jetty 12 has no thread-local cache (removed in 12.0.4), so the peer of the
 * {@code cached-*} rows is Jetty's uncached configuration of the same pool.
 */
enum PoolType {
    DUPLEX("duplex", 1, PoolStrategy.FIRST, 0),
    MULTIPLEX("multiplex", 4, PoolStrategy.FIRST, 0),
    ROUND_ROBIN("round-robin", 1, PoolStrategy.ROUND_ROBIN, 0),
    CACHED_DUPLEX("cached-duplex", 1, PoolStrategy.FIRST, 1),
    CACHED_MULTIPLEX("cached-multiplex", 4, PoolStrategy.FIRST, 1);

    final String label;
    final int maxMultiplex;
    final PoolStrategy strategy;
    final int cacheSize;

    PoolType(String label, int maxMultiplex, PoolStrategy strategy, int cacheSize) {
        this.label = label;
        this.maxMultiplex = maxMultiplex;
        this.strategy = strategy;
        this.cacheSize = cacheSize;
    }

    /** @return the Jetty strategy with the same start index rule */
    ConcurrentPool.StrategyType jettyStrategy() {
        return ConcurrentPool.StrategyType.valueOf(strategy.name());
    }

    /** @return whether the locked deque is used as a queue (round-robin) rather than a stack */
    boolean roundRobin() {
        return strategy == PoolStrategy.ROUND_ROBIN;
    }

    static PoolType of(String label) {
        return Arrays.stream(values())
                .filter(type -> type.label.equals(label))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown pool type: " + label));
    }
}
