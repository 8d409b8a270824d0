package dev.quarry.core.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link IdleTimeout}: expiry after a whole idle period, no rescheduling per activity, run-time changes. */
class IdleTimeoutTest {
    private static final long TICK_MILLIS = 5;
    private static final Duration[] PERIODS = {
        Duration.ZERO, Duration.ofMillis(2), Duration.ofHours(1), Duration.ofMillis(3), Duration.ofHours(2)
    };
    private HashedWheelTimer timer;

    @BeforeEach
    void start() {
        timer = HashedWheelTimer.builder()
                .name("idle-ticker")
                .tickDuration(Duration.ofMillis(TICK_MILLIS))
                .wheelSize(64)
                .build();
        timer.start();
    }

    @AfterEach
    void stop() {
        timer.stop();
    }

    /** An idle timeout whose action records when and where it ran. */
    private static final class Recording extends IdleTimeout {
        final CountDownLatch expired;
        final AtomicInteger expiries = new AtomicInteger();
        final AtomicReference<Thread> thread = new AtomicReference<>();
        final AtomicLong at = new AtomicLong();
        final InvocationType type;
        volatile boolean markedNonBlocking;

        Recording(HashedWheelTimer timer, InvocationType type, int expect) {
            super(timer);
            this.type = type;
            this.expired = new CountDownLatch(expect);
        }

        @Override
        protected void onIdleExpired() {
            markedNonBlocking = Invocable.isNonBlockingInvocation();
            at.set(System.nanoTime());
            thread.set(Thread.currentThread());
            expiries.incrementAndGet();
            expired.countDown();
        }

        @Override
        public InvocationType invocationType() {
            return type;
        }
    }

    @Test
    void expiresAfterAWholeIdlePeriodWithoutActivity() throws Exception {
        Recording idle = new Recording(timer, InvocationType.NON_BLOCKING, 1);
        idle.setIdleTimeout(Duration.ofMillis(100));
        long started = System.nanoTime();
        idle.start();
        Await.latch(idle.expired, "idle expiry");
        long after = idle.at.get() - started;
        // The coarse clock may timestamp the start up to one tick early.
        assertTrue(after >= TimeUnit.MILLISECONDS.toNanos(100 - TICK_MILLIS), "expired early: " + after + " ns");
        assertTrue(after < TimeUnit.MILLISECONDS.toNanos(100) + TimeUnit.SECONDS.toNanos(1), "late: " + after);
        assertEquals(1, idle.expiries.get());
    }

    @Test
    void activityPostponesExpiryWithoutReschedulingPerActivity() throws Exception {
        Recording idle = new Recording(timer, InvocationType.NON_BLOCKING, 1);
        long period = 200;
        idle.setIdleTimeout(Duration.ofMillis(period));
        long expiredBefore = timer.expiredCount();
        idle.start();
        long started = System.nanoTime();
        long calls = 0;
        long minimum = TimeUnit.MILLISECONDS.toNanos(period * 4); // several idle periods of activity
        while (calls < 1_000_000 || System.nanoTime() - started < minimum) {
            idle.notIdle();
            calls++;
            if ((calls & 0xFFFF) == 0) {
                Thread.yield(); // leave the ticker a core on a small machine
            }
        }
        long elapsed = System.nanoTime() - started;
        long checks = timer.expiredCount() - expiredBefore; // each check that fired is one expired timeout
        long periods = elapsed / TimeUnit.MILLISECONDS.toNanos(period);
        assertEquals(0, idle.expiries.get(), "active all along, yet expired");
        assertTrue(
                checks <= 2 * periods + 2,
                checks + " checks for " + calls + " activities in " + periods + " periods: O(activity)?");
        Await.latch(idle.expired, "expiry once activity stopped");
        assertEquals(1, idle.expiries.get());
    }

    @Test
    void everyActionRunsOffTheTickerAndOnlyANonBlockingOneCarriesTheMark() throws Exception {
        Recording nonBlocking = new Recording(timer, InvocationType.NON_BLOCKING, 1);
        Recording blocking = new Recording(timer, InvocationType.BLOCKING, 1);
        for (Recording idle : new Recording[] {nonBlocking, blocking}) {
            idle.setIdleTimeout(Duration.ofMillis(20));
            idle.start();
        }
        Await.latch(nonBlocking.expired, "non-blocking expiry");
        Await.latch(blocking.expired, "blocking expiry");
        assertTrue(
                nonBlocking.thread.get().isVirtual(), nonBlocking.thread.get().toString());
        assertTrue(blocking.thread.get().isVirtual(), blocking.thread.get().toString());
        assertTrue(nonBlocking.markedNonBlocking, "a non-blocking expiry runs with the must-not-block mark");
        assertFalse(blocking.markedNonBlocking, "a blocking expiry may block");
    }

    @Test
    void aRunnableActionDeclaresTheInvocationTypeOfTheRunnable() throws Exception {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        AtomicBoolean marked = new AtomicBoolean();
        CountDownLatch expired = new CountDownLatch(1);
        IdleTimeout idle =
                IdleTimeout.of(timer, Duration.ofMillis(20), Invocable.task(InvocationType.NON_BLOCKING, () -> {
                    ranOn.set(Thread.currentThread());
                    marked.set(Invocable.isNonBlockingInvocation());
                    expired.countDown();
                }));
        assertEquals(InvocationType.NON_BLOCKING, idle.invocationType());
        idle.start();
        Await.latch(expired, "expiry");
        assertNotEquals("idle-ticker", ranOn.get().getName(), "the ticker only hands expiries off");
        assertTrue(marked.get());
    }

