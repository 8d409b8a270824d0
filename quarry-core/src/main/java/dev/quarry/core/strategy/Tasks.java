package dev.quarry.core.strategy;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.internal.NonBlockingFlag;
import java.lang.System.Logger.Level;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/** Running and executing produced tasks, with the failure handling every strategy shares. */
final class Tasks {
    private static final System.Logger LOG = System.getLogger(ExecutionStrategy.class.getName());

    private Tasks() {}

    /** Runs a task, logging what it throws: one failing task must never stop production. */
    static void run(Runnable task) {
        try {
            task.run();
        } catch (Throwable x) {
            LOG.log(Level.WARNING, "task failed: " + task, x);
        }
    }

    /**
     * Consumes a produced task in place, on a thread that owns production (so carries the "must not block" mark): a
     * {@link InvocationType#NON_BLOCKING} task runs with the mark; any other task runs without it, since the strategy
     * chose to let this thread block in it, and the mark is set again afterwards.
     *
     * @param task the task
     */
    static void consume(Runnable task) {
        if (Invocable.invocationTypeOf(task) == InvocationType.NON_BLOCKING) {
            run(task);
        } else {
            runBlocking(task);
        }
    }

    /** Runs a task that may block on a thread marked non-blocking: the mark is cleared while it runs. */
    static void runBlocking(Runnable task) {
        NonBlockingFlag.clear();
        try {
            run(task);
        } finally {
            NonBlockingFlag.set();
        }
    }

    /**
     * Executes a task; when the executor rejects it, closes it if it can be closed (a connection, a stream), so the
     * rejection is visible to its owner instead of the task being silently lost.
     */
    static void execute(Executor executor, Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException x) {
            LOG.log(Level.WARNING, "task rejected by " + executor + ": " + task, x);
            if (task instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception closeFailure) {
                    x.addSuppressed(closeFailure);
                    LOG.log(Level.WARNING, "closing rejected task failed: " + task, closeFailure);
                }
            }
        }
    }

    /** Produces the next task, logging and ending production if the producer throws. */
    static Runnable produce(ExecutionStrategy.Producer producer) {
        try {
            return producer.produce();
        } catch (Throwable x) {
            LOG.log(Level.WARNING, "producer failed: " + producer, x);
            return null;
        }
    }
}
