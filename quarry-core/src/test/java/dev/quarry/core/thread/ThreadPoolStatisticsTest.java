package dev.quarry.core.thread;

import static dev.quarry.core.thread.Awaits.until;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ThreadPoolStatisticsTest {
    private static final long MILLI = TimeUnit.MILLISECONDS.toNanos(1);

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

    /** Runs for at least {@code nanos} of wall-clock time: a task of known length, not a wait for an event. */
    private static void spinFor(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }

    private static void await(CountDownLatch latch) throws InterruptedException {
        assertTrue(latch.await(Awaits.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
    }

    @Test
    void tasksQueuedBehindABusyThreadHaveTheirQueueLatencyAndTaskTimeMeasured() throws Exception {
        start(ThreadPool.builder().minThreads(1).maxThreads(1));
        CountDownLatch started = new CountDownLatch(1);
        pool.execute(() -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
        });
        await(started);
        int queued = 5;
        CountDownLatch done = new CountDownLatch(queued);
        for (int i = 0; i < queued; i++) {
            pool.execute(() -> {
                spinFor(2 * MILLI);
                done.countDown();
            });
        }
        release.countDown();
        await(done);
        until("all counted", () -> pool.statistics().tasksCompleted() == queued + 1, pool::statistics);
        ThreadPoolStatistics statistics = pool.statistics();
        // The last queued task waited for the four before it, 2 ms each.
        assertTrue(statistics.queueLatencyMaxNanos() >= 8 * MILLI, statistics::toString);
        assertTrue(statistics.queueLatencyAverageNanos() > 0, statistics::toString);
        assertTrue(statistics.queueLatencyAverageNanos() <= statistics.queueLatencyMaxNanos(), statistics::toString);
        assertTrue(statistics.taskTimeMaxNanos() >= 2 * MILLI, statistics::toString);
        assertTrue(statistics.taskTimeAverageNanos() >= MILLI, statistics::toString);
        assertEquals(queued, statistics.maxQueueSize(), statistics::toString);
        assertEquals(0, statistics.queueSize(), statistics::toString);
    }

    @Test
    void maxBusyIsTheMostThreadsRunningTasksAtOnce() throws Exception {
        start(ThreadPool.builder().minThreads(0).maxThreads(3).idleTimeout(Duration.ofMillis(20)));
        CountDownLatch started = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            pool.execute(() -> {
                started.countDown();
                try {
                    release.await();
                } catch (InterruptedException x) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        await(started);
        assertEquals(3, pool.statistics().busy());
        release.countDown();
        until("shrink", () -> pool.statistics().threads() == 0, pool::statistics);
        ThreadPoolStatistics statistics = pool.statistics();
        assertEquals(3, statistics.maxBusy(), statistics::toString);
        assertEquals(0, statistics.busy(), statistics::toString);
        assertEquals(3, statistics.tasksCompleted(), statistics::toString);
    }

    @Test
    void aTaskHandedToAnIdleThreadIsCountedAsAHandOffWithoutQueueLatency() throws Exception {
        start(ThreadPool.builder().minThreads(1).maxThreads(1));
        until("idle thread", () -> pool.idle().waiting() == 1, pool::statistics);
        CountDownLatch done = new CountDownLatch(1);
        pool.execute(done::countDown);
        await(done);
        until("counted", () -> pool.statistics().tasksCompleted() == 1, pool::statistics);
        ThreadPoolStatistics statistics = pool.statistics();
        assertEquals(1, statistics.handOffs(), statistics::toString);
        assertEquals(0, statistics.queueLatencyMaxNanos(), statistics::toString);
        assertEquals(0, statistics.maxQueueSize(), statistics::toString);
    }

    @Test
    void completedTasksOfThreadsThatExitedAreStillCounted() throws Exception {
        start(ThreadPool.builder().minThreads(0).maxThreads(2).idleTimeout(Duration.ofMillis(10)));
        CountDownLatch done = new CountDownLatch(10);
        for (int i = 0; i < 10; i++) {
            pool.execute(done::countDown);
        }
        await(done);
        until("all threads exited", () -> pool.statistics().threads() == 0, pool::statistics);
        until("counted", () -> pool.statistics().tasksCompleted() == 10, pool::statistics);
    }

    @Test
    void resetStatisticsStartsTheCountsAfresh() throws Exception {
        start(ThreadPool.builder().minThreads(2).maxThreads(2));
        CountDownLatch first = new CountDownLatch(20);
        for (int i = 0; i < 20; i++) {
            pool.execute(first::countDown);
        }
        await(first);
        until("counted", () -> pool.statistics().tasksCompleted() == 20, pool::statistics);
        pool.resetStatistics();
        ThreadPoolStatistics reset = pool.statistics();
        assertEquals(0, reset.tasksCompleted(), reset::toString);
        assertEquals(0, reset.taskTimeMaxNanos(), reset::toString);
        CountDownLatch second = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            pool.execute(second::countDown);
        }
        await(second);
        until("counted after reset", () -> pool.statistics().tasksCompleted() == 3, pool::statistics);
    }

    @Test
    void toStringIsATableLikeTheJettyBlogs() {
        ThreadPoolStatistics statistics = new ThreadPoolStatistics(
                "qtp", 174, 140, 30, 34, 4, 0, 152, 302146, 1000, 0, 100_000, 11_000_000, 1_000_000, 3_316_000_000L);
        String table = statistics.toString();
        assertTrue(table.contains("threads:                174"), table);
        assertTrue(table.contains("max busy threads:       34"), table);
        assertTrue(table.contains("max queue size:         152"), table);
        assertTrue(table.contains("queue latency avg/max:  0/11 ms"), table);
        assertTrue(table.contains("task time avg/max:      1/3316 ms"), table);
        assertEquals(Duration.ofMillis(11), statistics.queueLatencyMax());
    }
}
