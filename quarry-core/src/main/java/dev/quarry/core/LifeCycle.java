package dev.quarry.core;

/**
 * A component that is started and stopped: thread pools, timers, selectors, connectors, servers.
 *
 * <p>Implementations make {@link #start()} and {@link #stop()} idempotent and thread-safe.
 */
public interface LifeCycle {

    /**
     * Starts the component; does nothing if it is running.
     *
     * @throws Exception if it cannot start; it is then left stopped
     */
    void start() throws Exception;

    /**
     * Stops the component, releasing its threads and resources; does nothing if it is stopped.
     *
     * @throws Exception if stopping failed; resources are released as far as possible anyway
     */
    void stop() throws Exception;

    /** @return true between a successful {@link #start()} and the next {@link #stop()} */
    boolean isRunning();
}
