package dev.quarry.core.strategy;

import dev.quarry.core.thread.TryExecutor;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test executor with a fixed pool and a set of "reserved" threads that wait on a {@link SynchronousQueue}: its
 * {@code offer} succeeds only when a reserved thread is waiting, which is exactly the contract of
 * {@link TryExecutor#tryExecute}. Independent of Quarry's thread pool so that the strategies are tested on their own.
 */
final class HandOffExecutor implements TryExecutor, AutoCloseable {
    private final ExecutorService pool;
    private final SynchronousQueue<Runnable> handOff = new SynchronousQueue<>();
    private final Map<Thread, AtomicBoolean> inTake = new ConcurrentHashMap<>();
    private final Thread[] reserved;
    private volatile boolean closed;

    HandOffExecutor(int poolThreads, int reservedThreads) {
        AtomicInteger ids = new AtomicInteger();
        ThreadFactory factory = runnable -> {
            Thread thread = new Thread(runnable, "test-pool-" + ids.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        // A lock-free queue and threads started up front: a producer dispatching here holds the must-not-block mark,
        // and the default LinkedBlockingQueue (or starting a worker) takes a lock that parks under contention.
        ThreadPoolExecutor fixed = new ThreadPoolExecutor(
                poolThreads, poolThreads, 0, TimeUnit.MILLISECONDS, new LinkedTransferQueue<>(), factory);
        fixed.prestartAllCoreThreads();
        this.pool = fixed;
        this.reserved = new Thread[reservedThreads];
        for (int i = 0; i < reservedThreads; i++) {
            reserved[i] = new Thread(this::reservedLoop, "test-reserved-" + i);
            reserved[i].setDaemon(true);
            reserved[i].start();
        }
    }

    private void reservedLoop() {
        AtomicBoolean taking = new AtomicBoolean();
        inTake.put(Thread.currentThread(), taking);
        while (!closed) {
            Runnable task;
            taking.set(true);
            try {
                // Untimed: a timed poll that expires leaves a window in which no thread waits and an offer fails,
                // which made tests that count on a waiting reserved thread flaky on a loaded machine.
                task = handOff.take();
            } catch (InterruptedException x) {
                return;
            } finally {
                taking.set(false);
            }
            task.run();
        }
    }

    /**
     * @return how many reserved threads are parked in the hand-off right now (a thread about to park, or spinning
     *     before it parks, does not count: an offer may not find it yet)
     */
    int waitingReserved() {
        int n = 0;
        for (Thread thread : reserved) {
            AtomicBoolean taking = inTake.get(thread);
            if (taking != null && taking.get() && thread.getState() == Thread.State.WAITING) {
                n++;
            }
        }
        return n;
    }

    @Override
    public boolean tryExecute(Runnable task) {
        return handOff.offer(task);
    }

    @Override
    public void execute(Runnable command) {
        pool.execute(command);
    }

    @Override
    public void close() {
        closed = true;
        pool.shutdownNow();
        for (Thread thread : reserved) {
            thread.interrupt();
        }
    }
}
