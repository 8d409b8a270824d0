package dev.quarry.core.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Cancellation: a cancelled task never runs, races resolve to exactly one outcome, cancelled timeouts are freed. */
class TimeoutCancellationTest {
    private HashedWheelTimer timer;

    @BeforeEach
    void start() {
        timer = HashedWheelTimer.builder()
                .tickDuration(Duration.ofMillis(5))
                .wheelSize(64)
                .build();
        timer.start();
    }

    @AfterEach
    void stop() {
        timer.stop();
    }

    private static Invocable.Task nonBlocking(Runnable runnable) {
        return Invocable.task(InvocationType.NON_BLOCKING, runnable);
    }

    /** Waits for a task scheduled after {@code delayMillis}, i.e. until the timer is past that point. */
    private void awaitTimerPast(long delayMillis) throws InterruptedException {
        CountDownLatch marker = new CountDownLatch(1);
        timer.schedule(nonBlocking(marker::countDown), delayMillis, TimeUnit.MILLISECONDS);
        Await.latch(marker, "marker task");
    }

    @Test
    void aTaskCancelledBeforeTheTickerSawItNeverRuns() throws Exception {
        AtomicBoolean ran = new AtomicBoolean();
        Timeout timeout = timer.schedule(nonBlocking(() -> ran.set(true)), 20, TimeUnit.MILLISECONDS);
        assertTrue(timeout.cancel());
        awaitTimerPast(60);
        assertFalse(ran.get());
        assertTrue(timeout.isCancelled());
        assertFalse(timeout.isExpired());
        assertEquals(1, timer.cancelledCount());
    }

    @Test
    void aTaskCancelledInTheWheelNeverRuns() throws Exception {
        AtomicBoolean ran = new AtomicBoolean();
        Timeout timeout = timer.schedule(nonBlocking(() -> ran.set(true)), 300, TimeUnit.MILLISECONDS);
        Await.until(() -> timeout.state() == Timeout.BUCKETED, timeout::toString);
        assertTrue(timeout.cancel());
        awaitTimerPast(350);
        assertFalse(ran.get());
        assertTrue(timeout.isCancelled());
        Await.until(() -> timer.expiredCount() == 1 && timer.pendingCount() == 0, timer::toString);
    }

