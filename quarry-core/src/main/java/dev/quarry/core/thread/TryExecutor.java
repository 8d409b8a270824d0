package dev.quarry.core.thread;

import java.util.concurrent.Executor;

/**
 * An executor that can also try to hand a task to a thread that is already waiting for one, without queueing.
 *
 * <p>This is the primitive behind the adaptive strategy's execute-produce-consume mode: a producing thread may consume
 * a blocking task itself only if another thread has <em>immediately</em> taken over production; a hand-off that could
 * sit in a queue behind blocked tasks is exactly how "eat what you kill" starved in Jetty 9.3.
 */
public interface TryExecutor extends Executor {

    /**
     * Hands {@code task} to a thread that is waiting for work right now.
     *
     * @param task the task to run
     * @return true if a thread took the task; false if none was waiting (the task was not queued)
     */
    boolean tryExecute(Runnable task);

    /** A try-executor that never has a waiting thread and executes through {@code executor}. */
    static TryExecutor noReserved(Executor executor) {
        return new TryExecutor() {
            @Override
            public boolean tryExecute(Runnable task) {
                return false;
            }

            @Override
            public void execute(Runnable command) {
                executor.execute(command);
            }

            @Override
            public String toString() {
                return "NoReserved[" + executor + "]";
            }
        };
    }
}
