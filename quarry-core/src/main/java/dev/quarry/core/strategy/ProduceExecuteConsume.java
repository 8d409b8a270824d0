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
public final class ProduceExecuteConsume implements ExecutionStrategy {
    private final Producer producer;
    private final Executor executor;
    private final ProductionState state = new ProductionState();
    private final StrategyCounters counters = new StrategyCounters();
    private final Runnable dispatched = this::runDispatched;

    /**
     * @param producer the producer of tasks
     * @param executor runs the tasks and dispatched production
     */
    public ProduceExecuteConsume(Producer producer, Executor executor) {
        this.producer = Objects.requireNonNull(producer, "producer");
        this.executor = Objects.requireNonNull(executor, "executor");
    }

    @Override
    public void produce() {
        if (state.tryStartProducing()) {
            produceLoop();
        }
    }

    @Override
    public void dispatch() {
        if (state.trySetPending()) {
            counters.dispatches.increment();
            try {
                executor.execute(dispatched);
            } catch (RuntimeException x) {
                state.clearPending();
                throw x;
            }
        }
    }

    private void runDispatched() {
        if (state.tryStartPendingProduction()) {
            produceLoop();
        }
    }

    private void produceLoop() {
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

    /** @return how many tasks were consumed in each mode */
    public StrategyStatistics statistics() {
        return counters.snapshot();
    }

    @Override
    public String toString() {
        return "ProduceExecuteConsume@" + Integer.toHexString(hashCode()) + "{" + state + ", " + counters.snapshot()
                + "}";
    }
}
