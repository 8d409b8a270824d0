package dev.quarry.core.strategy;

import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Produces and consumes every task on the producing thread, one after the other: the most cache-friendly strategy
 * and the one with no dispatch latency, but one slow task holds up all that follow (head-of-line blocking). Right for
 * an HTTP/1.1 connection, whose responses are ordered anyway; wrong for a selector or an HTTP/2 session.
 *
 * <p>Thread-safe: one thread produces at a time; a {@link #produce()} that finds another thread producing only asks
 * it to produce again.
 */
public final class ProduceConsume implements ExecutionStrategy {
    private final Producer producer;
    private final Executor executor;
    private final ProductionState state = new ProductionState();
    private final StrategyCounters counters = new StrategyCounters();
    private final Runnable dispatched = this::runDispatched;

    /**
     * @param producer the producer of tasks
     * @param executor used only by {@link #dispatch()}
     */
    public ProduceConsume(Producer producer, Executor executor) {
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
            counters.produceConsume.increment();
            Tasks.run(task);
        }
    }

    /** @return how many tasks were consumed in each mode */
    public StrategyStatistics statistics() {
        return counters.snapshot();
    }

    @Override
    public String toString() {
        return "ProduceConsume@" + Integer.toHexString(hashCode()) + "{" + state + ", " + counters.snapshot() + "}";
    }
}
