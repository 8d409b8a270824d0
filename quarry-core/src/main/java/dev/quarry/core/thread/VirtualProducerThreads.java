package dev.quarry.core.thread;

import dev.quarry.core.internal.NonBlockingFlag;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

/**
 * Runs selectors on virtual threads, one new virtual thread per selector, for a server whose handlers block on virtual
 * threads: the selector then shares the fork-join carrier with the handlers'
 * virtual threads instead of taking turns with it on a core as a platform thread, which cost two operating-system
 * context switches per select batch. A virtual thread blocked in {@code Selector.select()} parks (JDK 25 registers the
 * selector's epoll descriptor with its poller) rather than holding its carrier.
 *
 * <p>{@link #tryExecute(Runnable)} always answers false: no virtual thread waits for work, so the strategies never hand
 * production over (execute-produce-consume). {@link #execute(Runnable)} starts a selector's production; the blocking
 * tasks a selector produces (a write completion whose callback may block, say) go to {@link #blockingTasks()}, the
 * server's platform pool, as they do with platform selectors: on a virtual thread of their own they would pose as
 * selectors (their name, the registry below, the per-thread scratch of {@code ThreadScratch}) and a blocking handler
 * reached from one (a pipelined request) would run in place, outside the bound on concurrent requests. Each selector
 * runs with a "must not block" mark of its own ({@link NonBlockingFlag#runWithOwnMark(Runnable)}), so that a selector
 * holding the mark for its whole life does not make every other virtual thread's read of its mark cost a thread-local
 * map.
 *
 * <p>Thread-safety: every method may be called from any thread. Cost: a virtual thread and a copy of the small registry
 * of marked threads per selector start.
 */
public final class VirtualProducerThreads implements TryExecutor {
    private final ThreadFactory factory;
    private final String name;
    private final Executor blockingTasks;

    /**
     * @param name the name of every thread started
     * @param blockingTasks runs the blocking tasks the selectors produce: platform threads that may block
     */
    public VirtualProducerThreads(String name, Executor blockingTasks) {
        this.name = Objects.requireNonNull(name, "name");
        this.blockingTasks = Objects.requireNonNull(blockingTasks, "blockingTasks");
        this.factory = Thread.ofVirtual().name(name).factory();
    }

    /** @return where the blocking tasks a selector produces run (not on these virtual threads) */
    public Executor blockingTasks() {
        return blockingTasks;
    }

    /**
     * Whether the current thread is one of these, running a task now: a virtual thread that lives as long as a selector,
     * unlike a handler's, so per-thread scratch space pays off on it as on a platform thread.
     *
     * @return true on a thread started by {@link #execute(Runnable)} while its task runs
     */
    public static boolean isCurrentThread() {
        return NonBlockingFlag.hasOwnMark();
    }

    @Override
    public boolean tryExecute(Runnable task) {
        return false;
    }

    /** Starts a selector's production on a new virtual thread with its own "must not block" mark. */
    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task");
        factory.newThread(() -> NonBlockingFlag.runWithOwnMark(task)).start();
    }

    @Override
    public String toString() {
        return "VirtualProducerThreads[" + name + "]";
    }
}
