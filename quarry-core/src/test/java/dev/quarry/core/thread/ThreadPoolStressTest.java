package dev.quarry.core.thread;

import static dev.quarry.core.thread.Awaits.until;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Many producers, many tasks: every task runs exactly once, including while threads idle out and are restarted
 * (an idle timeout of a millisecond makes the pool shrink and grow all the time), and with tryExecute racing.
 */
class ThreadPoolStressTest {

    @Test
    void everyTaskRunsExactlyOnceWhileThePoolShrinksAndGrows() throws Exception {
        run(4, 100_000, Duration.ofMillis(1), 1);
    }

    @Test
    void everyTaskRunsExactlyOnceWithAFixedPool() throws Exception {
        run(4, 100_000, Duration.ofSeconds(60), 4);
    }

    @Test
    @Tag("stress")
    void everyTaskRunsExactlyOnceUnderLongStress() throws Exception {
        for (int round = 0; round < 5; round++) {
            run(8, 250_000, Duration.ofMillis(1), 0);
            run(8, 250_000, Duration.ofMillis(50), 2);
        }
    }

    private static void run(int producers, int tasksPerProducer, Duration idleTimeout, int minThreads)
            throws Exception {
        ThreadPool pool = ThreadPool.builder()
                .name("stress")
                .minThreads(minThreads)
                .maxThreads(4)
                .reservedThreads(1)
                .idleTimeout(idleTimeout)
                .daemon(true)
                .build();
        pool.start();
        try {
            int total = producers * tasksPerProducer;
            AtomicIntegerArray runs = new AtomicIntegerArray(total);
            CountDownLatch done = new CountDownLatch(total);
            AtomicLong handedOff = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            for (int p = 0; p < producers; p++) {
                int base = p * tasksPerProducer;
                threads.add(Thread.ofPlatform().name("producer-" + p).start(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException x) {
                        throw new AssertionError(x);
                    }
                    for (int i = 0; i < tasksPerProducer; i++) {
                        int id = base + i;
                        Runnable task = () -> {
                            runs.incrementAndGet(id);
                            done.countDown();
                        };
                        // Every 64th task tries the reserved threads first, as the adaptive strategy does.
                        if (i % 64 == 0 && pool.tryExecute(task)) {
                            handedOff.incrementAndGet();
                        } else {
                            pool.execute(task);
                        }
                        if (i % 1024 == 0) {
                            Thread.yield(); // let threads go idle now and then, to race with their idle timeout
                        }
                    }
                }));
            }
            go.countDown();
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(60));
                assertFalse(thread.isAlive(), "producer stuck: " + thread + "\n" + pool.dump());
            }
            assertTrue(done.await(60, TimeUnit.SECONDS), () -> done.getCount() + " tasks never ran\n" + pool.dump());
            for (int i = 0; i < total; i++) {
                assertEquals(1, runs.get(i), "task " + i + " ran " + runs.get(i) + " times");
            }
            until("all counted", () -> pool.statistics().tasksCompleted() == total, pool::statistics);
            ThreadPoolStatistics statistics = pool.statistics();
            assertTrue(statistics.threads() <= 4, statistics::toString);
            assertTrue(statistics.maxBusy() <= 4, statistics::toString);
            assertEquals(handedOff.get(), pool.reservedThreads().handOffs());
        } finally {
            pool.stop();
        }
        assertEquals(0, pool.statistics().threads());
    }

    @Test
    void burstsSeparatedByIdlenessNeverStrandATask() throws Exception {
        bursts(2, 2_000, 16, 4);
    }

    @Test
    void pingPongWithASingleThreadNeverStrandsATask() throws Exception {
        // One task at a time: every execute races the only thread's decision to park, the window of a lost wake-up.
        bursts(1, 20_000, 1, 1);
        bursts(2, 10_000, 1, 1);
    }

    @Test
    @Tag("stress")
    void burstsSeparatedByIdlenessNeverStrandATaskUnderLongStress() throws Exception {
        bursts(4, 50_000, 32, 4);
        bursts(2, 50_000, 8, 2);
        bursts(2, 200_000, 1, 1);
    }

    /**
     * Each producer submits a burst and waits for it: threads go idle between bursts, so every burst races the
     * threads' decision to park with the producers' hand-offs, wake tokens and queueing. A lost wake-up strands a
     * task and fails the wait.
     */
    private static void bursts(int producers, int burstsPerProducer, int burstSize, int threads) throws Exception {
        ThreadPool pool = ThreadPool.builder()
                .name("bursts")
                .minThreads(threads)
                .maxThreads(threads)
                .daemon(true)
                .build();
        pool.start();
        try {
            List<Thread> producerThreads = new ArrayList<>();
            AtomicLong failures = new AtomicLong();
            for (int p = 0; p < producers; p++) {
                producerThreads.add(Thread.ofPlatform().start(() -> {
                    for (int b = 0; b < burstsPerProducer && failures.get() == 0; b++) {
                        CountDownLatch burst = new CountDownLatch(burstSize);
                        for (int i = 0; i < burstSize; i++) {
                            pool.execute(burst::countDown);
                        }
                        try {
                            if (!burst.await(10, TimeUnit.SECONDS)) {
                                failures.incrementAndGet();
                            }
                        } catch (InterruptedException x) {
                            throw new AssertionError(x);
                        }
                    }
                }));
            }
            for (Thread thread : producerThreads) {
                thread.join(TimeUnit.SECONDS.toMillis(120));
                assertFalse(thread.isAlive(), "producer stuck: " + thread + "\n" + pool.dump());
            }
            assertEquals(0, failures.get(), () -> "a burst never completed\n" + pool.dump());
            long total = (long) producers * burstsPerProducer * burstSize;
            until("all counted", () -> pool.statistics().tasksCompleted() == total, pool::statistics);
        } finally {
            pool.stop();
        }
    }

    @Test
    void executeWithABoundedQueueEitherRunsOrRejectsEveryTask() throws Exception {
        ThreadPool pool = ThreadPool.builder()
                .minThreads(0)
                .maxThreads(2)
                .queueCapacity(16)
                .idleTimeout(Duration.ofMillis(1))
                .daemon(true)
                .build();
        pool.start();
        try {
            int producers = 4;
            int tasksPerProducer = 20_000;
            AtomicLong ran = new AtomicLong();
            AtomicLong rejected = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < tasksPerProducer; i++) {
                        try {
                            pool.execute(ran::incrementAndGet);
                        } catch (RejectedExecutionException x) {
                            rejected.incrementAndGet();
                        }
                    }
                }));
            }
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(60));
            }
            until(
                    "every admitted task ran",
                    () -> ran.get() + rejected.get() == (long) producers * tasksPerProducer,
                    () -> ran + " ran, " + rejected + " rejected\n" + pool.dump());
            until("counted", () -> pool.statistics().tasksCompleted() == ran.get(), pool::statistics);
            assertEquals(rejected.get(), pool.statistics().tasksRejected());
            assertTrue(pool.statistics().maxQueueSize() <= 16, pool.statistics()::toString);
        } finally {
            pool.stop();
        }
    }
}
