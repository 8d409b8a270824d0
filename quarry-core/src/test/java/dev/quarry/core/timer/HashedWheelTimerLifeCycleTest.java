package dev.quarry.core.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Starting, stopping and restarting a {@link HashedWheelTimer}, and what happens to its timeouts. */
class HashedWheelTimerLifeCycleTest {
    private HashedWheelTimer timer;

    @BeforeEach
    void start() {
        timer = HashedWheelTimer.builder()
                .name("lifecycle")
                .tickDuration(Duration.ofMillis(5))
                .build();
        timer.start();
    }

    @AfterEach
    void stop() {
        timer.stop();
    }

    private Thread tickerThread() {
        return timer.tickerThread();
    }

    @Test
    void stopCancelsEveryTimeoutThatHasNotExpired() throws Exception {
        AtomicBoolean ran = new AtomicBoolean();
        Timeout inWheel = timer.schedule(() -> ran.set(true), 1, TimeUnit.HOURS);
        Await.until(() -> inWheel.state() == Timeout.BUCKETED, inWheel::toString);
        Timeout pending = timer.schedule(() -> ran.set(true), 1, TimeUnit.HOURS);
        timer.stop();
        assertTrue(inWheel.isCancelled());
        assertTrue(pending.isCancelled());
        assertFalse(inWheel.cancel(), "already cancelled by stop");
        assertFalse(ran.get());
        assertEquals(2, timer.cancelledCount());
        assertEquals(0, timer.pendingCount());
        assertFalse(timer.isRunning());
    }

    @Test
    void stopWaitsForTheTickerToExit() throws Exception {
        Thread ticker = tickerThread();
        assertTrue(ticker.isDaemon());
        timer.stop();
        assertFalse(ticker.isAlive());
    }

    @Test
    void schedulingAfterStopThrowsAClearError() {
        timer.stop();
        IllegalStateException x =
                assertThrows(IllegalStateException.class, () -> timer.schedule(() -> {}, 1, TimeUnit.SECONDS));
        assertTrue(x.getMessage().contains("stopped"), x.getMessage());
        assertTrue(x.getMessage().contains("lifecycle"), "names the timer: " + x.getMessage());
    }

    @Test
    void aTaskMayStopTheTimer() throws Exception {
        CountDownLatch stopped = new CountDownLatch(1);
        Thread ticker = tickerThread();
        Timeout later = timer.schedule(() -> {}, 1, TimeUnit.HOURS);
        timer.schedule(
                Invocable.task(InvocationType.BLOCKING, () -> {
                    timer.stop(); // waits for the ticker, which only handed this task off
                    stopped.countDown();
                }),
                1,
                TimeUnit.MILLISECONDS);
        Await.latch(stopped, "stop from a timer task");
        assertFalse(timer.isRunning());
        assertThrows(IllegalStateException.class, () -> timer.schedule(() -> {}, 1, TimeUnit.SECONDS));
        ticker.join(Await.TIMEOUT.toMillis());
        assertFalse(ticker.isAlive());
        assertTrue(later.isCancelled());
    }

    @Test
    void aStoppedTimerCanBeStartedAgain() throws Exception {
        Thread first = tickerThread();
        timer.stop();
        timer.start();
        assertTrue(timer.isRunning());
        CountDownLatch ran = new CountDownLatch(1);
        timer.schedule(ran::countDown, 1, TimeUnit.MILLISECONDS);
        Await.latch(ran, "task after restart");
        Thread second = tickerThread();
        assertFalse(first.isAlive());
        assertTrue(second.isAlive());
    }

    @Test
    void startAndStopAreIdempotent() throws Exception {
        Thread ticker = tickerThread();
        timer.start();
        assertTrue(timer.isRunning());
        assertEquals(ticker, tickerThread(), "no second ticker");
        timer.stop();
        timer.stop();
        assertFalse(timer.isRunning());
        assertTrue(timer.toString().contains("STOPPED"), timer.toString());
    }
}
