package dev.quarry.core.test;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** Runs one task on several platform threads at once and rethrows the first failure of any of them. */
public final class Concurrently {

    /** A task that knows which of the threads it runs on. */
    @FunctionalInterface
    public interface Task {
        void run(int thread) throws Exception;
    }

    private Concurrently() {}

    /**
     * Starts {@code threads} threads that wait on a common gate, opens it, and waits for all of them.
     *
     * @param threads how many threads
     * @param timeout how long to wait for all of them to finish
     * @param task what each thread runs
     */
    public static void run(int threads, Duration timeout, Task task) throws InterruptedException {
        CountDownLatch gate = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int thread = t;
            workers[t] = Thread.ofPlatform().name("worker-" + t).start(() -> {
                try {
                    if (!gate.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                        throw new AssertionError("the start gate did not open");
                    }
                    task.run(thread);
                } catch (Throwable x) {
                    if (!failure.compareAndSet(null, x)) {
                        failure.get().addSuppressed(x);
                    }
                }
            });
        }
        gate.countDown();
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread worker : workers) {
            long left = Math.max(1, deadline - System.nanoTime());
            if (!worker.join(Duration.ofNanos(left))) {
                fail(worker.getName() + " did not finish within " + timeout);
            }
        }
        Throwable first = failure.get();
        if (first instanceof Error error) {
            throw error;
        }
        if (first != null) {
            throw new AssertionError(first);
        }
    }
}
