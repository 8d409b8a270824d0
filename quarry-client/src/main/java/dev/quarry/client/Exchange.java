package dev.quarry.client;

import dev.quarry.core.timer.Timeout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One request and its response, from {@code send} until the response content ended or the exchange failed. It waits
 * in its destination's queue, then is assigned to one connection (or, after a retry, to a second one).
 *
 * <p>The application's future completes on the client's executor (a virtual thread), never on a selector thread, so
 * that what the application chains to it may block.
 *
 * <p>Thread-safety: the outcome is decided by one CAS ({@link #deliver}, {@link #fail}); fields are volatile.
 */
final class Exchange {
    private static final int PENDING = 0;
    private static final int DELIVERED = 1;
    private static final int FAILED = 2;

    final HttpRequest request;
    final CompletableFuture<HttpResponse> future = new CompletableFuture<>();
    private final Executor executor;
    private final Cookies cookies; // null without a cookie store
    // The Cookie value to send in place of the request's own fields, or null; set before the exchange is queued.
    private volatile String cookie;
    private final AtomicInteger state = new AtomicInteger(PENDING);
    private volatile Destination destination;
    private volatile ClientConnection connection;
    private volatile Timeout timeout;
    private volatile Throwable abortCause;
    private volatile boolean retried;
    private int refusals; // written by the connection's parsing thread only
    private volatile int unprocessedRetries; // written by one connection at a time

    /** @param cookies where the response's cookies go, or null */
    Exchange(HttpRequest request, Executor executor, Cookies cookies) {
        this.request = request;
        this.executor = executor;
        this.cookies = cookies;
    }

    /** @param value the {@code Cookie} value to send in place of the request's own fields, or null */
    void cookie(String value) {
        this.cookie = value;
    }

    /** @return the {@code Cookie} value to send in place of the request's own fields, or null to send them */
    String cookie() {
        return cookie;
    }

    void destination(Destination destination) {
        this.destination = destination;
    }

    void timeout(Timeout timeout) {
        this.timeout = timeout;
        if (state.get() == FAILED) {
            timeout.cancel();
        }
    }

    /** @param connection the connection the exchange is assigned to now, or null when it goes back to the queue */
    void connection(ClientConnection connection) {
        this.connection = connection;
    }

    /** Delivers the response head to the application. @return false if the exchange already failed */
    boolean deliver(HttpResponse response) {
        if (!state.compareAndSet(PENDING, DELIVERED)) {
            return false;
        }
        if (cookies == null) {
            executor.execute(() -> future.complete(response));
        } else {
            // Stored before the application (or the redirect that follows) sees the response; off the selector, as
            // the store may lock.
            executor.execute(() -> {
                cookies.store(response);
                future.complete(response);
            });
        }
        return true;
    }

    /**
     * Fails the exchange before its response was delivered.
     *
     * @return false if the response was already delivered (its content must then fail) or the exchange failed already
     */
    boolean fail(Throwable cause) {
        if (!state.compareAndSet(PENDING, FAILED)) {
            return false;
        }
        cancelTimeout();
        executor.execute(() -> future.completeExceptionally(cause));
        return true;
    }

    /** The exchange ended: the response content was read or the exchange failed. */
    void ended() {
        cancelTimeout();
    }

    private void cancelTimeout() {
        Timeout current = timeout;
        if (current != null) {
            current.cancel();
        }
    }

    /**
     * Aborts the exchange wherever it is: in the queue it fails at once; on a connection the connection is closed with
     * {@code cause}, which fails the exchange (never retried). Never blocks.
     */
    void abort(Throwable cause) {
        if (abortCause == null) {
            abortCause = cause;
        }
        ClientConnection current = connection;
        if (current != null) {
            current.abort(this, cause);
            return;
        }
        Destination queuedAt = destination;
        if (queuedAt != null && queuedAt.dequeue(this)) {
            fail(cause);
            return;
        }
        // Between the queue and a connection: the connection sees abortCause when it is assigned.
        current = connection;
        if (current != null) {
            current.abort(this, cause);
        }
    }

    /** @return the cause of an abort, or null */
    Throwable abortCause() {
        return abortCause;
    }

    /**
     * Decides whether a failure on a connection may be retried on a new one: once only, never after an abort, only on
     * a connection that was reused from the pool and received no byte of the response, and only if the request is
     * idempotent with a replayable body or nothing of it was sent (RFC 9110 §9.2.2, RFC 9112 §9.3.1).
     *
     * @return true if the exchange goes back to the queue (and is marked retried)
     */
    boolean retryable(boolean reusedConnection, boolean responseStarted, boolean requestSent) {
        if (retried || abortCause != null || state.get() != PENDING || !reusedConnection || responseStarted) {
            return false;
        }
        boolean safe = !requestSent || (request.isIdempotent() && request.body().isReplayable());
        if (safe) {
            retried = true;
        }
        return safe;
    }

    /**
     * Decides whether an exchange that the server did not process (an HTTP/2 stream above a GOAWAY's last stream id,
     * or reset with REFUSED_STREAM: RFC 9113 8.7) may go to a new connection: up to {@value #MAX_UNPROCESSED_RETRIES}
     * times, never after an abort.
     *
     * @return true if the exchange goes back to the queue (and is marked retried)
     */
    boolean retryableUnprocessed() {
        if (abortCause != null || state.get() != PENDING) {
            return false;
        }
        // Safe whatever the method (the server never saw it), so not limited to once: under load a server that ends
        // every connection after a few requests (nginx's keepalive_requests sends GOAWAY) may turn the same request
        // away from its second connection too. Bounded all the same, for a server that processes nothing.
        return ++unprocessedRetries <= MAX_UNPROCESSED_RETRIES;
    }

    private static final int MAX_UNPROCESSED_RETRIES = 8;

    /**
     * Counts a REFUSED_STREAM (RFC 9113 8.7: not processed) after which the exchange waits on the same connection for
     * one of its streams to end: a server may count a stream a little after the client saw it end.
     *
     * @return false once the exchange was refused too often to try again there
     */
    boolean refusedAgain() {
        return abortCause == null && state.get() == PENDING && ++refusals <= MAX_REFUSALS;
    }

    private static final int MAX_REFUSALS = 16;

    @Override
    public String toString() {
        return "Exchange@" + Integer.toHexString(hashCode()) + "{" + request + ", state=" + state.get() + "}";
    }
}