    @Test
    void cancelAfterExpiryReturnsFalse() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        Timeout timeout = timer.schedule(nonBlocking(ran::countDown), 1, TimeUnit.MILLISECONDS);
        Await.latch(ran, "task");
        assertFalse(timeout.cancel());
        assertTrue(timeout.isExpired());
        assertFalse(timeout.isCancelled());
        assertEquals(0, timer.cancelledCount());
    }

    @Test
    void onlyTheFirstCancelReturnsTrue() {
        Timeout timeout = timer.schedule(() -> {}, 1, TimeUnit.HOURS);
        assertTrue(timeout.cancel());
        assertFalse(timeout.cancel());
        assertEquals(1, timer.cancelledCount());
    }

    @Test
    void cancelRacingWithExpiryFromManyThreadsHasExactlyOneOutcome() throws Exception {
        raceCancelAgainstExpiry(20_000, 4);
    }

    @Test
    @Tag("stress")
    void cancelRacingWithExpiryFromManyThreadsHasExactlyOneOutcomeUnderStress() throws Exception {
        raceCancelAgainstExpiry(1_000_000, 8);
    }

    private void raceCancelAgainstExpiry(int count, int cancellers) throws Exception {
        AtomicIntegerArray ran = new AtomicIntegerArray(count);
        AtomicIntegerArray cancels = new AtomicIntegerArray(count);
        AtomicLong runs = new AtomicLong();
        Timeout[] timeouts = new Timeout[count];
        for (int i = 0; i < count; i++) {
            int index = i;
            Runnable task = () -> {
                ran.incrementAndGet(index);
                runs.incrementAndGet();
            };
            // Half run on the ticker, half on virtual threads; deadlines spread over a few ticks around now.
            timeouts[i] = timer.schedule(
                    i % 2 == 0 ? nonBlocking(task) : task,
                    ThreadLocalRandom.current().nextLong(0, 20_000),
                    TimeUnit.MICROSECONDS);
        }
        List<Thread> threads = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        for (int t = 0; t < cancellers; t++) {
            int offset = t * (count / cancellers);
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                } catch (InterruptedException x) {
                    throw new AssertionError(x);
                }
                // Every thread tries to cancel every timeout, each starting elsewhere, while they expire.
                for (int k = 0; k < count; k++) {
                    int i = (offset + k) % count;
                    if (timeouts[i].cancel()) {
                        cancels.incrementAndGet(i);
                    }
                }
            }));
        }
        go.countDown();
        for (Thread thread : threads) {
            thread.join(Await.TIMEOUT.toMillis());
            assertFalse(thread.isAlive(), "canceller stuck");
        }
        long cancelled = 0;
        for (int i = 0; i < count; i++) {
            cancelled += cancels.get(i);
        }
        long expectedRuns = count - cancelled;
        Await.until(() -> runs.get() == expectedRuns, () -> runs + " runs, expected " + expectedRuns);
        for (int i = 0; i < count; i++) {
            Timeout timeout = timeouts[i];
            assertEquals(1, ran.get(i) + cancels.get(i), "not exactly one outcome: " + timeout);
            assertEquals(cancels.get(i) == 1, timeout.isCancelled(), timeout::toString);
            assertEquals(ran.get(i) == 1, timeout.isExpired(), timeout::toString);
        }
        assertEquals(cancelled, timer.cancelledCount());
        Await.until(() -> timer.expiredCount() == expectedRuns, timer::toString);
        Await.until(() -> timer.pendingCount() == 0, timer::toString);
    }

    @Test
    void timeoutsCancelledRightAfterSchedulingLeaveNothingBehind() throws Exception {
        int perThread = 500_000;
        Runnable task = () -> {};
        List<Thread> threads = new ArrayList<>();
        AtomicLong lost = new AtomicLong();
        AtomicReferenceArray<WeakReference<Timeout>> last = new AtomicReferenceArray<>(2);
        for (int t = 0; t < 2; t++) {
            int slot = t;
            threads.add(Thread.ofPlatform().start(() -> {
                Timeout timeout = null;
                for (int i = 0; i < perThread; i++) {
                    timeout = timer.schedule(task, 1, TimeUnit.HOURS);
                    if (!timeout.cancel()) {
                        lost.incrementAndGet();
                    }
                }
                last.set(slot, new WeakReference<>(timeout));
            }));
        }
        for (Thread thread : threads) {
            thread.join(Await.TIMEOUT.toMillis());
            assertFalse(thread.isAlive(), "scheduler stuck");
        }
        assertEquals(0, lost.get());
        Await.ticks(timer, 2);
        assertEquals(0, timer.pendingCount(), timer::toString);
        assertEquals(2L * perThread, timer.cancelledCount());
        assertEquals(0, timer.expiredCount());
        awaitCollected(last.get(0));
        awaitCollected(last.get(1));
    }

    @Test
    void timeoutsCancelledInTheWheelAreReleasedWithinAFewTicks() {
        int count = 1_000_000;
        Runnable task = () -> {};
        Timeout[] timeouts = new Timeout[count];
        for (int i = 0; i < count; i++) {
            timeouts[i] = timer.schedule(task, 1, TimeUnit.HOURS);
        }
        Await.until(() -> timer.pendingCount() == count, timer::toString);
        for (Timeout timeout : timeouts) {
            assertTrue(timeout.cancel());
        }
        // The tick in progress may have taken the cancelled stacks before the last cancel; the next one takes the rest.
        Await.ticks(timer, 2);
        assertEquals(0, timer.pendingCount(), "not released within 2 ticks: " + timer);
        assertEquals(count, timer.cancelledCount());
        for (int i = 0; i < count; i += 997) {
            assertNull(timeouts[i].next, "a kept handle retains no other timeout");
            assertNull(timeouts[i].prev);
            assertNull(timeouts[i].nextCancelled);
        }
    }

    @Test
    void cancellingTheTopOfThePendingStackPopsItAndTheCancelledOnesBelowIt() {
        // Not started: no ticker takes the stack, so what cancel() does to it can be observed.
        HashedWheelTimer unstarted = HashedWheelTimer.builder().build();
        Timeout bottom = unstarted.schedule(() -> {}, 1, TimeUnit.HOURS);
        Timeout middle = unstarted.schedule(() -> {}, 1, TimeUnit.HOURS);
        Timeout top = unstarted.schedule(() -> {}, 1, TimeUnit.HOURS);
        assertTrue(middle.cancel());
        assertSame(bottom, middle.next, "not on top: left for the ticker");
        assertTrue(top.cancel());
        assertNull(top.next, "popped");
        assertNull(middle.next, "uncovered by the pop, so popped too");
        unstarted.start();
        try {
            Await.until(() -> unstarted.pendingCount() == 1, unstarted::toString);
            assertEquals(Timeout.BUCKETED, bottom.state());
            assertEquals(2, unstarted.cancelledCount());
        } finally {
            unstarted.stop();
        }
    }

    @Test
    void aCancelledTimeoutBelowTheTopOfThePendingStackIsDroppedAtTheNextTick() {
        HashedWheelTimer unstarted = HashedWheelTimer.builder().build();
        Timeout bottom = unstarted.schedule(() -> {}, 1, TimeUnit.HOURS);
        Timeout middle = unstarted.schedule(() -> {}, 1, TimeUnit.HOURS);
        Timeout top = unstarted.schedule(() -> {}, 1, TimeUnit.HOURS);
        assertTrue(middle.cancel());
        assertSame(bottom, middle.next, "still in the stack");
        unstarted.start();
        try {
            Await.until(() -> unstarted.pendingCount() == 2, unstarted::toString);
            assertNull(middle.next, "dropped, and its link cut so that a kept handle retains nothing");
            assertEquals(Timeout.BUCKETED, bottom.state());
            assertEquals(Timeout.BUCKETED, top.state());
        } finally {
            unstarted.stop();
        }
    }

    /** Collects garbage until the reference is cleared: proves the timer no longer reaches the referent. */
    private static void awaitCollected(WeakReference<?> reference) {
        Await.until(
                () -> {
                    System.gc();
                    return reference.get() == null;
                },
                () -> "still reachable: " + reference.get());
    }
}
