package dev.quarry.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class IteratingCallbackTest {

    /** Counts steps; each step completes as the subclass decides. */
    private abstract static class Counting extends IteratingCallback {
        final int steps;
        final AtomicInteger processed = new AtomicInteger();
        final CountDownLatch done = new CountDownLatch(1);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        int maxDepth;

        Counting(int steps) {
            this.steps = steps;
        }

        @Override
        protected Action process() {
            maxDepth = Math.max(maxDepth, Thread.currentThread().getStackTrace().length);
            if (processed.get() == steps) {
                return Action.SUCCEEDED;
            }
            processed.incrementAndGet();
            startStep();
            return Action.SCHEDULED;
        }

        abstract void startStep();

        @Override
        protected void onCompleteSuccess() {
            done.countDown();
        }

        @Override
        protected void onCompleteFailure(Throwable cause) {
            failure.set(cause);
            done.countDown();
        }
    }

    @Test
    void stepsCompletedSynchronouslyLoopWithoutGrowingTheStack() throws Exception {
        Counting callback = new Counting(100_000) {
            @Override
            void startStep() {
                succeeded(); // completes before process() returns
            }
        };
        int baseDepth = Thread.currentThread().getStackTrace().length;

        callback.iterate();

        assertTrue(callback.done.await(0, TimeUnit.SECONDS));
        assertEquals(100_000, callback.processed.get());
        assertTrue(callback.isSucceeded());
        assertTrue(callback.maxDepth < baseDepth + 20, "recursed: depth " + callback.maxDepth);
    }

    @Test
    void stepsCompletedByAnotherThreadResumeProcessingThere() throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            Counting callback = new Counting(1_000) {
                @Override
                void startStep() {
                    other.execute(this::succeeded);
                }
            };
            callback.iterate();

            assertTrue(callback.done.await(10, TimeUnit.SECONDS));
            assertEquals(1_000, callback.processed.get());
            assertTrue(callback.isSucceeded());
        } finally {
            other.shutdownNow();
        }
    }

    @Test
    void iterateWhileProcessingIsServedByTheProcessingThread() {
        ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>();
        AtomicInteger calls = new AtomicInteger();
        IteratingCallback callback = new IteratingCallback() {
            @Override
            protected Action process() {
                calls.incrementAndGet();
                if (calls.get() == 1) {
                    queue.add("late");
                    iterate(); // another producer of work calls iterate() while we process
                    return Action.IDLE;
                }
                queue.poll();
                return Action.IDLE;
            }
        };

        callback.iterate();

        assertEquals(2, calls.get(), "the processing thread processed again");
        assertTrue(queue.isEmpty());
        assertFalse(callback.isDone());
    }

    @Test
    void failedStepFailsTheWholeOperationOnce() {
        AtomicInteger failures = new AtomicInteger();
        AtomicReference<Throwable> cause = new AtomicReference<>();
        IteratingCallback callback = new IteratingCallback() {
            @Override
            protected Action process() {
                return Action.SCHEDULED;
            }

            @Override
            protected void onCompleteFailure(Throwable x) {
                failures.incrementAndGet();
                cause.set(x);
            }
        };
        callback.iterate();
        IOException boom = new IOException("expected by the test");

        callback.failed(boom);
        callback.failed(new IOException("second"));
        callback.succeeded();

        assertEquals(1, failures.get());
        assertSame(boom, cause.get());
        assertTrue(callback.isFailed());
    }

    @Test
    void processThatThrowsFailsTheOperation() {
        AtomicReference<Throwable> cause = new AtomicReference<>();
        IteratingCallback callback = new IteratingCallback() {
            @Override
            protected Action process() throws IOException {
                throw new IOException("cannot start the step");
            }

            @Override
            protected void onCompleteFailure(Throwable x) {
                cause.set(x);
            }
        };

        callback.iterate();

        assertInstanceOf(IOException.class, cause.get());
        assertTrue(callback.isFailed());
    }

    @Test
    void closeFailsAPendingOperationAndLaterIterateDoesNothing() {
        AtomicInteger calls = new AtomicInteger();
        AtomicReference<Throwable> cause = new AtomicReference<>();
        IteratingCallback callback = new IteratingCallback() {
            @Override
            protected Action process() {
                calls.incrementAndGet();
                return Action.SCHEDULED;
            }

            @Override
            protected void onCompleteFailure(Throwable x) {
                cause.set(x);
            }
        };
        callback.iterate();

        callback.close();
        callback.iterate();
        callback.succeeded();

        assertEquals(1, calls.get());
        assertInstanceOf(ClosedChannelException.class, cause.get());
    }

    @Test
    void futureCallbackBlocksUntilCompletedAndRethrowsFailureAsIOException() throws Exception {
        FutureCallback ok = new FutureCallback();
        new Thread(ok::succeeded).start();
        ok.block(10, TimeUnit.SECONDS);

        FutureCallback failed = new FutureCallback();
        failed.failed(new IllegalStateException("broken pipe"));
        IOException x = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, failed::block);
        assertEquals("broken pipe", x.getMessage());
        assertEquals(InvocationType.NON_BLOCKING, failed.invocationType());
    }
}
