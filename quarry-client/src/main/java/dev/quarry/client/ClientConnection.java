package dev.quarry.client;

import dev.quarry.core.pool.Pool;
import dev.quarry.core.timer.Timeout;
import dev.quarry.io.EndPoint;

/**
 * A connection of a destination's pool, whatever its protocol: an HTTP/1.1 connection carries one exchange at a time
 * ({@link HttpConnection}), an HTTP/2 connection one per stream ({@link Http2Connection}), so its pool entry is held
 * once per exchange.
 *
 * <p>Thread-safety: every method may be called from any thread and never blocks.
 */
interface ClientConnection {

    /** @return the pool entry this connection lives in */
    Pool.Entry<ClientConnection> entry();

    /**
     * @return when the connection was created, on the {@link System#nanoTime()} clock: the max connection duration
     *     counts from there
     */
    long createdNanos();

    /**
     * Keeps the timer task that closes the connection at its max duration, so that closing it earlier cancels the task
     * (which would otherwise keep the closed connection reachable until then).
     *
     * @param timeout the task's handle
     */
    void expiry(Timeout timeout);

    /** @return the handle given to {@link #expiry(Timeout)}, or null */
    Timeout expiry();

    /** @return whether the connection may take another exchange */
    boolean isUsable();

    /**
     * Starts an exchange on this connection, whose pool entry the caller acquired for it.
     *
     * @param exchange the exchange
     * @param reused whether the connection carried an exchange before (a failure may then be retried)
     */
    void assign(Exchange exchange, boolean reused);

    /** Aborts {@code exchange} if this connection still carries it. */
    void abort(Exchange exchange, Throwable cause);

    /** @return the connection's endpoint */
    EndPoint endPoint();
}
