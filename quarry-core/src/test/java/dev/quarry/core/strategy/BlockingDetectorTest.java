package dev.quarry.core.strategy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.test.BlockingDetector;
import dev.quarry.core.timer.HashedWheelTimer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The blocking detector catches what the rule forbids, where the rule applies: on a thread that produces, in a task
 * declared non-blocking, and in a non-blocking timer task; and it stays quiet where blocking is allowed: in a blocking
 * task consumed after production was handed over. Each test drains what it provoked, so that the detector's own check
 * after the test passes.
 */
class BlockingDetectorTest {
    private HandOffExecutor executor;

    @TempDir
    Path directory;

    @BeforeEach
    void detectorIsOn() {
        assumeTrue(BlockingDetector.enabled(), "the blocking detector is off (-Dquarry.blockingDetector=false)");
        BlockingDetector.install();
        BlockingDetector.drain();
    }

    @AfterEach
    void close() {
        if (executor != null) {
            executor.close();
        }
    }

    @Test
    void aNonBlockingTaskThatSleepsIsCaught() {
        executor = new HandOffExecutor(1, 0);
        ScriptedProducer producer = new ScriptedProducer().add(Invocable.task(InvocationType.NON_BLOCKING, () -> {
            LockSupport.parkNanos(1_000);
        }));
        new AdaptiveExecutionStrategy(producer, executor).produce();
        List<Throwable> found = BlockingDetector.drain();
        assertEquals(1, found.size(), found::toString);
        assertTrue(found.get(0).getMessage().contains("park"), found.get(0).getMessage());
    }

    @Test
    void aProducerThatTouchesTheFileSystemIsCaught() throws Exception {
        executor = new HandOffExecutor(1, 0);
        Path file = Files.writeString(directory.resolve("f"), "x");
        AtomicBoolean once = new AtomicBoolean();
        ExecutionStrategy.Producer producer = () -> {
            if (once.compareAndSet(false, true)) {
                try {
                    Files.readAttributes(file, "basic:size");
                } catch (java.io.IOException x) {
                    throw new java.io.UncheckedIOException(x);
                }
            }
            return null;
        };
        new AdaptiveExecutionStrategy(producer, executor).produce();
        List<Throwable> found = BlockingDetector.drain();
        assertFalse(found.isEmpty(), "stat on a producing thread");
        assertTrue(found.get(0).getMessage().contains("stat"), found.get(0).getMessage());
    }

    @Test
    void aBlockingTaskEatenAfterHandingProductionOverMayBlock() throws Exception {
        executor = new HandOffExecutor(1, 1);
        CountDownLatch ran = new CountDownLatch(1);
        ScriptedProducer producer = new ScriptedProducer().add(Invocable.task(InvocationType.BLOCKING, () -> {
            LockSupport.parkNanos(1_000);
            ran.countDown();
        }));
        AdaptiveExecutionStrategy strategy = new AdaptiveExecutionStrategy(producer, executor);
        // Production is handed to the reserved thread only once it waits for a hand-off.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (strategy.statistics().executeProduceConsume() == 0 && System.nanoTime() < deadline) {
            producer.add(Invocable.task(InvocationType.BLOCKING, ran::countDown));
            strategy.produce();
        }
        assertTrue(ran.await(10, TimeUnit.SECONDS));
        assertTrue(strategy.statistics().executeProduceConsume() > 0, strategy::toString);
        assertEquals(List.of(), BlockingDetector.drain());
    }

    @Test
    void aNonBlockingTimerTaskThatSleepsIsCaught() throws Exception {
        HashedWheelTimer timer = HashedWheelTimer.builder().build();
        timer.start();
        try {
            CountDownLatch done = new CountDownLatch(1);
            timer.schedule(
                    Invocable.task(InvocationType.NON_BLOCKING, () -> {
                        LockSupport.parkNanos(1_000);
                        done.countDown();
                    }),
                    1,
                    TimeUnit.MILLISECONDS);
            assertTrue(done.await(10, TimeUnit.SECONDS));
            List<Throwable> found = BlockingDetector.drain();
            assertEquals(1, found.size(), found::toString);
        } finally {
            timer.stop();
        }
    }
}
