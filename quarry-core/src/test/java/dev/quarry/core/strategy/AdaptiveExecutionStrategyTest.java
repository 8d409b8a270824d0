package dev.quarry.core.strategy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.test.BlockingDetector.BlockingAllowed;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AdaptiveExecutionStrategyTest {
    private HandOffExecutor executor;

    @AfterEach
    void closeExecutor() {
        if (executor != null) {
            executor.close();
        }
    }

    private static void await(CountDownLatch latch) throws InterruptedException {
        assertTrue(latch.await(10, TimeUnit.SECONDS), "timed out waiting for " + latch);
    }

    private static void awaitCondition(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not met within 10 s");
            Thread.onSpinWait();
            Thread.sleep(1); // polling interval of a condition wait, not a wait for an event
        }
    }

    @Test
    void nonBlockingTaskRunsInPlaceOnTheProducingThread() {
        executor = new HandOffExecutor(2, 0);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        ScriptedProducer producer = new ScriptedProducer()
                .add(Invocable.task(InvocationType.NON_BLOCKING, () -> ranOn.set(Thread.currentThread())));
        AdaptiveExecutionStrategy strategy = new AdaptiveExecutionStrategy(producer, executor);

        strategy.produce();

        assertSame(Thread.currentThread(), ranOn.get());
        assertEquals(new StrategyStatistics(1, 0, 0, 0, 0), strategy.statistics());
    }

    @Test
    void blockingTaskIsExecutedWhenNoThreadCanTakeOverProduction() throws Exception {
        executor = new HandOffExecutor(2, 0);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);
        ScriptedProducer producer = new ScriptedProducer().add(() -> {
            ranOn.set(Thread.currentThread());
            ran.countDown();
        });
        AdaptiveExecutionStrategy strategy = new AdaptiveExecutionStrategy(producer, executor);

        strategy.produce();
        await(ran);

        assertNotSame(Thread.currentThread(), ranOn.get());
        assertEquals(1, strategy.statistics().produceExecuteConsume());
        assertFalse(strategy.isProducing());
    }

    @Test
    void blockingTaskIsEatenInPlaceAfterAReservedThreadTookOverProduction() throws Exception {
        executor = new HandOffExecutor(2, 1);
        awaitCondition(() -> executor.waitingReserved() == 1);
        AtomicReference<Thread> firstRanOn = new AtomicReference<>();
        CountDownLatch secondProduced = new CountDownLatch(1);
        ScriptedProducer producer = new ScriptedProducer();
        producer.add(() -> firstRanOn.set(Thread.currentThread()))
                .add(Invocable.task(InvocationType.NON_BLOCKING, secondProduced::countDown));
        AdaptiveExecutionStrategy strategy = new AdaptiveExecutionStrategy(producer, executor);

        strategy.produce();
        await(secondProduced);

        assertSame(Thread.currentThread(), firstRanOn.get(), "the producing thread eats what it killed");
        assertEquals(2, producer.producingThreads.size());
        assertNotSame(producer.producingThreads.get(0), producer.producingThreads.get(1), "production moved");
        StrategyStatistics statistics = strategy.statistics();
        assertEquals(1, statistics.executeProduceConsume());
        assertEquals(1, statistics.produceConsume());
    }

    @Test
    void eitherTaskRunsInNonBlockingModeWhenProductionCannotBeHandedOver() {
        executor = new HandOffExecutor(2, 0);
        AtomicBoolean nonBlocking = new AtomicBoolean();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        ScriptedProducer producer = new ScriptedProducer().add(Invocable.task(InvocationType.EITHER, () -> {
            nonBlocking.set(Invocable.isNonBlockingInvocation());
            ranOn.set(Thread.currentThread());
        }));
        AdaptiveExecutionStrategy strategy = new AdaptiveExecutionStrategy(producer, executor);

        strategy.produce();

        assertTrue(nonBlocking.get());
        assertSame(Thread.currentThread(), ranOn.get());
        assertEquals(1, strategy.statistics().produceInvokeConsume());
        assertFalse(Invocable.isNonBlockingInvocation(), "the flag is cleared afterwards");
    }

    @Test
    void nonBlockingCallerNeverConsumesATaskThatMayBlockEvenWithReservedThreads() throws Exception {
        executor = new HandOffExecutor(2, 2);
        awaitCondition(() -> executor.waitingReserved() == 2);
        CountDownLatch blockingRan = new CountDownLatch(1);
        AtomicReference<Thread> blockingRanOn = new AtomicReference<>();
        AtomicBoolean eitherNonBlocking = new AtomicBoolean();
        ScriptedProducer producer = new ScriptedProducer()
                .add(() -> {
                    blockingRanOn.set(Thread.currentThread());
                    blockingRan.countDown();
                })
                .add(Invocable.task(
                        InvocationType.EITHER, () -> eitherNonBlocking.set(Invocable.isNonBlockingInvocation())));
        AdaptiveExecutionStrategy strategy = new AdaptiveExecutionStrategy(producer, executor);

        Invocable.invokeNonBlocking(strategy::produce);
        await(blockingRan);

        assertNotSame(Thread.currentThread(), blockingRanOn.get());
        assertTrue(eitherNonBlocking.get());
        StrategyStatistics statistics = strategy.statistics();
        assertEquals(1, statistics.produceExecuteConsume());
        assertEquals(1, statistics.produceInvokeConsume());
        assertEquals(0, statistics.executeProduceConsume());
        assertEquals(2, executor.waitingReserved(), "no reserved thread was used");
    }

    @Test
    void failingTaskDoesNotStopProduction() {
        executor = new HandOffExecutor(1, 0);
        AtomicBoolean secondRan = new AtomicBoolean();
        ScriptedProducer producer = new ScriptedProducer()
                .add(Invocable.task(InvocationType.NON_BLOCKING, () -> {
                    throw new IllegalStateException("expected by the test");
                }))
                .add(Invocable.task(InvocationType.NON_BLOCKING, () -> secondRan.set(true)));
        AdaptiveExecutionStrategy strategy = new AdaptiveExecutionStrategy(producer, executor);

        strategy.produce();

        assertTrue(secondRan.get());
    }

    @Test
    @BlockingAllowed("the producer waits on a gate, on purpose, to hold a race window open")
    void produceWhileAnotherThreadProducesMakesThatThreadProduceAgain() throws Exception {
        executor = new HandOffExecutor(1, 0);
        CountDownLatch aboutToReturnNull = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        AtomicBoolean lateTaskRan = new AtomicBoolean();
        ScriptedProducer tasks = new ScriptedProducer();
        AtomicBoolean first = new AtomicBoolean(true);
        ExecutionStrategy.Producer producer = () -> {
            Runnable task = tasks.produce();
            if (task == null && first.compareAndSet(true, false)) {
                aboutToReturnNull.countDown();
                try {
                    gate.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException x) {
                    Thread.currentThread().interrupt();
                }
            }
            return task;
        };
        AdaptiveExecutionStrategy strategy = new AdaptiveExecutionStrategy(producer, executor);
        Thread producing = new Thread(strategy::produce, "producing");
        producing.start();
        await(aboutToReturnNull);

        tasks.add(Invocable.task(InvocationType.NON_BLOCKING, () -> lateTaskRan.set(true)));
        strategy.produce(); // returns at once: production is busy, so it only asks for more
        gate.countDown();
        producing.join(10_000);

        assertTrue(lateTaskRan.get(), "the producing thread produced again");
        assertFalse(strategy.isProducing());
    }

    @Test
    void dispatchRunsProductionOnAnotherThreadWithOneDispatchPendingAtATime() throws Exception {
        executor = new HandOffExecutor(1, 0);
        CountDownLatch blockPool = new CountDownLatch(1);
        executor.execute(() -> {
            try {
                blockPool.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
        });
        CountDownLatch produced = new CountDownLatch(1);
        ScriptedProducer producer =
                new ScriptedProducer().add(Invocable.task(InvocationType.NON_BLOCKING, produced::countDown));
        AdaptiveExecutionStrategy strategy = new AdaptiveExecutionStrategy(producer, executor);

        strategy.dispatch();
        strategy.dispatch();
        strategy.dispatch();
        blockPool.countDown();
        await(produced);

        assertEquals(1, strategy.statistics().dispatches());
        assertNotSame(Thread.currentThread(), producer.producingThreads.get(0));
    }
}
