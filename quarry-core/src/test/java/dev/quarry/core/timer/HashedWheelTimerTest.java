package dev.quarry.core.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Scheduling, timing, where tasks run, the coarse clock and the statistics of {@link HashedWheelTimer}. */
class HashedWheelTimerTest {
    /** Loose on purpose: the machine is small and shared, a late tick is normal, an early one never is. */
    private static final long MAX_LATENESS_NANOS = TimeUnit.SECONDS.toNanos(1);

    private HashedWheelTimer timer;

    private HashedWheelTimer start(HashedWheelTimer.Builder builder) {
        timer = builder.build();
        timer.start();
        return timer;
    }

    @AfterEach
    void stop() {
        if (timer != null) {
            timer.stop();
        }
    }

    /** A non-blocking task that records when it ran. */
    private record Firing(int index, Queue<long[]> fired, CountDownLatch done) implements Invocable.Task {
        @Override
        public void run() {
            fired.add(new long[] {index, System.nanoTime()});
            done.countDown();
        }

        @Override
        public InvocationType invocationType() {
            return InvocationType.NON_BLOCKING;
        }

        @Override
        public String toString() {
            return "Firing#" + index;
        }
    }

    @Test
    void tasksFireInDeadlineOrderAndNeverEarly() throws Exception {
        start(HashedWheelTimer.builder().tickDuration(Duration.ofMillis(5)).wheelSize(64));
        int count = 40;
        List<Integer> delays = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            delays.add(i * 7); // several per tick and several ticks apart
        }
        Collections.shuffle(delays, new Random(42));
        Timeout[] timeouts = new Timeout[count];
        long[] due = new long[count];
        Queue<long[]> fired = new ConcurrentLinkedQueue<>();
        CountDownLatch done = new CountDownLatch(count);
        for (int i = 0; i < count; i++) {
            due[i] = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delays.get(i));
            timeouts[i] = timer.schedule(new Firing(i, fired, done), delays.get(i), TimeUnit.MILLISECONDS);
        }
        Await.latch(done, "all firings");

        long previousDeadline = Long.MIN_VALUE;
        for (long[] firing : fired) {
            int i = (int) firing[0];
            Timeout timeout = timeouts[i];
            long lateness = firing[1] - due[i];
            assertTrue(lateness >= 0, "fired " + lateness + " ns before its delay had passed: " + timeout);
            assertTrue(lateness < MAX_LATENESS_NANOS, "fired " + lateness + " ns late: " + timeout);
            assertTrue(firing[1] - timeout.deadline >= 0, "fired before the deadline the timer fixed: " + timeout);
            // The timer fixes deadlines at its next tick (see Timeout.deadline); it runs tasks in that order exactly.
            assertTrue(
                    previousDeadline == Long.MIN_VALUE || timeout.deadline - previousDeadline >= 0,
                    "fired out of deadline order: " + timeout);
            previousDeadline = timeout.deadline;
            assertTrue(timeout.isExpired());
            assertFalse(timeout.isCancelled());
        }
        assertEquals(count, fired.size());
        Await.ticks(timer, 1);
        assertEquals(count, timer.expiredCount());
        assertEquals(0, timer.pendingCount());
    }

    @Test
    void delaysLongerThanOneRotationWaitForTheirRound() throws Exception {
        // 4 buckets of 5 ms: one rotation is 20 ms, so these wait 2 to 6 rotations.
        start(HashedWheelTimer.builder().tickDuration(Duration.ofMillis(5)).wheelSize(4));
        long[] delays = {45, 60, 95, 120};
        Timeout[] timeouts = new Timeout[delays.length];
        long[] due = new long[delays.length];
        Queue<long[]> fired = new ConcurrentLinkedQueue<>();
        CountDownLatch done = new CountDownLatch(delays.length);
        for (int i = 0; i < delays.length; i++) {
            due[i] = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delays[i]);
            timeouts[i] = timer.schedule(new Firing(i, fired, done), delays[i], TimeUnit.MILLISECONDS);
        }
        Await.latch(done, "firings after several rotations");
        for (long[] firing : fired) {
            int i = (int) firing[0];
            assertTrue(firing[1] - due[i] >= 0, "fired before its delay had passed: " + timeouts[i]);
            assertTrue(firing[1] - due[i] < MAX_LATENESS_NANOS, "fired too late: " + timeouts[i]);
        }
    }

    @Test
    void zeroAndNegativeDelaysRunAtTheNextTick() throws Exception {
        start(HashedWheelTimer.builder().tickDuration(Duration.ofMillis(5)));
        CountDownLatch done = new CountDownLatch(2);
        long before = System.nanoTime();
        Timeout zero = timer.schedule(done::countDown, 0, TimeUnit.MILLISECONDS);
        Timeout negative = timer.schedule(done::countDown, Duration.ofSeconds(-5));
        Await.latch(done, "zero and negative delays");
        assertTrue(System.nanoTime() - before < MAX_LATENESS_NANOS);
        assertTrue(zero.isExpired());
        assertTrue(negative.isExpired());
        assertTrue(negative.deadline - before >= 0, "a negative delay is treated as zero, not as the past");
    }

    @Test
    void nonBlockingTasksAreHandedOffAndRunWithTheMustNotBlockMark() throws Exception {
        start(HashedWheelTimer.builder().name("ticker-under-test"));
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        AtomicBoolean marked = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(1);
        timer.schedule(
                Invocable.task(InvocationType.NON_BLOCKING, () -> {
                    ranOn.set(Thread.currentThread());
                    marked.set(Invocable.isNonBlockingInvocation());
                    done.countDown();
                }),
                1,
                TimeUnit.MILLISECONDS);
        Await.latch(done, "non-blocking task");
        assertNotEquals("ticker-under-test", ranOn.get().getName(), "the ticker only hands tasks off");
        assertTrue(marked.get(), "a non-blocking task runs in non-blocking mode");
    }

    @Test
    void blockingTasksRunOnAVirtualThreadByDefault() throws Exception {
        start(HashedWheelTimer.builder().name("ticker-under-test"));
        AtomicReference<Thread> blocking = new AtomicReference<>();
        AtomicReference<Thread> plain = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(2);
        timer.schedule(
                Invocable.task(InvocationType.BLOCKING, () -> {
                    blocking.set(Thread.currentThread());
                    done.countDown();
                }),
                1,
                TimeUnit.MILLISECONDS);
        timer.schedule(
                () -> { // not Invocable: treated as blocking
                    plain.set(Thread.currentThread());
                    done.countDown();
                },
                1,
                TimeUnit.MILLISECONDS);
        Await.latch(done, "blocking tasks");
        assertTrue(blocking.get().isVirtual(), "ran on " + blocking.get());
        assertTrue(plain.get().isVirtual(), "ran on " + plain.get());
    }

    @Test
    void tasksThatMayBlockGoToTheGivenExecutor() throws Exception {
        AtomicInteger executed = new AtomicInteger();
        Executor executor = task -> {
            executed.incrementAndGet();
            Thread.ofPlatform().name("given-executor").start(task);
        };
        start(HashedWheelTimer.builder().executor(executor));
        AtomicReference<Thread> either = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        timer.schedule(
                Invocable.task(InvocationType.EITHER, () -> {
                    either.set(Thread.currentThread());
                    done.countDown();
                }),
                1,
                TimeUnit.MILLISECONDS);
        Await.latch(done, "either task");
        assertEquals("given-executor", either.get().getName());
        assertEquals(1, executed.get());
    }

    @Test
    void aThrowingTaskIsLoggedAndCountedAndDoesNotStopTheTicker() throws Exception {
        start(HashedWheelTimer.builder().tickDuration(Duration.ofMillis(5)));
        CountDownLatch after = new CountDownLatch(2);
        timer.schedule(
                Invocable.task(InvocationType.NON_BLOCKING, () -> {
                    throw new IllegalStateException("expected by the test: a task on the ticker fails");
                }),
                1,
                TimeUnit.MILLISECONDS);
        timer.schedule(
                () -> {
                    throw new IllegalStateException("expected by the test: a task on the executor fails");
                },
                1,
                TimeUnit.MILLISECONDS);
        timer.schedule(Invocable.task(InvocationType.NON_BLOCKING, after::countDown), 20, TimeUnit.MILLISECONDS);
        timer.schedule(after::countDown, 20, TimeUnit.MILLISECONDS);
        Await.latch(after, "tasks after the failing ones");
        assertTrue(timer.isRunning());
        // Both were logged (System.Logger, visible in the build output); the counter is what a test can see.
        Await.until(() -> timer.failedCount() == 2, timer::toString);
    }

    @Test
    void aRejectingExecutorDoesNotStopTheTicker() throws Exception {
        AtomicBoolean rejectNext = new AtomicBoolean(true);
        start(HashedWheelTimer.builder().executor(task -> {
            if (rejectNext.getAndSet(false)) {
                throw new RejectedExecutionException("expected by the test: executor full");
            }
            Thread.ofVirtual().start(task);
        }));
        CountDownLatch after = new CountDownLatch(1);
        Timeout rejected = timer.schedule(() -> {}, 1, TimeUnit.MILLISECONDS);
        Await.until(rejected::isExpired, timer::toString);
        timer.schedule(Invocable.task(InvocationType.NON_BLOCKING, after::countDown), 20, TimeUnit.MILLISECONDS);
        Await.latch(after, "task after the rejected one");
        assertTrue(timer.isRunning());
        Await.until(() -> timer.failedCount() == 1, timer::toString);
    }

    @Test
    void theCoarseClockAdvancesOncePerTickAndNeverRunsAhead() {
        start(HashedWheelTimer.builder().tickDuration(Duration.ofMillis(5)));
        long first = timer.nanoTime();
        Await.ticks(timer, 2);
        long second = timer.nanoTime();
        assertTrue(second - first > 0, "the clock advanced");
        assertTrue(System.nanoTime() - second >= 0, "the clock is never ahead of System.nanoTime()");
    }

    @Test
    void tasksScheduledBeforeStartRunOnceStarted() throws Exception {
        timer = HashedWheelTimer.builder().build();
        CountDownLatch done = new CountDownLatch(1);
        Timeout early = timer.schedule(done::countDown, 1, TimeUnit.MILLISECONDS);
        assertFalse(done.await(0, TimeUnit.MILLISECONDS));
        timer.start();
        Await.latch(done, "task scheduled before start");
        assertTrue(early.isExpired());
    }

    @Test
    void statisticsAndDumpDescribeTheTimer() throws Exception {
        start(HashedWheelTimer.builder()
                .name("described")
                .tickDuration(Duration.ofMillis(5))
                .wheelSize(128));
        Timeout waiting = timer.schedule(() -> {}, 1, TimeUnit.HOURS);
        Timeout cancelled = timer.schedule(() -> {}, 1, TimeUnit.HOURS);
        CountDownLatch done = new CountDownLatch(1);
        timer.schedule(Invocable.task(InvocationType.NON_BLOCKING, done::countDown), 1, TimeUnit.MILLISECONDS);
        assertTrue(cancelled.cancel());
        Await.latch(done, "task");
        Await.until(() -> timer.pendingCount() == 1, () -> timer.toString());
        assertEquals(1, timer.expiredCount());
        assertEquals(1, timer.cancelledCount());
        assertEquals(128, timer.wheelSize());
        assertEquals(Duration.ofMillis(5), timer.tickDuration());

        String string = timer.toString();
        assertTrue(string.contains("described"), string);
        assertTrue(string.contains("RUNNING"), string);
        assertTrue(string.contains("tick=PT0.005S"), string);
        assertTrue(string.contains("wheel=128"), string);
        assertTrue(string.contains("pending=1"), string);
        String dump = timer.dump();
        assertTrue(dump.startsWith(string.substring(0, string.indexOf('{'))), dump);
        assertTrue(dump.contains("ticker: Thread[#"), dump);
        assertTrue(dump.contains("executor: "), dump);
        assertTrue(waiting.toString().contains("BUCKETED"), waiting.toString());
        assertTrue(cancelled.toString().contains("CANCELLED"), cancelled.toString());
        assertNotEquals(string, timer.dump().strip(), "the dump has more than the summary");
    }

    @Test
    void theBuilderRejectsBadSettingsNamingTheValue() {
        var builder = HashedWheelTimer.builder();
        var notPowerOfTwo = assertThrows(IllegalArgumentException.class, () -> builder.wheelSize(100));
        assertTrue(notPowerOfTwo.getMessage().contains("100"), notPowerOfTwo.getMessage());
        assertThrows(IllegalArgumentException.class, () -> builder.wheelSize(0));
        assertThrows(IllegalArgumentException.class, () -> builder.wheelSize(HashedWheelTimer.MAX_WHEEL_SIZE * 2));
        var tooShort = assertThrows(IllegalArgumentException.class, () -> builder.tickDuration(Duration.ofNanos(1000)));
        assertTrue(tooShort.getMessage().contains("PT0.000001S"), tooShort.getMessage());
        assertThrows(IllegalArgumentException.class, () -> builder.tickDuration(Duration.ofHours(1)));
    }
}
