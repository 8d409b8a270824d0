package dev.quarry.server.h2;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Request;
import dev.quarry.server.Response;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.TimeUnit;

/**
 * An asynchronous handler that holds every request without a thread until the test answers it: streams stay open for
 * as long as a test needs (concurrency limits, resets, shutdown), and nothing blocks.
 */
final class HeldRequests implements AsyncHandler {
    /** A request waiting for its answer. */
    record Held(Request request, Response response, Callback callback) {
        /** Answers 200 with {@code text}. */
        void answer(String text) {
            response.write(true, TestHandlers.utf8(text), callback);
        }

        /**
         * Sends the whole response (200 with {@code text}, END_STREAM) but keeps the handler running: the stream is
         * closed on the wire while its exchange is not complete, as a blocking handler's stream is between its last
         * write and its return. {@link #finish()} completes it.
         */
        void answerAndLinger(String text) {
            response.write(true, TestHandlers.utf8(text), Callback.NOOP);
        }

        /** Completes the handler after {@link #answerAndLinger}. */
        void finish() {
            callback.succeeded();
        }
    }

    // Lock-free: handle() runs on a selector thread, which must not wait for the test thread's lock.
    private final BlockingQueue<Held> held = new LinkedTransferQueue<>();

    @Override
    public void handle(Request request, Response response, Callback callback) {
        held.add(new Held(request, response, callback));
    }

    @Override
    public InvocationType invocationType() {
        return InvocationType.NON_BLOCKING;
    }

    /** Takes the next held request, waiting for it to arrive. */
    Held take(Duration timeout) throws InterruptedException {
        Held next = held.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (next == null) {
            throw new AssertionError("no request arrived within " + timeout);
        }
        return next;
    }

    /** @return how many requests are held now */
    int size() {
        return held.size();
    }
}
