package dev.quarry.core.thread;

import dev.quarry.core.internal.NonBlockingFlag;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;

/**
 * Runs selectors (and whatever their execution strategy hands off) on virtual threads, one new virtual thread per task,
 * for a server whose handlers block on virtual threads: the selector then shares the fork-join carrier with the handlers'
 * virtual threads instead of taking turns with it on a core as a platform thread, which cost two operating-system
 * context switches per select batch. A virtual thread blocked in {@code Selector.select()} parks (JDK 25 registers the
 * selector's epoll descriptor with its poller) rather than holding its carrier.
 *
 * <p>{@link #tryExecute(Runnable)} always answers false: no virtual thread waits for work, so the strategies never hand
 * production over (execute-produce-consume) and run blocking tasks through {@link #execute(Runnable)}, on a new virtual
 * thread. Each task runs with a "must not block" mark of its own ({@link NonBlockingFlag#runWithOwnMark(Runnable)}),
 * so that a selector holding the mark for its whole life does not make every other virtual thread's read of its mark
 * cost a thread-local map.
 *
 * <p>Thread-safety: every method may be called from any thread. Cost: a virtual thread and a copy of the small registry
 * of marked threads per task; a selector asks for one task per start, and blocking hand-offs are rare on selectors.
 */
public final class VirtualProducerThreads implements TryExecutor {
    private final ThreadFactory factory;
    private final String name;

    /**
     * @param name the name of every thread started
     */
    public VirtualProducerThreads(String name) {
        this.name = Objects.requireNonNull(name, "name");
        this.factory = Thread.ofVirtual().name(name).factory();
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
