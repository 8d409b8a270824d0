package dev.quarry.core.throttle;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** Runs one task on several platform threads released together, and rethrows the first failure. */
final class Threads {

    @FunctionalInterface
    interface Task {
        void run(int thread) throws Exception;
    }

    private Threads() {}

    static void run(int threads, Duration timeout, Task task) throws InterruptedException {
        CountDownLatch gate = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int index = t;
            workers[t] = Thread.ofPlatform().name("taker-" + t).start(() -> {
                try {
                    if (!gate.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                        throw new AssertionError("the start gate did not open");
                    }
                    task.run(index);
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
            worker.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            if (worker.isAlive()) {
                fail(worker.getName() + " still running after " + timeout);
            }
        }
        if (failure.get() != null) {
            throw new AssertionError("a thread failed", failure.get());
        }
    }
}
