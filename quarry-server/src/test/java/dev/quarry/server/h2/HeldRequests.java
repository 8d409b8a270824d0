package dev.quarry.server.h2;

import dev.quarry.core.Callback;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Request;
import dev.quarry.server.Response;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
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
    }

    private final BlockingQueue<Held> held = new LinkedBlockingQueue<>();

    @Override
    public void handle(Request request, Response response, Callback callback) {
        held.add(new Held(request, response, callback));
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
