package dev.quarry.core.strategy;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Produces on one thread and hands every task that may block to the executor: no head-of-line blocking, but each
 * task pays a dispatch and runs with a cold cache on another core, and a slow consumer lets the executor's queue
 * grow. Non-blocking tasks still run in place, because handing a wake-up to a queue that may be stuck behind blocked
 * threads is how servers starve.
 *
 * <p>Thread-safe: one thread produces at a time.
 */
public final class ProduceExecuteConsume extends AbstractExecutionStrategy {
    private final Executor executor;

    /**
     * @param producer the producer of tasks
     * @param executor runs the tasks and dispatched production
     */
    public ProduceExecuteConsume(Producer producer, Executor executor) {
        super(producer, Objects.requireNonNull(executor, "executor"));
        this.executor = executor;
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
            if (Invocable.invocationTypeOf(task) == InvocationType.NON_BLOCKING) {
                counters.produceConsume.increment();
                Tasks.run(task);
            } else {
                counters.produceExecuteConsume.increment();
                Tasks.execute(executor, task);
            }
        }
    }
}
