package dev.quarry.core.thread;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class JobQueueTest {

    private static Runnable job(String name) {
        return new Runnable() {
            @Override
            public void run() {}

            @Override
            public String toString() {
                return name;
            }
        };
    }

    @Test
    void pollReturnsJobsInTheOrderTheyWereOffered() {
        JobQueue queue = new JobQueue(JobQueue.UNBOUNDED);
        List<Runnable> jobs = List.of(job("a"), job("b"), job("c"));
        for (Runnable job : jobs) {
            queue.offer(job, System.nanoTime());
        }
        for (Runnable job : jobs) {
            assertSame(job, queue.poll().take());
        }
        assertNull(queue.poll());
        assertTrue(queue.isEmpty());
    }

    @Test
    void offerReportsTheSizeAfterLinkingAndSizeTracksPolls() {
        JobQueue queue = new JobQueue(JobQueue.UNBOUNDED);
        assertEquals(1, queue.offer(job("a"), 0));
        assertEquals(2, queue.offer(job("b"), 0));
        assertEquals(3, queue.offer(job("c"), 0));
        assertEquals(3, queue.size());
        queue.poll();
        assertEquals(2, queue.size());
        assertEquals(3, queue.offer(job("d"), 0));
    }

    @Test
    void nodeCarriesTheEnqueueTime() {
        JobQueue queue = new JobQueue(JobQueue.UNBOUNDED);
        queue.offer(job("a"), 12345L);
        assertEquals(12345L, queue.poll().enqueuedNanos);
    }

    @Test
    void boundedQueueRefusesBeyondItsCapacityAndAcceptsAgainAfterAPoll() {
        JobQueue queue = new JobQueue(2);
        assertEquals(1, queue.offer(job("a"), 0));
        assertEquals(2, queue.offer(job("b"), 0));
        assertEquals(0, queue.offer(job("c"), 0));
        queue.poll();
        assertEquals(2, queue.offer(job("c"), 0));
    }

    @Test
    void drainRemovesEveryJobOldestFirst() {
        JobQueue queue = new JobQueue(JobQueue.UNBOUNDED);
        Runnable a = job("a");
        Runnable b = job("b");
        queue.offer(a, 0);
        queue.offer(b, 0);
        assertEquals(List.of("a", "b"), queue.describe(10));
        assertEquals(List.of(a, b), queue.drain());
        assertTrue(queue.isEmpty());
        assertEquals(0, queue.size());
    }

    @Test
    void concurrentProducersAndConsumersTakeEveryJobExactlyOnce() throws Exception {
        int producers = 3;
        int consumers = 3;
        int perProducer = 50_000;
        long capacity = 1_000;
        JobQueue queue = new JobQueue(capacity);
        AtomicIntegerArray taken = new AtomicIntegerArray(producers * perProducer);
        CountDownLatch done = new CountDownLatch(producers);
        List<Thread> threads = new ArrayList<>();
        long[] maxSeen = new long[producers];
        for (int p = 0; p < producers; p++) {
            int base = p * perProducer;
            int index = p;
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < perProducer; i++) {
                    int id = base + i;
                    Runnable job = () -> taken.incrementAndGet(id);
                    long size;
                    while ((size = queue.offer(job, 0)) == 0) {
                        Thread.onSpinWait();
                    }
                    maxSeen[index] = Math.max(maxSeen[index], size);
                }
                done.countDown();
            }));
        }
        for (int c = 0; c < consumers; c++) {
            threads.add(Thread.ofPlatform().start(() -> {
                while (true) {
                    JobQueue.Node node = queue.poll();
                    if (node != null) {
                        node.take().run();
                    } else if (done.getCount() == 0 && queue.isEmpty()) {
                        return;
                    } else {
                        Thread.onSpinWait();
                    }
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(60));
            assertTrue(!thread.isAlive(), "thread still running: " + thread);
        }
        for (int i = 0; i < taken.length(); i++) {
            assertEquals(1, taken.get(i), "job " + i + " taken " + taken.get(i) + " times");
        }
        for (long max : maxSeen) {
            assertTrue(max <= capacity, "queue exceeded its capacity: " + max);
        }
    }
}
