package dev.quarry.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Many threads acquire, hold and release concurrently, creating entries on demand, removing some while holding them and
 * evicting idle ones, and the invariants are checked from outside the pool: never more holders than
 * {@code maxMultiplex}, never more uses than {@code maxUsage}, the pool's usage counts equal the observed ones, every
 * object closed exactly once and never while held, and at the end every entry idle with counts that add up.
 */
class PoolStressTest {
    private static final int THREADS = 8;
    private static final int MAX_ENTRIES = 4;

    record Config(String name, PoolStrategy strategy, int maxMultiplex, int maxUsage, int cacheSize) {
        Pool<Pooled> newPool() {
            return Pool.<Pooled>builder(MAX_ENTRIES)
                    .strategy(strategy)
                    .maxMultiplex(maxMultiplex)
                    .maxUsage(maxUsage)
                    .cacheSize(cacheSize)
                    .build();
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Config> configs() {
        return Stream.of(
                new Config("duplex", PoolStrategy.FIRST, 1, 0, 0),
                new Config("multiplex", PoolStrategy.FIRST, 3, 0, 0),
                new Config("round-robin", PoolStrategy.ROUND_ROBIN, 1, 0, 0),
                new Config("random-multiplex", PoolStrategy.RANDOM, 2, 0, 0),
                new Config("thread-id", PoolStrategy.THREAD_ID, 1, 0, 0),
                new Config("cached-duplex", PoolStrategy.FIRST, 1, 0, 1),
                new Config("cached-multiplex", PoolStrategy.FIRST, 3, 0, 2),
                new Config("usage-duplex", PoolStrategy.FIRST, 1, 50, 0),
                new Config("usage-multiplex-cached", PoolStrategy.ROUND_ROBIN, 3, 40, 1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configs")
    void invariantsHoldUnderContention(Config config) throws Exception {
        new Run(config, 15_000).execute(false);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configs")
    void closingUnderContentionClosesEveryObjectExactlyOnce(Config config) throws Exception {
        new Run(config, 15_000).execute(true);
    }

    @Tag("stress")
    @ParameterizedTest(name = "{0}")
    @MethodSource("configs")
    void invariantsHoldUnderLongContention(Config config) throws Exception {
        new Run(config, 1_000_000).execute(false);
    }

    @Tag("stress")
    @ParameterizedTest(name = "{0}")
    @MethodSource("configs")
    void closingUnderLongContentionClosesEveryObjectExactlyOnce(Config config) throws Exception {
        new Run(config, 300_000).execute(true);
    }

    /** One stress run: its pool, workers and the record of every object created. */
    private static final class Run {
        private final Config config;
        private final int iterations;
        private final Pool<Pooled> pool;
        private final Queue<Pooled> created = new ConcurrentLinkedQueue<>();
        private final Queue<String> violations = new ConcurrentLinkedQueue<>();
        private final AtomicInteger ids = new AtomicInteger();
        private final AtomicLong acquires = new AtomicLong();

        Run(Config config, int iterations) {
            this.config = config;
            this.iterations = iterations;
            this.pool = config.newPool();
        }

        void execute(boolean closeMidway) throws Exception {
            CountDownLatch start = new CountDownLatch(1);
            CountDownLatch halfway = new CountDownLatch(THREADS);
            Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                boolean sweeper = t == 0;
                Thread thread = new Thread(
                        () -> {
                            try {
                                start.await();
                                work(sweeper, halfway);
                            } catch (Throwable x) {
                                failures.add(x);
                                halfway.countDown(); // so that a failed worker does not hold up the close
                            }
                        },
                        "stress-" + t);
                threads.add(thread);
                thread.start();
            }
            start.countDown();
            if (closeMidway) {
                assertTrue(halfway.await(60, TimeUnit.SECONDS), "workers did not reach halfway");
                for (Pooled idle : pool.close()) {
                    idle.close();
                }
            }
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(120));
                if (thread.isAlive()) {
                    fail(thread.getName() + " still running: " + pool.dump());
                }
            }
            if (!failures.isEmpty()) {
                AssertionError error = new AssertionError(failures.size() + " workers failed");
                failures.forEach(error::addSuppressed);
                throw error;
            }
            if (closeMidway) {
                checkClosed();
            } else {
                checkQuiescent();
            }
        }

        private void work(boolean sweeper, CountDownLatch halfway) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int i = 0; i < iterations; i++) {
                if (i == iterations / 2) {
                    halfway.countDown();
                }
                if (sweeper && random.nextInt(64) == 0) {
                    evictOne(random);
                }
                Pool.Entry<Pooled> entry = pool.acquire(this::create);
                if (entry == null) {
                    if (pool.isClosed()) {
                        continue;
                    }
                    Thread.yield(); // every entry is busy: let a holder run on this 2-core box
                    continue;
                }
                acquires.incrementAndGet();
                Pooled pooled = entry.pooled();
                int holders = pooled.hold();
                int maxMultiplex = config.maxMultiplex();
                if (holders > maxMultiplex) {
                    violations.add(pooled + " had " + holders + " holders, max " + maxMultiplex);
                }
                if (config.maxUsage() > 0 && pooled.uses.get() > config.maxUsage()) {
                    violations.add(pooled + " used " + pooled.uses.get() + " times, max " + config.maxUsage());
                }
                for (int spin = random.nextInt(8); spin > 0; spin--) {
                    Thread.onSpinWait();
                }
                pooled.unhold();
                if (random.nextInt(1000) == 0) {
                    remove(entry); // "broken" while held
                } else if (!entry.release()) {
                    remove(entry);
                }
            }
        }

        private Pooled create(Pool.Entry<Pooled> reserved) {
            Pooled pooled = new Pooled(ids.incrementAndGet());
            created.add(pooled);
            return pooled;
        }

        private void remove(Pool.Entry<Pooled> entry) {
            if (entry.remove()) {
                closeRemoved(entry);
            }
        }

        private void evictOne(ThreadLocalRandom random) {
            List<Pool.Entry<Pooled>> entries = pool.entries();
            if (!entries.isEmpty()) {
                Pool.Entry<Pooled> entry = entries.get(random.nextInt(entries.size()));
                if (entry.removeIfIdle()) {
                    closeRemoved(entry);
                }
            }
        }

        private void closeRemoved(Pool.Entry<Pooled> entry) {
            Pooled pooled = entry.pooled();
            if (entry.usageCount() != pooled.uses.get()) {
                violations.add(pooled + " counted " + entry.usageCount() + " uses, observed " + pooled.uses.get());
            }
            pooled.close();
        }

        private void checkObjects() {
            assertEquals(List.of(), List.copyOf(violations));
            for (Pooled pooled : created) {
                assertEquals(0, pooled.closedWhileHeld.get(), pooled + " closed while held");
                assertTrue(pooled.closes.get() <= 1, pooled + " closed " + pooled.closes.get() + " times");
                assertTrue(pooled.maxHolders.get() <= config.maxMultiplex(), pooled + " max holders");
            }
            assertTrue(acquires.get() > 0, "no acquire succeeded");
        }

        private void checkQuiescent() {
            checkObjects();
            List<Pool.Entry<Pooled>> entries = pool.entries();
            assertTrue(entries.size() <= MAX_ENTRIES, pool.dump());
            assertEquals(entries.size(), pool.idleCount(), pool.dump());
            assertEquals(0, pool.inUseCount(), pool.dump());
            assertEquals(0, pool.reservedCount(), pool.dump());
            long pooledNow = 0;
            for (Pool.Entry<Pooled> entry : entries) {
                Pooled pooled = entry.pooled();
                assertEquals(0, pooled.closes.get(), pooled + " closed but still pooled");
                assertEquals(pooled.uses.get(), entry.usageCount(), pooled + " usage count lost updates");
                pooledNow++;
            }
            long closed = created.stream().filter(p -> p.closes.get() == 1).count();
            assertEquals(created.size(), closed + pooledNow, "every object is either pooled or closed: " + pool.dump());
        }

        private void checkClosed() {
            checkObjects();
            assertEquals(0, pool.size());
            assertEquals(0, pool.reservedCount());
            for (Pooled pooled : created) {
                assertEquals(1, pooled.closes.get(), pooled + " must be closed exactly once after the pool closed");
            }
        }
    }
}