    @Test
    void withoutStopItExpiresAgainAfterAnotherWholePeriod() throws Exception {
        Recording idle = new Recording(timer, InvocationType.NON_BLOCKING, 2);
        AtomicLong first = new AtomicLong();
        idle.setIdleTimeout(Duration.ofMillis(50));
        idle.start();
        Await.until(() -> idle.expiries.get() >= 1, idle::toString);
        first.set(idle.at.get());
        Await.latch(idle.expired, "second expiry");
        long between = idle.at.get() - first.get();
        assertTrue(between >= TimeUnit.MILLISECONDS.toNanos(50 - TICK_MILLIS), "too soon: " + between + " ns");
    }

    @Test
    void shorteningTheIdleTimeoutAppliesAtOnce() throws Exception {
        Recording idle = new Recording(timer, InvocationType.NON_BLOCKING, 1);
        idle.setIdleTimeout(Duration.ofHours(1));
        idle.start();
        idle.setIdleTimeout(Duration.ofMillis(30));
        assertEquals(Duration.ofMillis(30), idle.idleTimeout());
        Await.latch(idle.expired, "expiry with the shorter timeout");
        Await.until(() -> timer.pendingCount() == 1, () -> "only the next check is scheduled: " + timer);
    }

    @Test
    void aZeroIdleTimeoutDisablesItAndAPositiveOneEnablesItAgain() throws Exception {
        Recording idle = new Recording(timer, InvocationType.NON_BLOCKING, 1);
        idle.setIdleTimeout(Duration.ofMillis(50));
        idle.start();
        idle.setIdleTimeout(Duration.ZERO);
        assertTrue(idle.isStarted());
        assertTrue(idle.toString().contains("DISABLED"), idle.toString());
        Await.ticks(timer, 2);
        assertEquals(0, timer.pendingCount(), "no check is scheduled, so it cannot expire: " + timer);
        assertEquals(0, idle.expiries.get());

        idle.setIdleTimeout(Duration.ofMillis(-1)); // negative also means never
        assertEquals(Duration.ZERO, idle.idleTimeout());
        idle.setIdleTimeout(Duration.ofMillis(20));
        Await.latch(idle.expired, "expiry once enabled again");
    }

    @Test
    void stopCancelsTheCheck() throws Exception {
        Recording idle = new Recording(timer, InvocationType.NON_BLOCKING, 1);
        idle.setIdleTimeout(Duration.ofMillis(50));
        idle.start();
        assertTrue(idle.isStarted());
        idle.stop();
        assertFalse(idle.isStarted());
        long cancelled = timer.cancelledCount();
        assertEquals(1, cancelled, "the one scheduled check");
        Await.ticks(timer, 2);
        assertEquals(0, timer.pendingCount());
        assertEquals(0, idle.expiries.get());
        idle.stop(); // idempotent
        assertTrue(idle.toString().contains("STOPPED"), idle.toString());
    }

    @Test
    void startCountsFromNowAndIsIdempotent() throws Exception {
        Recording idle = new Recording(timer, InvocationType.NON_BLOCKING, 1);
        idle.setIdleTimeout(Duration.ofHours(1));
        idle.start();
        idle.start();
        Await.ticks(timer, 2);
        assertEquals(1, timer.pendingCount(), "one check, not two");
        assertTrue(
                idle.idleTime().compareTo(Duration.ofMinutes(1)) < 0,
                idle.idleTime().toString());
    }

    @Test
    void concurrentStartStopAndChangesNeverLeaveAnOrphanCheck() throws Exception {
        Recording idle = new Recording(timer, InvocationType.NON_BLOCKING, 1);
        idle.setIdleTimeout(Duration.ofMillis(2));
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
        Runnable changer = () -> {
            for (int i = 0; System.nanoTime() - until < 0; i++) {
                // Short periods make checks fire and race; an hour-long one makes an orphan check visible.
                idle.setIdleTimeout(PERIODS[i % PERIODS.length]);
                idle.notIdle();
            }
        };
        Runnable toggler = () -> {
            for (int i = 0; System.nanoTime() - until < 0; i++) {
                if (i % 2 == 0) {
                    idle.start();
                } else {
                    idle.stop();
                }
            }
        };
        Thread[] threads = {
            Thread.ofPlatform().start(changer),
            Thread.ofPlatform().start(toggler),
            Thread.ofPlatform().start(toggler)
        };
        for (Thread thread : threads) {
            thread.join(Await.TIMEOUT.toMillis());
            assertFalse(thread.isAlive());
        }
        idle.stop();
        Await.ticks(timer, 2);
        assertEquals(0, timer.pendingCount(), "a check survived stop(): " + timer);

        // Still works afterwards: exactly one check, and it expires.
        idle.setIdleTimeout(Duration.ofMillis(20));
        int before = idle.expiries.get();
        idle.start();
        Await.until(() -> idle.expiries.get() > before, idle::toString);
        idle.stop();
    }

    @Test
    void startingOnAStoppedTimerThrows() {
        IdleTimeout idle = IdleTimeout.of(timer, Duration.ofSeconds(1), () -> {});
        timer.stop();
        IllegalStateException x = assertThrows(IllegalStateException.class, idle::start);
        assertTrue(x.getMessage().contains("stopped"), x.getMessage());
    }
}
