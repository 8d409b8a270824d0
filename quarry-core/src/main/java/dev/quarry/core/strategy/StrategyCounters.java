package dev.quarry.core.strategy;

import java.util.concurrent.atomic.LongAdder;

/**
 * The mode counters of a strategy. {@link LongAdder}s, because several threads consume tasks of one strategy at once
 * and a shared {@code AtomicLong} would become the hottest cache line of the server.
 */
final class StrategyCounters {
    final LongAdder produceConsume = new LongAdder();
    final LongAdder produceInvokeConsume = new LongAdder();
    final LongAdder produceExecuteConsume = new LongAdder();
    final LongAdder executeProduceConsume = new LongAdder();
    final LongAdder dispatches = new LongAdder();

    StrategyStatistics snapshot() {
        return new StrategyStatistics(
                produceConsume.sum(),
                produceInvokeConsume.sum(),
                produceExecuteConsume.sum(),
                executeProduceConsume.sum(),
                dispatches.sum());
    }

    void reset() {
        produceConsume.reset();
        produceInvokeConsume.reset();
        produceExecuteConsume.reset();
        executeProduceConsume.reset();
        dispatches.reset();
    }
}
