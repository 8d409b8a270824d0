package dev.quarry.bench.pool;

import dev.quarry.core.pool.Pool;
import java.util.concurrent.ThreadLocalRandom;
import org.eclipse.jetty.util.ConcurrentPool;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The benchmark of "Object Pooling, Benchmarks, and Another Way" (Jetty blog): acquire, burn 10-20 tokens of CPU as if
 * using the pooled object, release; the threads hammer one pool of {@link #ENTRIES} entries. Three side-by-side
 * implementations, each in every {@link PoolType}: Quarry's {@link Pool}, Jetty 12's {@link ConcurrentPool}, and a
 * {@link LockedDequePool}.
 *
 * <p>An acquire may find nothing while other threads hold the entries or race for them (with as many threads as
 * entries a lock-free scan can still miss an entry released behind it); it then retries, and the {@code misses}
 * counter says how often.
 */
@BenchmarkMode(Mode.Throughput)
public class PoolBenchmark {
    /**
     * As in the article (12 threads, 12 connections, 12 cores): as many entries, and JMH threads, as cores ({@link
     * PoolSuite}).
     */
    static final int ENTRIES = Math.max(2, Runtime.getRuntime().availableProcessors());

    /** How often an acquire found nothing and was retried, per iteration. */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class Misses {
        public long misses;

        @Setup(Level.Iteration)
        public void reset() {
            misses = 0;
        }
    }

    @State(Scope.Benchmark)
    public static class QuarryPool {
        @Param({"duplex", "multiplex", "round-robin", "cached-duplex", "cached-multiplex"})
        public String type;

        Pool<Object> pool;

        @Setup
        public void setup() {
            PoolType config = PoolType.of(type);
            pool = Pool.builder(ENTRIES)
                    .maxMultiplex(config.maxMultiplex)
                    .strategy(config.strategy)
                    .cacheSize(config.cacheSize)
                    .build();
            for (int i = 0; i < ENTRIES; i++) {
                pool.reserve().enable(new Object(), false);
            }
        }
    }

    @State(Scope.Benchmark)
    public static class JettyPool {
        @Param({"duplex", "multiplex", "round-robin", "cached-duplex", "cached-multiplex"})
        public String type;

        ConcurrentPool<Object> pool;

        @Setup
        public void setup() {
            PoolType config = PoolType.of(type);
            int maxMultiplex = config.maxMultiplex;
            pool = new ConcurrentPool<>(config.jettyStrategy(), ENTRIES, pooled -> maxMultiplex);
            for (int i = 0; i < ENTRIES; i++) {
                pool.reserve().enable(new Object(), false);
            }
        }
    }

    @State(Scope.Benchmark)
    public static class LockedPool {
        @Param({"duplex", "multiplex", "round-robin", "cached-duplex", "cached-multiplex"})
        public String type;

        LockedDequePool pool;

        @Setup
        public void setup() {
            PoolType config = PoolType.of(type);
            pool = new LockedDequePool(ENTRIES, config.maxMultiplex, config.roundRobin());
        }
    }

    /** The work alone, without a pool: the ceiling of every row, to tell how much of an operation the pool costs. */
    @Benchmark
    public void baseline() {
        Blackhole.consumeCPU(ThreadLocalRandom.current().nextInt(10, 20));
    }

    @Benchmark
    public void quarry(QuarryPool state, Misses misses) {
        Pool<Object> pool = state.pool;
        Pool.Entry<Object> entry = pool.acquire();
        while (entry == null) {
            misses.misses++;
            Thread.onSpinWait();
            entry = pool.acquire();
        }
        Blackhole.consumeCPU(ThreadLocalRandom.current().nextInt(10, 20));
        if (!entry.release()) {
            throw new IllegalStateException("release refused: " + entry);
        }
    }

    @Benchmark
    public void jetty(JettyPool state, Misses misses) {
        ConcurrentPool<Object> pool = state.pool;
        org.eclipse.jetty.util.Pool.Entry<Object> entry = pool.acquire();
        while (entry == null) {
            misses.misses++;
            Thread.onSpinWait();
            entry = pool.acquire();
        }
        Blackhole.consumeCPU(ThreadLocalRandom.current().nextInt(10, 20));
        if (!entry.release()) {
            throw new IllegalStateException("release refused: " + entry);
        }
    }

    @Benchmark
    public void lockedDeque(LockedPool state, Misses misses) {
        LockedDequePool pool = state.pool;
        LockedDequePool.Item item = pool.acquire();
        while (item == null) {
            misses.misses++;
            Thread.onSpinWait();
            item = pool.acquire();
        }
        Blackhole.consumeCPU(ThreadLocalRandom.current().nextInt(10, 20));
        pool.release(item);
    }
}
