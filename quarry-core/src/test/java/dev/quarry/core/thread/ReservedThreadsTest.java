package dev.quarry.core.thread;

import static dev.quarry.core.thread.Awaits.until;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReservedThreadsTest {
    private ThreadPool pool;
    private final CountDownLatch release = new CountDownLatch(1);

    private ThreadPool start(ThreadPoolBuilder builder) {
        pool = builder.daemon(true).build();
        pool.start();
        return pool;
    }

    @AfterEach
    void stop() throws Exception {
        release.countDown();
        if (pool != null) {
            pool.stop();
        }
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
    void tryExecuteFailsWhenNoReservedThreadWaits() {
        start(ThreadPool.builder().minThreads(2).maxThreads(4).reservedThreads(1));
        assertFalse(pool.tryExecute(() -> {}));
        assertEquals(1, pool.reservedThreads().misses());
    }

    @Test
    void tryExecuteSucceedsOnceAReservedThreadWaitsAndRunsTheTaskOnIt() throws Exception {
        start(ThreadPool.builder().minThreads(2).maxThreads(4).reservedThreads(1));
        assertFalse(pool.tryExecute(() -> {})); // recruits a reserved thread
        until("a reserved thread", () -> pool.reservedThreads().reserved() == 1, pool::dump);
        assertEquals(1, pool.statistics().reserved());
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        assertTrue(pool.tryExecute(() -> {
            ranOn.set(Thread.currentThread());
            done.countDown();
        }));
        await(done);
        assertNotSame(Thread.currentThread(), ranOn.get());
        assertTrue(ranOn.get() instanceof PoolThread);
        assertEquals(1, pool.reservedThreads().handOffs());
        until("counted", () -> pool.statistics().handOffs() == 1, pool::statistics);
        // The reserved thread taken is replaced.
        until("replenished", () -> pool.reservedThreads().reserved() == 1, pool::dump);
    }

    @Test
    void aHandedOffTaskRunsAtOnceEvenWhenTheJobQueueIsFullOfBlockedTasks() throws Exception {
        start(ThreadPool.builder()
                .minThreads(1)
                .maxThreads(3)
                .reservedThreads(1)
                .queueCapacity(4));
        assertFalse(pool.tryExecute(() -> {}));
        until("a reserved thread", () -> pool.reservedThreads().reserved() == 1, pool::dump);
        // Every other thread blocks, and the queue fills up behind them.
        CountDownLatch started = new CountDownLatch(2);
        pool.execute(blocker(started));
        pool.execute(blocker(started));
        await(started);
        CountDownLatch queuedStarted = new CountDownLatch(4);
        for (int i = 0; i < 4; i++) {
            pool.execute(blocker(queuedStarted));
        }
        assertThrows(RejectedExecutionException.class, () -> pool.execute(() -> {}));
        assertEquals(4, pool.statistics().queueSize());
        CountDownLatch handedOff = new CountDownLatch(1);
        AtomicLong queuedStillWaiting = new AtomicLong(-1);
        assertTrue(pool.tryExecute(() -> {
            queuedStillWaiting.set(queuedStarted.getCount());
            handedOff.countDown();
        }));
        await(handedOff);
        assertEquals(4, queuedStillWaiting.get(), "the handed-off task ran before any queued task");
    }

    @Test
    void aReservedThreadThatWaitsLongerThanTheIdleTimeoutGoesBackToNormalDuty() throws Exception {
        start(ThreadPool.builder()
                .minThreads(2)
                .maxThreads(2)
                .reservedThreads(1)
                .idleTimeout(Duration.ofHours(1)));
        until("both threads idle", () -> pool.idle().waiting() == 2, pool::dump);
        assertFalse(pool.tryExecute(() -> {}));
        until("a reserved thread", () -> pool.reservedThreads().reserved() == 1, pool::dump);
        assertEquals(1, pool.idle().waiting());
        pool.setIdleTimeoutMillis(20);
        until("reservation ended", () -> pool.reservedThreads().reserved() == 0, pool::dump);
        until("both threads idle again", () -> pool.idle().waiting() == 2, pool::dump);
        assertEquals(0, pool.reservedThreads().pending());
        assertEquals(2, pool.statistics().threads(), "threads at the minimum stay");
        CountDownLatch started = new CountDownLatch(2);
        pool.execute(blocker(started));
        pool.execute(blocker(started));
        await(started); // both threads serve execute() again
    }

    @Test
    void noReservedThreadIsRecruitedWhenEveryThreadIsBusyAtTheMaximum() throws Exception {
        start(ThreadPool.builder().minThreads(2).maxThreads(2).reservedThreads(1));
        CountDownLatch started = new CountDownLatch(2);
        pool.execute(blocker(started));
        pool.execute(blocker(started));
        await(started);
        assertFalse(pool.tryExecute(() -> {}));
        assertEquals(0, pool.reservedThreads().pending(), "a reservation must not be queued behind blocked tasks");
        assertEquals(0, pool.statistics().queueSize());
    }

    @Test
    void zeroCapacityNeverReserves() {
        start(ThreadPool.builder().minThreads(2).maxThreads(2).reservedThreads(0));
        assertFalse(pool.tryExecute(() -> {}));
        assertFalse(pool.tryExecute(() -> {}));
        assertEquals(0, pool.reservedThreads().pending());
        assertEquals(0, pool.reservedThreads().reserved());
    }

    @Test
    void stoppingThePoolReleasesReservedThreads() throws Exception {
        start(ThreadPool.builder()
                .minThreads(1)
                .maxThreads(2)
                .reservedThreads(1)
                .stopTimeout(Duration.ofSeconds(20)));
        assertFalse(pool.tryExecute(() -> {}));
        until("a reserved thread", () -> pool.reservedThreads().reserved() == 1, pool::dump);
        long start = System.nanoTime();
        pool.stop();
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(10).toNanos(), "stop waited for the reservation");
        assertEquals(0, pool.statistics().threads());
        assertEquals(0, pool.reservedThreads().reserved());
    }

    @Test
    void standaloneReservedThreadsDrawThreadsFromAnyExecutor() throws Exception {
        ExecutorService executor = Executors.newCachedThreadPool();
        try {
            ReservedThreads reserved = new ReservedThreads(executor, 2, Duration.ofSeconds(30));
            reserved.start();
            assertFalse(reserved.tryExecute(() -> {}));
            until("a reserved thread", () -> reserved.reserved() == 1, reserved::toString);
            AtomicReference<Thread> ranOn = new AtomicReference<>();
            CountDownLatch done = new CountDownLatch(1);
            assertTrue(reserved.tryExecute(() -> {
                ranOn.set(Thread.currentThread());
                done.countDown();
            }));
            await(done);
            assertNotSame(Thread.currentThread(), ranOn.get());
            until("replenished", () -> reserved.reserved() == 1, reserved::toString);
            assertEquals(1, reserved.handOffs());
            assertEquals(1, reserved.misses());
            assertTrue(reserved.dump().contains("RESERVED"), reserved.dump());
            reserved.stop();
            assertEquals(0, reserved.reserved());
            assertFalse(reserved.tryExecute(() -> {}));
            executor.shutdown();
            assertTrue(
                    executor.awaitTermination(Awaits.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS),
                    "reserved threads went back to the executor");
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void reservationsGrowOnePerMissUpToTheCapacity() {
        List<Runnable> submitted = new ArrayList<>();
        ReservedThreads reserved = new ReservedThreads(submitted::add, 2, Duration.ofSeconds(1));
        reserved.start();
        for (int i = 0; i < 5; i++) {
            assertFalse(reserved.tryExecute(() -> {}));
        }
        assertEquals(2, submitted.size());
        assertEquals(2, reserved.pending());
        assertEquals(5, reserved.misses());
    }

    @Test
    void standaloneReservedThreadsSurviveARejectingExecutor() {
        ReservedThreads reserved = new ReservedThreads(
                task -> {
                    throw new RejectedExecutionException("expected by the test");
                },
                1,
                Duration.ofSeconds(1));
        reserved.start();
        assertFalse(reserved.tryExecute(() -> {}));
        assertEquals(0, reserved.pending());
    }
}
