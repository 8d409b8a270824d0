package dev.quarry.core.strategy;

import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * The original "eat what you kill": a thread only produces a task that it then consumes itself with a hot cache, and
 * before eating it recruits another thread (at most one dispatch pending) to carry on producing.
 *
 * <p><b>It can starve</b>: when every pooled thread is blocked in consumed tasks, the recruited producer waits in the
 * executor's queue and nothing produces the event that would unblock them. It is here as the baseline the
 * {@link AdaptiveExecutionStrategy} improves on, for benchmarks and for code whose tasks never block.
 *
 * <p>Thread-safe: one thread produces at a time.
 */
public final class ExecuteProduceConsume extends AbstractExecutionStrategy {
    /**
     * @param producer the producer of tasks
     * @param executor runs the recruited producers
     */
    public ExecuteProduceConsume(Producer producer, Executor executor) {
        super(producer, Objects.requireNonNull(executor, "executor"));
    }

    @Override
    void produceLoop(boolean nonBlockingCaller) {
        while (true) {
            Runnable task = Tasks.produce(producer);
            if (task == null) {
                if (state.tryStopProducing()) {
                    return;
                }
                continue;
            }
            // Recruit another hunter while this one eats: it produces if it arrives before we are done.
            dispatch();
            state.releaseProduction();
            counters.executeProduceConsume.increment();
            Tasks.consume(task);
            if (!state.tryStartProducing()) {
                return; // another thread is producing and has been asked to produce again
            }
        }
    }
}
