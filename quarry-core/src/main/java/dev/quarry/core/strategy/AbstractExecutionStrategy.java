package dev.quarry.core.strategy;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * What every strategy shares: the single-producer state, the mode counters, and how a thread takes production
 * ({@link #produce()}) or asks another one to ({@link #dispatch()}). A subclass only decides, in
 * {@link #produceLoop()}, who consumes each task it produces.
 *
 * <p>Thread-safe: one thread produces at a time; a {@link #produce()} that finds another thread producing only asks it
 * to produce again. A dispatch costs one CAS and one {@link Executor#execute}; at most one is pending.
 */
abstract class AbstractExecutionStrategy implements ExecutionStrategy {
    final Producer producer;
    final ProductionState state = new ProductionState();
    final StrategyCounters counters = new StrategyCounters();
    private final Executor dispatcher;
    // A recruited producer may block (it consumes what it produces): never run it in place.
    private final Runnable dispatched = Invocable.task(InvocationType.BLOCKING, this::runDispatched);

    /**
     * @param producer the producer of tasks
     * @param dispatcher runs dispatched production
     */
    AbstractExecutionStrategy(Producer producer, Executor dispatcher) {
        this.producer = Objects.requireNonNull(producer, "producer");
        this.dispatcher = dispatcher;
    }

    @Override
    public final void produce() {
        if (state.tryStartProducing()) {
            produceLoop();
        }
    }

    @Override
    public final void dispatch() {
        if (state.trySetPending()) {
            counters.dispatches.increment();
            try {
                dispatcher.execute(dispatched);
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

    /**
     * Produces and consumes tasks; called by the thread that owns production, which it gives up (by
     * {@link ProductionState#tryStopProducing()} or by handing it over) before returning.
     */
    abstract void produceLoop();

    /** @return how many tasks were consumed in each mode */
    public final StrategyStatistics statistics() {
        return counters.snapshot();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "@" + Integer.toHexString(hashCode()) + "{" + state + ", "
                + counters.snapshot() + "}";
    }
}
