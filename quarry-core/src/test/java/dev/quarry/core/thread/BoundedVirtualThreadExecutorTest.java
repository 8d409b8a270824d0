package dev.quarry.core.thread;

import static dev.quarry.core.thread.Awaits.until;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BoundedVirtualThreadExecutorTest {
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void releaseBlockers() {
        release.countDown();
    }

    private Runnable blocker(CountDownLatch started) {
        return () -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
        };
    }

    private static void await(CountDownLatch latch) throws InterruptedException {
        assertTrue(latch.await(Awaits.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
    }

    @Test
    void eachTaskRunsOnItsOwnNamedVirtualThread() throws Exception {
        BoundedVirtualThreadExecutor executor = new BoundedVirtualThreadExecutor("app", 2, 100);
        Set<Thread> threads = ConcurrentHashMap.newKeySet();
        CountDownLatch done = new CountDownLatch(10);
        for (int i = 0; i < 10; i++) {
            executor.execute(() -> {
                threads.add(Thread.currentThread());
                done.countDown();
            });
        }
        await(done);
        assertEquals(10, threads.size());
        for (Thread thread : threads) {
            assertTrue(thread.isVirtual());
            assertEquals("app", thread.getName());
        }
    }

    @Test
    void neverMoreThanMaxConcurrentTasksRunAtOnce() throws Exception {
        int maxConcurrent = 4;
        BoundedVirtualThreadExecutor executor = new BoundedVirtualThreadExecutor("bounded", maxConcurrent, 10_000);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger highWater = new AtomicInteger();
        int producers = 4;
        int perProducer = 500;
        CountDownLatch done = new CountDownLatch(producers * perProducer);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < perProducer; i++) {
                    executor.execute(() -> {
                        int now = running.incrementAndGet();
                        highWater.accumulateAndGet(now, Math::max);
                        Thread.yield(); // give other tasks a chance to overlap
                        running.decrementAndGet();
                        done.countDown();
                    });
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join(Awaits.TIMEOUT.toMillis());
        }
        await(done);
        assertTrue(highWater.get() <= maxConcurrent, "high-water mark " + highWater.get());
        until("counted", () -> executor.statistics().completed() == producers * perProducer, executor::toString);
        BoundedVirtualThreadExecutor.Statistics statistics = executor.statistics();
        assertTrue(statistics.maxRunning() <= maxConcurrent, statistics::toString);
        assertTrue(statistics.maxRunning() >= highWater.get(), statistics::toString);
        assertEquals(0, statistics.rejected());
        until("idle", () -> executor.statistics().running() == 0, executor::toString);
    }

    @Test
    void beyondTheRunningAndQueuedLimitsExecuteRejectsNamingThem() throws Exception {
        BoundedVirtualThreadExecutor executor = new BoundedVirtualThreadExecutor("limited", 2, 3);
        CountDownLatch started = new CountDownLatch(2);
        executor.execute(blocker(started));
        executor.execute(blocker(started));
        await(started);
        AtomicInteger queuedRan = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            executor.execute(queuedRan::incrementAndGet);
        }
        assertEquals(new BoundedVirtualThreadExecutor.Statistics(2, 3, 2, 0, 0), executor.statistics());
        RejectedExecutionException rejected =
                assertThrows(RejectedExecutionException.class, () -> executor.execute(() -> {}));
        assertTrue(rejected.getMessage().contains("maxConcurrent=2"), rejected.getMessage());
        assertTrue(rejected.getMessage().contains("maxQueued=3"), rejected.getMessage());
        assertTrue(rejected.getMessage().contains("limited"), rejected.getMessage());
        assertEquals(1, executor.statistics().rejected());
        release.countDown();
        until("queued tasks ran", () -> queuedRan.get() == 3, executor::toString);
        until("all completed", () -> executor.statistics().completed() == 5, executor::toString);
        until("idle", () -> executor.statistics().running() == 0, executor::toString);
    }

    @Test
    void aQueuedTaskStartsWhenARunningTaskEnds() throws Exception {
        BoundedVirtualThreadExecutor executor = new BoundedVirtualThreadExecutor("handover", 1, 1);
        CountDownLatch started = new CountDownLatch(1);
        executor.execute(blocker(started));
        await(started);
        CountDownLatch queued = new CountDownLatch(1);
        executor.execute(queued::countDown);
        assertEquals(1, executor.statistics().queued());
        release.countDown();
        await(queued);
        until("idle", () -> executor.statistics().running() == 0, executor::toString);
        assertEquals(1, executor.statistics().maxRunning());
    }

    @Test
    void everyAdmittedTaskRunsUnderConcurrentProducers() throws Exception {
        BoundedVirtualThreadExecutor executor = new BoundedVirtualThreadExecutor("admitted", 8, 64);
        AtomicLong admitted = new AtomicLong();
        AtomicLong rejected = new AtomicLong();
        AtomicLong ran = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 5_000; i++) {
                    try {
                        executor.execute(ran::incrementAndGet);
                        admitted.incrementAndGet();
                    } catch (RejectedExecutionException x) {
                        rejected.incrementAndGet();
                    }
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join(Awaits.TIMEOUT.toMillis());
        }
        until("every admitted task ran", () -> ran.get() == admitted.get(), executor::toString);
        until("all completed", () -> executor.statistics().completed() == admitted.get(), executor::toString);
        assertEquals(rejected.get(), executor.statistics().rejected());
        assertEquals(20_000, admitted.get() + rejected.get());
    }

    @Test
    void aFailingTaskIsCountedAndFreesItsSlot() throws Exception {
        BoundedVirtualThreadExecutor executor = new BoundedVirtualThreadExecutor("failing", 1, 0);
        executor.execute(() -> {
            throw new IllegalStateException("expected by the test");
        });
        until("slot freed", () -> executor.statistics().running() == 0, executor::toString);
        CountDownLatch done = new CountDownLatch(1);
        executor.execute(done::countDown);
        await(done);
    }

    @Test
    void dumpShowsTheCounts() throws Exception {
        BoundedVirtualThreadExecutor executor = new BoundedVirtualThreadExecutor("dumped", 2, 2);
        CountDownLatch started = new CountDownLatch(1);
        executor.execute(blocker(started));
        await(started);
        String dump = executor.dump();
        assertTrue(dump.startsWith("BoundedVirtualThreadExecutor[dumped]{running=1/2"), dump);
    }

    @Test
    void afterStopQueuedTasksNeverStartAndNewOnesAreRejected() throws Exception {
        BoundedVirtualThreadExecutor executor = new BoundedVirtualThreadExecutor("stopping", 1, 4);
        CountDownLatch started = new CountDownLatch(1);
        executor.execute(blocker(started));
        await(started);
        AtomicInteger queuedRan = new AtomicInteger();
        executor.execute(queuedRan::incrementAndGet);
        executor.execute(queuedRan::incrementAndGet);
        assertEquals(2, executor.stop());
        RejectedExecutionException x =
                assertThrows(RejectedExecutionException.class, () -> executor.execute(queuedRan::incrementAndGet));
        assertTrue(x.getMessage().contains("stopped"), x.getMessage());
        release.countDown();
        until("the running task ended", () -> executor.statistics().running() == 0, executor::toString);
        assertEquals(0, queuedRan.get(), "a task queued before stop() started after it");
        assertEquals(0, executor.statistics().queued());
        assertTrue(executor.toString().contains("dropped=2"), executor.toString());
    }

    @Test
    void queuedTasksRunInOrderWithoutWaitingForTheirProducers() throws Exception {
        BoundedVirtualThreadExecutor executor = new BoundedVirtualThreadExecutor("ordered", 1, 100);
        CountDownLatch started = new CountDownLatch(1);
        executor.execute(blocker(started));
        await(started);
        List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
        CountDownLatch all = new CountDownLatch(50);
        for (int i = 0; i < 50; i++) {
            int n = i;
            executor.execute(() -> {
                order.add(n);
                all.countDown();
            });
        }
        release.countDown();
        await(all);
        for (int i = 0; i < 50; i++) {
            assertEquals(i, order.get(i));
        }
    }

    @Test
    void constructorRejectsBadLimits() {
        assertThrows(IllegalArgumentException.class, () -> new BoundedVirtualThreadExecutor("x", 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new BoundedVirtualThreadExecutor("x", 1, -1));
    }
}
