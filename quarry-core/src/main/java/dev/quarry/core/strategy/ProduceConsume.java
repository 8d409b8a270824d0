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
public final class ProduceConsume extends AbstractExecutionStrategy {
    /**
     * @param producer the producer of tasks
     * @param executor used only by {@link #dispatch()}
     */
    public ProduceConsume(Producer producer, Executor executor) {
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
            counters.produceConsume.increment();
            Tasks.consume(task);
        }
    }
}
