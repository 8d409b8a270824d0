package dev.quarry.io;

import dev.quarry.core.timer.HashedWheelTimer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;

/**
 * Accepts the PROXY protocol (HAProxy's specification, versions 1 and 2) in front of another protocol: put first on a
 * connector that only a proxy or load balancer can reach (haproxy's {@code send-proxy} or {@code send-proxy-v2}, an
 * AWS NLB, ...). Each connection's first bytes are read as the header, whose client address then becomes the
 * endpoint's {@link EndPoint#remoteAddress()} for the protocol that follows ({@code next}: HTTP/1.1, h2c, TLS), so
 * that requests, per-client limits and access logs see the client instead of the proxy. The header's TLVs are there
 * too, as {@link EndPoint#proxyHeader()}.
 *
 * <p>The version is detected per connection; so is the header's presence: a connection whose first bytes start with
 * neither signature is served by {@code next} as if this factory were not there (with its own addresses). A
 * connector without this factory never looks for a header: its clients cannot claim another address.
 *
 * <p>Thread-safety: immutable but for the counters; any thread.
 */
public final class ProxyConnectionFactory implements ConnectionFactory {
    /** The default bound on the time a connection may take to send its header. */
    public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(10);
    /** The default bound on a version 2 header's size: room for the TLVs proxies send, not for a flood. */
    public static final int DEFAULT_MAX_HEADER_SIZE = 4096;

    private final ConnectionFactory next;
    private final HashedWheelTimer timer;
    private final Executor executor;
    private final Duration headerTimeout;
    private final int maxHeaderSize;
    final LongAdder accepted = new LongAdder();
    final LongAdder withoutHeader = new LongAdder();
    final LongAdder rejected = new LongAdder();

    /**
     * @param next the protocol spoken after the header
     * @param timer times the header out
     * @param executor serves the bytes that arrived with the header to the next protocol's reader (see {@link
     *     AbstractConnection#readInvocationType()}: it may block)
     * @param headerTimeout how long a connection may take to send a complete header; zero or negative for no bound
     *     but the idle timeout
     * @param maxHeaderSize the longest version 2 header accepted, at least 232 (the longest address block with its
     *     fixed part); version 1 lines are bounded by their specification at 107 bytes
     */
    public ProxyConnectionFactory(
            ConnectionFactory next,
            HashedWheelTimer timer,
            Executor executor,
            Duration headerTimeout,
            int maxHeaderSize) {
        this.next = Objects.requireNonNull(next, "next");
        this.timer = Objects.requireNonNull(timer, "timer");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.headerTimeout = Objects.requireNonNull(headerTimeout, "headerTimeout");
        if (maxHeaderSize < ProxyHeaderParser.V2_FIXED_LENGTH + 216) {
            throw new IllegalArgumentException("maxHeaderSize must be >= 232, was " + maxHeaderSize);
        }
        this.maxHeaderSize = maxHeaderSize;
    }

    /**
     * A factory with the default timeout and size bound.
     *
     * @param next the protocol spoken after the header
     * @param timer times the header out
     * @param executor serves the bytes that arrived with the header
     */
    public ProxyConnectionFactory(ConnectionFactory next, HashedWheelTimer timer, Executor executor) {
        this(next, timer, executor, DEFAULT_HEADER_TIMEOUT, DEFAULT_MAX_HEADER_SIZE);
    }

    @Override
    public String protocol() {
        return "proxy";
    }

    @Override
    public Connection newConnection(ServerConnector connector, EndPoint endPoint) {
        return new ProxyConnection(connector, endPoint, this);
    }

    /** @return the protocol spoken after the header */
    public ConnectionFactory next() {
        return next;
    }

    /** @return how long a connection may take to send its header */
    public Duration headerTimeout() {
        return headerTimeout;
    }

    /** @return the longest version 2 header accepted */
    public int maxHeaderSize() {
        return maxHeaderSize;
    }

    HashedWheelTimer timer() {
        return timer;
    }

    Executor executor() {
        return executor;
    }

    /** @return connections that sent a valid header, since creation */
    public long acceptedHeaders() {
        return accepted.sum();
    }

    /** @return connections that sent no header (their first bytes matched neither signature), since creation */
    public long connectionsWithoutHeader() {
        return withoutHeader.sum();
    }

    /** @return connections closed for a malformed, truncated, oversized or late header, since creation */
    public long rejectedHeaders() {
        return rejected.sum();
    }

    @Override
    public String toString() {
        return "ProxyConnectionFactory{v1+v2, next=" + next.protocol() + ", headerTimeout=" + headerTimeout.toMillis()
                + "ms, maxHeaderSize=" + maxHeaderSize + ", accepted=" + accepted.sum() + ", rejected="
                + rejected.sum() + "}";
    }
}
