package dev.quarry.core.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Invocable;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Reserving, enabling and removing entries is what a client's selector thread does when it opens and closes
 * connections, so it must never wait for another thread: run under contention on threads carrying the "must not block"
 * mark, the blocking detector fails the test if any of them parks (as they did on the lock the pool once took to copy
 * its array).
 */
class PoolNonBlockingTest {
    private static final int THREADS = 4;
    private static final int ROUNDS = 20_000;

    @Test
    void reserveAndRemoveNeverBlockAndKeepTheLimit() throws Exception {
        int maxEntries = 3;
        Pool<Pooled> pool = Pool.<Pooled>builder(maxEntries).build();
        AtomicInteger ids = new AtomicInteger();
        AtomicInteger live = new AtomicInteger();
        AtomicInteger maxLive = new AtomicInteger();
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException x) {
                    Thread.currentThread().interrupt();
                    return;
                }
                Invocable.invokeNonBlocking(() -> {
                    try {
                        for (int i = 0; i < ROUNDS; i++) {
                            Pool.Entry<Pooled> entry = pool.reserve();
                            if (entry == null) {
                                continue; // full: another thread holds every slot
                            }
                            maxLive.accumulateAndGet(live.incrementAndGet(), Math::max);
                            if ((i & 1) == 0 && entry.enable(new Pooled(ids.incrementAndGet()), false)) {
                                live.decrementAndGet();
                                if (entry.remove()) {
                                    entry.pooled().close();
                                }
                            } else {
                                live.decrementAndGet();
                                entry.remove();
                            }
                        }
                    } catch (Throwable x) {
                        failures.add(x);
                    }
                });
            });
            threads.add(thread);
            thread.start();
        }
        start.countDown();
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(120));
            assertTrue(!thread.isAlive(), thread.getName() + " still running: " + pool.dump());
        }
        assertTrue(failures.isEmpty(), () -> "workers failed: " + failures);
        assertTrue(maxLive.get() <= maxEntries, "reserved " + maxLive.get() + " entries at once, max " + maxEntries);
        assertEquals(0, pool.size(), "every entry removed");
        assertEquals(0, pool.reservedCount(), "no reserved entry counted");
    }
}
