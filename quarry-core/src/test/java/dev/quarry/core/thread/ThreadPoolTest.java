package dev.quarry.core.thread;

import static dev.quarry.core.thread.Awaits.until;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.Attribute;
import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class ThreadPoolTest {
    private final List<ThreadPool> pools = new ArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);

    private ThreadPool start(ThreadPoolBuilder builder) {
        ThreadPool pool = builder.daemon(true).build();
        pools.add(pool);
        pool.start();
        return pool;
    }

    @AfterEach
    void stopPools() throws Exception {
        release.countDown();
        for (ThreadPool pool : pools) {
            pool.stop();
        }
    }

    /** A task that blocks until the test releases it, counting itself in {@code started}. */
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

    private static boolean await(CountDownLatch latch) throws InterruptedException {
        return latch.await(Awaits.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Test
    void executeRunsTheTaskOnAPoolThread() throws Exception {
        ThreadPool pool = start(ThreadPool.builder().name("exec").minThreads(1).maxThreads(2));
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        pool.execute(() -> {
            ranOn.set(Thread.currentThread());
            done.countDown();
        });
        assertTrue(await(done));
        assertNotSame(Thread.currentThread(), ranOn.get());
        assertTrue(ranOn.get().getName().startsWith("exec-"), ranOn.get().getName());
        assertTrue(ranOn.get().isDaemon());
    }

    @Test
    void startStartsTheMinimumNumberOfThreads() {
        ThreadPool pool = start(ThreadPool.builder().minThreads(3).maxThreads(5));
        assertEquals(3, pool.statistics().threads());
        until("3 idle threads", () -> pool.idle().waiting() == 3, pool::statistics);
        assertEquals(3, pool.statistics().idle());
        assertEquals(0, pool.statistics().busy());
    }

    @RepeatedTest(20)
    void aBurstOfBlockingTasksGetsAThreadEachWhileIdleThreadsAreBeingWoken() throws Exception {
        // Idle threads waiting: the first task takes the wake token, the next ones queue while it is held, and each
        // woken thread passes one signal on. Without a thread that takes a job passing the signal on too, the last
        // job of the burst waited for a blocked thread to finish (seen as a 20 s stall with four blocking handlers).
        ThreadPool pool = start(ThreadPool.builder().minThreads(4).maxThreads(16));
        until("4 idle threads", () -> pool.idle().waiting() == 4, pool::statistics);
        int tasks = 8;
        CountDownLatch started = new CountDownLatch(tasks);
        for (int i = 0; i < tasks; i++) {
            pool.execute(blocker(started));
        }

        assertTrue(await(started), () -> (tasks - started.getCount()) + " of " + tasks + " started: " + pool.dump());
    }

    @Test
    void poolGrowsToItsMaximumAndQueuesBeyond() throws Exception {
        ThreadPool pool = start(ThreadPool.builder().minThreads(0).maxThreads(3));
        CountDownLatch started = new CountDownLatch(3);
        for (int i = 0; i < 10; i++) {
            pool.execute(blocker(started));
        }
        assertTrue(await(started));
        ThreadPoolStatistics statistics = pool.statistics();
        assertEquals(3, statistics.threads(), statistics::toString);
        assertEquals(3, statistics.busy(), statistics::toString);
        assertEquals(7, statistics.queueSize(), statistics::toString);
        assertTrue(statistics.maxQueueSize() >= 7, statistics::toString);
    }

    @Test
    void aBurstOfTasksReachesEveryIdleThread() throws Exception {
        // Producers wake one idle thread at a time (the wake token); each woken thread wakes the next while jobs
        // remain queued, so all four blockers must end up running at once.
        ThreadPool pool = start(ThreadPool.builder().minThreads(4).maxThreads(4));
        until("4 idle threads", () -> pool.idle().waiting() == 4, pool::statistics);
        CountDownLatch started = new CountDownLatch(4);
        for (int i = 0; i < 4; i++) {
            pool.execute(blocker(started));
        }
        assertTrue(await(started), pool::dump);
        assertEquals(4, pool.statistics().busy());
    }

    @Test
    void threadsAboveTheMinimumExitAfterTheIdleTimeout() throws Exception {
        ThreadPool pool = start(ThreadPool.builder().minThreads(1).maxThreads(4).idleTimeout(Duration.ofMillis(50)));
        CountDownLatch started = new CountDownLatch(4);
        for (int i = 0; i < 4; i++) {
            pool.execute(blocker(started));
        }
        assertTrue(await(started));
        assertEquals(4, pool.statistics().threads());
        release.countDown();
        until("shrink to the minimum", () -> pool.statistics().threads() == 1, pool::statistics);
        until(
                "one thread alive",
                () -> pool.dump().lines().filter(l -> l.contains("+- quarry-")).count() == 1,
                pool::dump);
        // The survivor still works.
        CountDownLatch done = new CountDownLatch(1);
        pool.execute(done::countDown);
        assertTrue(await(done));
    }

    @Test
    void threadsAtTheMinimumDoNotExit() throws Exception {
        ThreadPool pool = start(ThreadPool.builder().minThreads(2).maxThreads(2).idleTimeout(Duration.ofMillis(1)));
        until("2 idle threads", () -> pool.idle().waiting() == 2, pool::statistics);
        // Let many idle timeouts pass while polling: the count must stay.
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        while (System.nanoTime() < until) {
            assertEquals(2, pool.statistics().threads());
            Thread.onSpinWait();
        }
    }

    @Test
    void boundedQueueRejectsWhenFullNamingThePoolAndTheCapacity() throws Exception {
        ThreadPool pool = start(
                ThreadPool.builder().name("tiny").minThreads(1).maxThreads(1).queueCapacity(2));
        CountDownLatch started = new CountDownLatch(1);
        pool.execute(blocker(started));
        assertTrue(await(started));
        pool.execute(() -> {});
        pool.execute(() -> {});
        RejectedExecutionException rejected =
                assertThrows(RejectedExecutionException.class, () -> pool.execute(() -> {}));
        assertTrue(rejected.getMessage().contains("tiny"), rejected.getMessage());
        assertTrue(rejected.getMessage().contains("capacity 2"), rejected.getMessage());
        assertEquals(1, pool.statistics().tasksRejected());
        assertEquals(2, pool.statistics().queueSize());
        release.countDown();
        until("queue drained", () -> pool.statistics().tasksCompleted() == 3, pool::statistics);
        pool.execute(() -> {}); // room again
    }

    @Test
    void executeRejectsBeforeStartAndAfterStop() throws Exception {
        ThreadPool pool = ThreadPool.builder().name("idle-pool").daemon(true).build();
        RejectedExecutionException before =
                assertThrows(RejectedExecutionException.class, () -> pool.execute(() -> {}));
        assertTrue(before.getMessage().contains("idle-pool is STOPPED"), before.getMessage());
        pool.start();
        pool.stop();
        assertFalse(pool.isRunning());
        assertThrows(RejectedExecutionException.class, () -> pool.execute(() -> {}));
        assertFalse(pool.tryExecute(() -> {}));
    }

    @Test
    void stopLetsRunningAndQueuedJobsFinish() throws Exception {
        ThreadPool pool = start(ThreadPool.builder().minThreads(1).maxThreads(1).stopTimeout(Duration.ofSeconds(20)));
        CountDownLatch started = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        pool.execute(blocker(started));
        assertTrue(await(started));
        for (int i = 0; i < 5; i++) {
            pool.execute(ran::incrementAndGet);
        }
        Thread stopper = Thread.ofPlatform().start(() -> {
            try {
                pool.stop();
            } catch (Exception x) {
                throw new AssertionError(x);
            }
        });
        until("stopping", () -> !pool.isRunning());
        assertThrows(RejectedExecutionException.class, () -> pool.execute(() -> {}));
        release.countDown();
        stopper.join(Awaits.TIMEOUT.toMillis());
        assertFalse(stopper.isAlive());
        assertEquals(5, ran.get());
        assertEquals(0, pool.statistics().threads());
    }

    @Test
    void stopWithATimeoutReturnsWithinItEvenWhenATaskIgnoresInterrupts() throws Exception {
        // The stop timeout, applied twice by stop(), would take 40 s: an owner with a deadline passes its own.
        ThreadPool pool = start(ThreadPool.builder().minThreads(1).maxThreads(2).stopTimeout(Duration.ofSeconds(20)));
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger interrupts = new AtomicInteger();
        pool.execute(() -> {
            started.countDown();
            while (!done.get()) {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
                if (Thread.interrupted()) {
                    interrupts.incrementAndGet(); // and carries on regardless
                }
            }
        });
        assertTrue(await(started));

        long begin = System.nanoTime();
        int left = pool.stop(Duration.ofMillis(400));
        Duration took = Duration.ofNanos(System.nanoTime() - begin);

        done.set(true);
        assertEquals(1, left, "the task that ignored its interrupt");
        assertTrue(interrupts.get() > 0, "interrupted once the first half of the timeout passed");
        assertTrue(took.compareTo(Duration.ofSeconds(2)) < 0, "stop took " + took + " for a 400 ms timeout");
        assertFalse(pool.isRunning());
    }

    @Test
    void stopInterruptsTasksThatOutliveTheStopTimeoutAndDiscardsTheQueue() throws Exception {
        ThreadPool pool = start(ThreadPool.builder().minThreads(1).maxThreads(1).stopTimeout(Duration.ofMillis(100)));
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicInteger queuedRan = new AtomicInteger();
        pool.execute(() -> {
            started.countDown();
            try {
                new CountDownLatch(1).await(); // forever, unless interrupted
            } catch (InterruptedException x) {
                interrupted.set(true);
            }
        });
        assertTrue(await(started));
        pool.execute(queuedRan::incrementAndGet);
        pool.stop();
        assertTrue(interrupted.get());
        assertEquals(0, queuedRan.get());
        assertEquals(0, pool.statistics().threads());
        assertEquals(0, pool.statistics().queueSize());
    }

    @Test
    void stopCalledFromAPoolThreadDoesNotWaitForItself() throws Exception {
        ThreadPool pool = start(ThreadPool.builder().minThreads(1).maxThreads(2).stopTimeout(Duration.ofSeconds(20)));
        CountDownLatch stopped = new CountDownLatch(1);
        pool.execute(() -> {
            try {
                pool.stop();
                stopped.countDown();
            } catch (Exception x) {
                throw new AssertionError(x);
            }
        });
        assertTrue(await(stopped));
        assertFalse(pool.isRunning());
    }

    @Test
    void aStoppedPoolCanBeStartedAgain() throws Exception {
        ThreadPool pool = start(ThreadPool.builder().minThreads(1).maxThreads(2));
        pool.stop();
        pool.start();
        CountDownLatch done = new CountDownLatch(1);
        pool.execute(done::countDown);
        assertTrue(await(done));
    }

    @Test
    void aFailingTaskDoesNotKillItsThread() throws Exception {
        ThreadPool pool = start(ThreadPool.builder().minThreads(1).maxThreads(1));
        Set<Thread> threads = ConcurrentHashMap.newKeySet();
        CountDownLatch done = new CountDownLatch(1);
        pool.execute(() -> {
            threads.add(Thread.currentThread());
            throw new IllegalStateException("expected by the test");
        });
        pool.execute(() -> {
            threads.add(Thread.currentThread());
            done.countDown();
        });
        assertTrue(await(done));
        assertEquals(1, threads.size());
        assertEquals(1, pool.statistics().threads());
    }

    @Test
    void anInterruptLeftByATaskDoesNotReachTheNextTask() throws Exception {
        ThreadPool pool = start(ThreadPool.builder().minThreads(1).maxThreads(1));
        AtomicBoolean nextSawInterrupt = new AtomicBoolean(true);
        CountDownLatch done = new CountDownLatch(1);
        pool.execute(() -> Thread.currentThread().interrupt());
        pool.execute(() -> {
            nextSawInterrupt.set(Thread.currentThread().isInterrupted());
            done.countDown();
        });
        assertTrue(await(done));
        assertFalse(nextSawInterrupt.get());
    }

    @Test
    void raisingMinThreadsAtRunTimeStartsThreads() {
        ThreadPool pool = start(ThreadPool.builder().minThreads(1).maxThreads(4));
        pool.setMinThreads(3);
        assertEquals(3, pool.getMinThreads());
        assertEquals(3, pool.statistics().threads());
    }

    @Test
    void loweringMaxThreadsAtRunTimeStopsIdleThreadsAboveIt() {
        ThreadPool pool = start(ThreadPool.builder().minThreads(4).maxThreads(4));
        until("4 idle threads", () -> pool.idle().waiting() == 4, pool::statistics);
        pool.setMinThreads(1);
        pool.setMaxThreads(2);
        until("shrink to 2", () -> pool.statistics().threads() == 2, pool::statistics);
    }

    @Test
    void shorteningTheIdleTimeoutAtRunTimeAppliesToIdleThreads() throws Exception {
        ThreadPool pool = start(ThreadPool.builder().minThreads(1).maxThreads(3).idleTimeout(Duration.ofHours(1)));
        CountDownLatch started = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            pool.execute(blocker(started));
        }
        assertTrue(await(started));
        release.countDown();
        until("3 idle threads", () -> pool.idle().waiting() == 3, pool::statistics);
        pool.setIdleTimeoutMillis(10);
        until("shrink to 1", () -> pool.statistics().threads() == 1, pool::statistics);
        assertEquals(10, pool.getIdleTimeoutMillis());
    }

    @Test
    void runTimeSettersRejectInconsistentValuesNamingThem() {
        ThreadPool pool = start(ThreadPool.builder().minThreads(2).maxThreads(4));
        IllegalArgumentException min = assertThrows(IllegalArgumentException.class, () -> pool.setMinThreads(5));
        assertTrue(min.getMessage().contains("was 5"), min.getMessage());
        IllegalArgumentException max = assertThrows(IllegalArgumentException.class, () -> pool.setMaxThreads(1));
        assertTrue(max.getMessage().contains("was 1"), max.getMessage());
        assertThrows(IllegalArgumentException.class, () -> pool.setIdleTimeoutMillis(0));
    }

    @Test
    void builderRejectsBadConfigurationNamingTheValue() {
        assertThrows(IllegalArgumentException.class, () -> ThreadPool.builder().minThreads(-1));
        assertThrows(IllegalArgumentException.class, () -> ThreadPool.builder().maxThreads(0));
        assertThrows(IllegalArgumentException.class, () -> ThreadPool.builder().queueCapacity(0));
        assertThrows(IllegalArgumentException.class, () -> ThreadPool.builder().reservedThreads(-2));
        assertThrows(IllegalArgumentException.class, () -> ThreadPool.builder().idleTimeout(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> ThreadPool.builder().name(" "));
        IllegalArgumentException x = assertThrows(
                IllegalArgumentException.class,
                () -> ThreadPool.builder().minThreads(5).maxThreads(4).build());
        assertTrue(x.getMessage().contains("minThreads (5)"), x.getMessage());
    }

    @Test
    void automaticReservedThreadsAreOnePerCoreUpToAnEighthOfTheMaximum() {
        int cores = Runtime.getRuntime().availableProcessors();
        assertEquals(
                Math.min(cores, 25),
                ThreadPool.builder().maxThreads(200).build().getReservedThreadsCapacity());
        assertEquals(0, ThreadPool.builder().minThreads(2).maxThreads(4).build().getReservedThreadsCapacity());
        assertEquals(3, ThreadPool.builder().reservedThreads(3).build().getReservedThreadsCapacity());
    }

    @Test
    void poolIsAValidMXBeanWhoseSettersTakeEffect() throws Exception {
        ThreadPool pool = start(ThreadPool.builder().name("jmx").minThreads(1).maxThreads(4));
        assertTrue(JMX.isMXBeanInterface(ThreadPoolMXBean.class));
        MBeanServer server = MBeanServerFactory.newMBeanServer(); // private: the pool is not registered globally
        ObjectName name = new ObjectName("dev.quarry:type=ThreadPool,name=jmx");
        server.registerMBean(pool, name);
        try {
            assertEquals(1, server.getAttribute(name, "Threads"));
            assertEquals("jmx", server.getAttribute(name, "Name"));
            assertEquals(-1L, server.getAttribute(name, "QueueCapacity"));
            server.setAttribute(name, new Attribute("MinThreads", 2));
            assertEquals(2, pool.getMinThreads());
            assertEquals(2, pool.statistics().threads());
            server.setAttribute(name, new Attribute("IdleTimeoutMillis", 1234L));
            assertEquals(Duration.ofMillis(1234), pool.idleTimeout());
            server.invoke(name, "resetStatistics", new Object[0], new String[0]);
            assertTrue(((String) server.getAttribute(name, "StatisticsTable")).contains("queue latency avg/max:"));
        } finally {
            server.unregisterMBean(name);
        }
        assertFalse(ManagementFactory.getPlatformMBeanServer().isRegistered(name));
    }

    @Test
    void toStringAndDumpDescribeTheLiveState() throws Exception {
        ThreadPool pool =
                start(ThreadPool.builder().name("dumped").minThreads(1).maxThreads(1));
        CountDownLatch started = new CountDownLatch(1);
        Runnable blocker = blocker(started);
        pool.execute(blocker);
        assertTrue(await(started));
        pool.execute(() -> {});
        String string = pool.toString();
        assertTrue(string.contains("ThreadPool[dumped]{RUNNING, threads=1 (1..1)"), string);
        String dump = pool.dump();
        assertTrue(dump.contains("dumped-1 BUSY " + blocker), dump);
        assertTrue(dump.contains("queue: JobQueue{size=1"), dump);
        assertTrue(dump.contains("max queue size:         1"), dump);
    }
}
