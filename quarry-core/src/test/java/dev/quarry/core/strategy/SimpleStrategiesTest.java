package dev.quarry.core.strategy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SimpleStrategiesTest {

    @Test
    void produceConsumeRunsEveryTaskInOrderOnTheCallingThread() {
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<Thread> threads = new CopyOnWriteArrayList<>();
        ScriptedProducer producer = new ScriptedProducer();
        for (int i = 0; i < 5; i++) {
            int n = i;
            producer.add(() -> {
                order.add(n);
                threads.add(Thread.currentThread());
            });
        }
        try (HandOffExecutor executor = new HandOffExecutor(1, 0)) {
            ProduceConsume strategy = new ProduceConsume(producer, executor);
            strategy.produce();

            assertEquals(List.of(0, 1, 2, 3, 4), order);
            assertTrue(threads.stream().allMatch(t -> t == Thread.currentThread()));
            assertEquals(5, strategy.statistics().produceConsume());
        }
    }

    @Test
    void produceExecuteConsumeExecutesBlockingTasksAndRunsNonBlockingOnesInPlace() throws Exception {
        CountDownLatch executed = new CountDownLatch(3);
        List<Thread> blockingThreads = new CopyOnWriteArrayList<>();
        List<Thread> nonBlockingThreads = new CopyOnWriteArrayList<>();
        ScriptedProducer producer = new ScriptedProducer();
        for (int i = 0; i < 3; i++) {
            producer.add(() -> {
                blockingThreads.add(Thread.currentThread());
                executed.countDown();
            });
            producer.add(
                    Invocable.task(InvocationType.NON_BLOCKING, () -> nonBlockingThreads.add(Thread.currentThread())));
        }
        try (HandOffExecutor executor = new HandOffExecutor(2, 0)) {
            ProduceExecuteConsume strategy = new ProduceExecuteConsume(producer, executor);
            strategy.produce();
            assertTrue(executed.await(10, TimeUnit.SECONDS));

            assertTrue(blockingThreads.stream().noneMatch(t -> t == Thread.currentThread()));
            assertTrue(nonBlockingThreads.stream().allMatch(t -> t == Thread.currentThread()));
            assertEquals(new StrategyStatistics(3, 0, 3, 0, 0), strategy.statistics());
        }
    }

    @Test
    void executeProduceConsumeEatsEachTaskOnTheThreadThatProducedIt() throws Exception {
        int tasks = 50;
        CountDownLatch eaten = new CountDownLatch(tasks);
        List<Boolean> sameThread = new CopyOnWriteArrayList<>();
        ScriptedProducer producer = new ScriptedProducer();
        Runnable[] all = new Runnable[tasks];
        for (int i = 0; i < tasks; i++) {
            int n = i;
            all[i] = () -> {
                sameThread.add(producer.producedBy.get(all[n]) == Thread.currentThread());
                eaten.countDown();
            };
            producer.add(all[i]);
        }
        try (HandOffExecutor executor = new HandOffExecutor(2, 0)) {
            ExecuteProduceConsume strategy = new ExecuteProduceConsume(producer, executor);
            executor.execute(strategy::produce);
            assertTrue(eaten.await(10, TimeUnit.SECONDS));

            assertTrue(sameThread.stream().allMatch(b -> b));
            assertEquals(tasks, strategy.statistics().executeProduceConsume());
            assertTrue(strategy.statistics().dispatches() > 0, "recruited other hunters");
        }
    }

    @Test
    void produceConsumeDispatchProducesOnAnotherThread() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        Thread[] ranOn = new Thread[1];
        ScriptedProducer producer = new ScriptedProducer().add(() -> {
            ranOn[0] = Thread.currentThread();
            ran.countDown();
        });
        try (HandOffExecutor executor = new HandOffExecutor(1, 0)) {
            ProduceConsume strategy = new ProduceConsume(producer, executor);
            strategy.dispatch();
            assertTrue(ran.await(10, TimeUnit.SECONDS));

            assertNotSame(Thread.currentThread(), ranOn[0]);
            assertSame(producer.producingThreads.get(0), ranOn[0]);
        }
    }
}
