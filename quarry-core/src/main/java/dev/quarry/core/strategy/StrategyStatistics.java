package dev.quarry.core.strategy;

/**
 * How many produced tasks a strategy consumed in each mode, since it was created or its statistics were reset.
 *
 * @param produceConsume tasks run in place by the producing thread (non-blocking tasks, or every task in
 *     {@link ProduceConsume})
 * @param produceInvokeConsume {@link dev.quarry.core.InvocationType#EITHER} tasks run in place in non-blocking mode
 * @param produceExecuteConsume tasks handed to the executor while the producing thread kept producing
 * @param executeProduceConsume tasks eaten by the thread that produced them after production moved to another thread
 * @param dispatches times production was dispatched to another thread through the executor
 */
public record StrategyStatistics(
        long produceConsume,
        long produceInvokeConsume,
        long produceExecuteConsume,
        long executeProduceConsume,
        long dispatches) {

    /** @return the number of tasks consumed in any mode */
    public long tasks() {
        return produceConsume + produceInvokeConsume + produceExecuteConsume + executeProduceConsume;
    }

    @Override
    public String toString() {
        return "pc=" + produceConsume + " pic=" + produceInvokeConsume + " pec=" + produceExecuteConsume + " epc="
                + executeProduceConsume + " dispatches=" + dispatches;
    }
}
