package dev.quarry.core.strategy;

/**
 * Decides which thread consumes each task that a {@link Producer} produces: the producing thread (hot cache, no
 * dispatch latency, but head-of-line blocking) or another thread (no blocking of the producer, but a cold cache and a
 * dispatch). See the "eat what you kill" design notes in {@code docs/strategies.md}.
 */
public interface ExecutionStrategy {

    /**
     * Produces and consumes tasks on the calling thread until the producer has nothing more, handing tasks or
     * production to other threads as the strategy decides. If another thread is producing already, it is asked to
     * produce again and this call returns at once.
     */
    void produce();

    /**
     * Arranges for {@link #produce()} to be called by another thread, at most one pending dispatch at a time.
     */
    void dispatch();

    /**
     * Produces tasks. Called by one thread at a time.
     */
    @FunctionalInterface
    interface Producer {
        /**
         * @return the next task, or null when there is nothing to do now
         */
        Runnable produce();
    }
}
