package dev.quarry.core.strategy;

import dev.quarry.core.Dumpable;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.internal.NonBlockingFlag;
import dev.quarry.core.thread.TryExecutor;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * The default strategy: eats what it kills whenever that is safe, and never starves.
 *
 * <p>For each produced task it picks a mode from the task's {@link InvocationType} and from whether a thread is
 * waiting to take over production right now:
 * <ul>
 *   <li><b>produce-consume</b>: a {@code NON_BLOCKING} task runs in place, with a hot cache, always — even on the last
 *       thread, which is what lets a wake-up or a flow-control frame unblock threads stuck in application code;
 *   <li><b>execute-produce-consume</b>: a task that may block is eaten in place only after a reserved thread took
 *       production over by <em>direct hand-off</em> ({@link TryExecutor#tryExecute}); nothing ever waits in a queue for
 *       the right to produce;
 *   <li><b>produce-execute-consume</b>: otherwise a {@code BLOCKING} task goes to the task executor (the thread pool, or
 *       bounded virtual threads) and this thread keeps producing: the low-priority path that guarantees one thread
 *       always produces even when every pooled thread is blocked;
 *   <li><b>produce-invoke-consume</b>: an {@code EITHER} task that cannot be handed off runs in place in non-blocking
 *       mode ({@link Invocable#invokeNonBlocking}), so it must not block (an HTTP/2 session then only parses and
 *       dispatches).
 * </ul>
 * When the caller itself runs in non-blocking mode, the strategy never consumes a task that may block: it uses
 * produce-execute-consume for blocking tasks and produce-invoke-consume for {@code EITHER} ones.
 *
 * <p>The thread that owns production carries the "must not block" mark ({@link Invocable#isNonBlockingInvocation()})
 * for as long as it produces; it drops the mark only to eat a task after handing production over.
 *
 * <p>Thread-safety: one thread produces at a time (one CAS to take production, none to hand it off: the owner passes
 * it to the reserved thread with the task). The mode counters are {@link java.util.concurrent.atomic.LongAdder}s.
 */
public final class AdaptiveExecutionStrategy extends AbstractExecutionStrategy implements Dumpable {
    private final TryExecutor threads;
    private final Executor blockingExecutor;
    // Runs on a reserved thread that was handed production: it owns production already.
    private final Runnable handedOver = Invocable.task(InvocationType.BLOCKING, this::runProduction);

    /**
     * A strategy whose blocking tasks run on the same pool that produces.
     *
     * @param producer the producer of tasks
     * @param threads platform threads: reserved threads take production over, and dispatches and blocking tasks are
     *     executed here
     */
    public AdaptiveExecutionStrategy(Producer producer, TryExecutor threads) {
        this(producer, threads, threads);
    }

    /**
     * @param producer the producer of tasks
     * @param threads platform threads: reserved threads take production over, and dispatches are executed here
     * @param blockingExecutor runs blocking tasks in produce-execute-consume mode, e.g. bounded virtual threads
     */
    public AdaptiveExecutionStrategy(Producer producer, TryExecutor threads, Executor blockingExecutor) {
        super(producer, Objects.requireNonNull(threads, "threads"));
        this.threads = threads;
        this.blockingExecutor = Objects.requireNonNull(blockingExecutor, "blockingExecutor");
    }

    @Override
    void produceLoop(boolean nonBlockingCaller) {
        // The producing thread carries the "must not block" mark (set by runProduction): non-blocking tasks and EITHER
        // tasks invoked in non-blocking mode run with it, at no cost per task.
        while (true) {
            Runnable task = Tasks.produce(producer);
            if (task == null) {
                if (state.tryStopProducing()) {
                    return;
                }
                continue;
            }
            InvocationType type = Invocable.invocationTypeOf(task);
            if (type == InvocationType.NON_BLOCKING) {
                counters.produceConsume.increment();
                Tasks.run(task);
                continue;
            }
            if (!nonBlockingCaller && threads.tryExecute(handedOver)) {
                // Production now belongs to the reserved thread: eat the task with a hot cache and leave. This thread
                // no longer produces, so it may block in the task: the mark is lifted (and restored by runProduction).
                counters.executeProduceConsume.increment();
                NonBlockingFlag.clear();
                Tasks.run(task);
                return;
            }
            if (type == InvocationType.EITHER) {
                counters.produceInvokeConsume.increment();
                Tasks.run(task); // in non-blocking mode: this thread still produces and carries the mark
            } else {
                counters.produceExecuteConsume.increment();
                Tasks.execute(blockingExecutor, task);
            }
        }
    }

    /** Resets the mode counters. */
    public void resetStatistics() {
        counters.reset();
    }

    /** @return whether a thread owns production right now */
    public boolean isProducing() {
        return state.isProducing();
    }

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        out.append(toString()).append(System.lineSeparator());
        out.append(indent)
                .append("+- producer: ")
                .append(String.valueOf(producer))
                .append(System.lineSeparator());
        out.append(indent)
                .append("+- threads: ")
                .append(String.valueOf(threads))
                .append(System.lineSeparator());
        if (blockingExecutor != threads) {
            out.append(indent)
                    .append("+- blocking tasks: ")
                    .append(String.valueOf(blockingExecutor))
                    .append(System.lineSeparator());
        }
    }
}
