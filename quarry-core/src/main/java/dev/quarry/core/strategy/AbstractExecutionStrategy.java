package dev.quarry.core.strategy;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.internal.NonBlockingFlag;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * What every strategy shares: the single-producer state, the mode counters, and how a thread takes production
 * ({@link #produce()}) or asks another one to ({@link #dispatch()}). A subclass only decides, in
 * {@link #produceLoop()}, who consumes each task it produces.
 *
 * <p>Production never blocks (a selector's {@code select()} is the one wait a producer makes, and it is where production
 * idles): the thread that produces carries the "must not block" mark ({@link Invocable#isNonBlockingInvocation()})
 * from the moment it takes production until it gives it up, and a task consumed in place keeps the mark only if it is
 * declared {@link InvocationType#NON_BLOCKING} (see {@link Tasks#consume}). This is the rule the blocking detector of
 * the tests enforces: a thread that owns production, or runs a non-blocking task, never parks, sleeps or does I/O that
 * can block.
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
            runProduction();
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
            runProduction();
        }
    }

    /** Runs {@link #produceLoop} with the "must not block" mark set, restoring the caller's mark afterwards. */
    final void runProduction() {
        boolean nonBlockingCaller = NonBlockingFlag.set();
        try {
            produceLoop(nonBlockingCaller);
        } finally {
            NonBlockingFlag.restore(nonBlockingCaller);
        }
    }

    /**
     * Produces and consumes tasks; called by the thread that owns production, with the "must not block" mark set, which
     * gives production up (by {@link ProductionState#tryStopProducing()} or by handing it over) before returning.
     *
     * @param nonBlockingCaller whether the thread was already marked non-blocking before it took production: it must
     *     then never consume a task that may block, even after giving production up
     */
    abstract void produceLoop(boolean nonBlockingCaller);

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
