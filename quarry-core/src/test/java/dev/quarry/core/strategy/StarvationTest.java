package dev.quarry.core.strategy;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The thread-starvation scenario of "Thread Starvation with Eat What You Kill": every pooled thread ends up blocked in a
 * consumed task that waits for an event only the producer can deliver (as a handler blocked in a read waits for the
 * selector to see the bytes). A strategy that queues production behind those tasks deadlocks; the adaptive strategy must
 * not.
 */
class StarvationTest {
    private static final int POOL_THREADS = 4;
    private static final int WAITERS = 12;

    /** One run of the scenario: blocking waiters first, then the non-blocking events that release them. */
    private static final class Scenario {
        final CountDownLatch[] data = new CountDownLatch[WAITERS];
        final CountDownLatch finished = new CountDownLatch(WAITERS);
        final ScriptedProducer producer = new ScriptedProducer();

        Scenario() {
            for (int i = 0; i < WAITERS; i++) {
                data[i] = new CountDownLatch(1);
            }
            for (int i = 0; i < WAITERS; i++) {
                CountDownLatch mine = data[i];
                producer.add(() -> {
                    try {
                        if (mine.await(30, TimeUnit.SECONDS)) {
                            finished.countDown();
                        }
                    } catch (InterruptedException x) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            for (int i = 0; i < WAITERS; i++) {
                producer.add(Invocable.task(InvocationType.NON_BLOCKING, data[i]::countDown));
            }
        }

        void releaseEverything() {
            for (CountDownLatch latch : data) {
                latch.countDown();
            }
        }
    }

    @Test
    void adaptiveStrategyKeepsProducingWhenEveryPooledThreadIsBlocked() throws Exception {
        Scenario scenario = new Scenario();
        try (HandOffExecutor executor = new HandOffExecutor(POOL_THREADS, 2)) {
            AdaptiveExecutionStrategy strategy = new AdaptiveExecutionStrategy(scenario.producer, executor);
            executor.execute(strategy::produce); // production starts on a pooled thread, as a selector's would

            boolean done = scenario.finished.await(30, TimeUnit.SECONDS);
            scenario.releaseEverything();

            assertTrue(done, "starved: " + strategy);
            assertTrue(strategy.statistics().produceExecuteConsume() > 0, "the pool was never exhausted: " + strategy);
            assertTrue(strategy.statistics().executeProduceConsume() > 0, "no task was eaten in place: " + strategy);
        }
    }

    @Test
    void naiveEatWhatYouKillStarvesInTheSameScenario() throws Exception {
        // Proves the scenario really exhausts the pool: the original strategy queues its recruited producer behind
        // blocked consumers, so nothing produces the data they wait for. A true deadlock, not a race on timing.
        Scenario scenario = new Scenario();
        try (HandOffExecutor executor = new HandOffExecutor(POOL_THREADS, 0)) {
            ExecuteProduceConsume strategy = new ExecuteProduceConsume(scenario.producer, executor);
            executor.execute(strategy::produce);

            boolean done = scenario.finished.await(1, TimeUnit.SECONDS);
            scenario.releaseEverything();

            assertFalse(done, "expected starvation: " + strategy);
        }
    }
}
