package dev.quarry.client;

import dev.quarry.client.internal.ConnectionPool;
import dev.quarry.core.pool.Pool;
import dev.quarry.core.timer.Timeout;
import dev.quarry.io.EndPoint;
import dev.quarry.io.SelectorManager;
import dev.quarry.io.TlsConnection;
import java.io.EOFException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLHandshakeException;

/**
 * Everything the client keeps for one origin: a bounded queue of exchanges waiting for a connection, in front of a
 * pool of connections built on quarry-core's lock-free {@link Pool} (one exchange per HTTP/1.1 connection at a time,
 * up to the server's max concurrent streams per HTTP/2 connection, at most {@code maxConnectionsPerDestination}
 * connections, reserved before they are opened so that concurrent sends never overshoot). The
 * {@link ConnectionPoolKind} decides which available connection an exchange takes; {@link ConnectionPool} skips and
 * retires connections that closed or outlived the max connection duration.
 *
 * <p><b>Flow.</b> {@link #send} queues the exchange and {@link #process()}es the queue: acquire an idle connection
 * and assign it the oldest exchange, or reserve a pool entry and open a connection (which processes the queue again
 * once open). A connection that finishes an exchange is released and processes the queue too. So an exchange never
 * waits while a connection is idle: whoever changes either side looks at the other.
 *
 * <p>Thread-safety: lock-free; {@link #process()} runs on any thread (application, selector, executor) and never
 * blocks: connects are started on the executor, since resolving a host name may block.
 */
final class Destination {
    private static final System.Logger LOG = System.getLogger(Destination.class.getName());

    private final Origin origin;
    private final HttpClient client;
    // The proxy requests to this origin go through, or null: fixed per origin, since a client has one proxy setting.
    private final HttpProxy proxy;
    private final ConnectionPool<ClientConnection> connections;
    private final Pool<ClientConnection> pool;
    /** Entries reserved by {@link #preCreate(int)}, until their connection opens or fails; usually empty. */
    private final Map<Pool.Entry<ClientConnection>, CompletableFuture<Void>> preCreating = new ConcurrentHashMap<>();

    private final ConcurrentLinkedDeque<Exchange> queue = new ConcurrentLinkedDeque<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger maxOpen = new AtomicInteger();
    private final LongAdder opened = new LongAdder();
    private final LongAdder closed = new LongAdder();
    private final LongAdder exchanges = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private volatile boolean stopped;

    Destination(Origin origin, HttpClient client) {
        this.origin = origin;
        this.client = client;
        this.proxy = client.proxyFor(origin);
        this.connections = new ConnectionPool<>(
                client.connectionPoolKind(),
                client.maxConnectionsPerDestination(),
                client.maxUsagePerConnection(),
                client.threadLocalCacheSize(),
                client.maxConnectionDurationNanos(),
                ClientConnection::isUsable,
                ClientConnection::createdNanos,
                this::retire);
        this.pool = connections.pool();
    }

    Origin origin() {
        return origin;
    }

    /** @return the proxy the connections go to, or null when they go to the origin */
    HttpProxy proxy() {
        return proxy;
    }

    /** @return whether requests go to a proxy that forwards them (an {@code http} origin): in absolute-form */
    boolean forwardsThroughProxy() {
        return proxy != null && !origin.isSecure();
    }

    /** Queues an exchange, or fails it at once if the queue is full. */
    void send(Exchange exchange) {
        exchange.destination(this);
        if (stopped) {
            exchange.fail(new IOException("the client is closed"));
            return;
        }
        if (queued.incrementAndGet() > client.maxQueuedPerDestination()) {
            queued.decrementAndGet();
            rejected.increment();
            exchange.fail(new RejectedExecutionException("the request queue of " + origin + " is full ("
                    + client.maxQueuedPerDestination() + " requests wait for one of its "
                    + client.maxConnectionsPerDestination() + " connections): " + exchange.request));
            return;
        }
        exchanges.increment();
        queue.offer(exchange);
        process();
    }

    /** Puts an exchange back at the head of the queue, for its one retry on another connection. */
    void retry(Exchange exchange) {
        retries.increment();
        queued.incrementAndGet();
        queue.offerFirst(exchange);
        process();
    }

    /** @return true if the exchange was still queued and is removed */
    boolean dequeue(Exchange exchange) {
        if (queue.remove(exchange)) {
            queued.decrementAndGet();
            return true;
        }
        return false;
    }

    private Exchange poll() {
        Exchange exchange = queue.poll();
        if (exchange != null) {
            queued.decrementAndGet();
        }
        return exchange;
    }

    /** Matches queued exchanges with idle connections, and opens connections when none is idle. */
    void process() {
        while (!queue.isEmpty()) {
            if (stopped) {
                failQueued(new IOException("the client is closed"));
                return;
            }
            Pool.Entry<ClientConnection> entry = connections.acquire(); // skips closed and expired connections
            if (entry == null) {
                // One connect per waiting exchange at most: a busy pool does not open every free slot at once.
                if (pool.reservedCount() < queued.get()) {
                    Pool.Entry<ClientConnection> reserved = pool.reserve();
                    if (reserved != null) {
                        connect(reserved);
                    }
                }
                return;
            }
            ClientConnection connection = entry.pooled();
            Exchange exchange = poll();
            if (exchange == null) {
                if (!entry.release()) {
                    retire(entry);
                }
                continue; // an exchange queued meanwhile may have found no connection: look again
            }
            connection.assign(exchange, entry.usageCount() > 1);
        }
    }

    private void connect(Pool.Entry<ClientConnection> entry) {
        client.executor().execute(() -> {
            Path unix = client.unixDomainSocket();
            SocketAddress address = unix != null
                    ? UnixDomainSocketAddress.of(unix)
                    : proxy != null
                            ? new InetSocketAddress(proxy.host(), proxy.port())
                            : new InetSocketAddress(origin.host(), origin.port());
            if (address instanceof InetSocketAddress inet && inet.isUnresolved()) {
                connectFailed(
                        entry,
                        new UnknownHostException("cannot resolve host '" + inet.getHostString() + "'"
                                + (proxy != null ? " (the proxy of " + origin + ")" : "")));
                return;
            }
            Attempt attempt = new Attempt();
            SelectorManager.PendingConnect pending = client.selectors()
                    .connect(
                            address,
                            endPoint -> {
                                if (!origin.isSecure()) {
                                    attempt.done();
                                    if (proxy != null) {
                                        // Forwarded in absolute-form: HTTP/1.1 only (no h2c through a proxy).
                                        return new HttpConnection(endPoint, this, client, entry, false);
                                    }
                                    // h2c by prior knowledge (RFC 9113 3.3): the preface is the first thing sent.
                                    if (client.http2() && !client.h2cUpgrade()) {
                                        return new Http2Connection(endPoint, this, client, entry);
                                    }
                                    return new HttpConnection(
                                            endPoint, this, client, entry, client.http2() && client.h2cUpgrade());
                                }
                                // The connect timeout covers the tunnel and the handshake too: done once it completed.
                                attempt.handshaking(endPoint);
                                if (proxy != null) {
                                    return new ProxyTunnel(
                                            endPoint,
                                            origin,
                                            proxy,
                                            client.maxResponseHeaderSize(),
                                            tunnel -> tls(tunnel, entry, attempt));
                                }
                                return tls(endPoint, entry, attempt);
                            },
                            endPoint -> {
                                if (endPoint.connection() instanceof ProxyTunnel tunnel) {
                                    attempt.done();
                                    IOException timedOut = attempt.timedOut;
                                    IOException failure = tunnel.failure();
                                    connectFailed(
                                            entry,
                                            timedOut != null
                                                    ? timedOut
                                                    : failure != null
                                                            ? failure
                                                            : new EOFException("the connection to proxy " + proxy
                                                                    + " closed before its tunnel to " + origin
                                                                    + " was open"));
                                } else if (endPoint.connection() instanceof TlsConnection tls
                                        && !tls.isHandshakeComplete()) {
                                    attempt.done();
                                    IOException timedOut = attempt.timedOut;
                                    connectFailed(entry, timedOut != null ? timedOut : handshakeFailure(tls));
                                }
                            },
                            failure -> connectFailed(entry, failure));
            long millis = client.connectTimeoutMillis();
            if (millis > 0 && !attempt.done) {
                try {
                    attempt.timeout(client.timer()
                            .schedule(
                                    () -> {
                                        SocketTimeoutException timeout = new SocketTimeoutException(
                                                "connect to " + origin + " timed out after " + millis + " ms");
                                        if (!pending.cancel(timeout)) {
                                            attempt.timeOut(timeout);
                                        }
                                    },
                                    millis,
                                    TimeUnit.MILLISECONDS));
                } catch (IllegalStateException stopped) {
                    // The client closed meanwhile (its timer stopped): so does this connect.
                    pending.cancel(new IOException("the client is closed"));
                }
            }
        });
    }

    private TlsConnection tls(EndPoint endPoint, Pool.Entry<ClientConnection> entry, Attempt attempt) {
        return new TlsConnection(
                endPoint,
                client.tls().newEngine(origin),
                client.bufferPool(),
                client.executor(),
                client.executor(),
                tls -> {
                    attempt.done();
                    // The protocol the server chose by ALPN (RFC 7301) decides the connection.
                    return ClientTls.H2.equals(tls.applicationProtocol())
                            ? new Http2Connection(tls.decryptedEndPoint(), this, client, entry)
                            : new HttpConnection(tls.decryptedEndPoint(), this, client, entry, false);
                });
    }

    private IOException handshakeFailure(TlsConnection tls) {
        Throwable cause = tls.handshakeFailure();
        SSLHandshakeException failure = new SSLHandshakeException("TLS handshake with " + origin + " failed"
                + (cause == null ? " (the connection closed)" : ": " + cause.getMessage()));
        failure.initCause(cause);
        return failure;
    }

    /**
     * Cancels the connect timeout once the connect (and the TLS handshake, over {@code https}) is done, whichever of the
     * two happens first; a timeout during the handshake closes the connection.
     */
    private static final class Attempt {
        volatile boolean done;
        private volatile Timeout timeout;
        private volatile EndPoint handshaking;
        volatile IOException timedOut;

        void handshaking(EndPoint endPoint) {
            handshaking = endPoint;
        }

        void timeOut(SocketTimeoutException cause) {
            EndPoint endPoint = handshaking;
            if (!done && endPoint != null) {
                timedOut = cause;
                endPoint.close(cause);
            }
        }

        void done() {
            done = true;
            Timeout current = timeout;
            if (current != null) {
                current.cancel();
            }
        }

        void timeout(Timeout timeout) {
            this.timeout = timeout;
            if (done) {
                timeout.cancel();
            }
        }
    }

    /** A connection closed before it could serve (an HTTP/2 one before the server's SETTINGS): as a failed connect. */
    void openFailed(Pool.Entry<ClientConnection> entry, Throwable failure) {
        connectFailed(entry, failure);
    }

    private void connectFailed(Pool.Entry<ClientConnection> entry, Throwable failure) {
        entry.remove();
        CompletableFuture<Void> preCreated = preCreating.isEmpty() ? null : preCreating.remove(entry);
        IOException cause;
        if (failure instanceof SocketTimeoutException
                || failure instanceof UnknownHostException
                || failure instanceof SSLHandshakeException
                || failure instanceof ProxyConnectException
                || failure instanceof BadResponseException) {
            cause = (IOException) failure;
        } else {
            cause = new ConnectException("cannot connect to "
                    + (proxy != null ? "proxy " + proxy + " (for " + origin + ")" : origin) + ": " + failure);
            cause.initCause(failure);
        }
        LOG.log(Level.DEBUG, "connect to {0} failed: {1}", origin, failure);
        if (preCreated != null) {
            // No exchange asked for this connection: only the pre-creation fails, queued exchanges connect anew.
            preCreated.completeExceptionally(cause);
            process();
            return;
        }
        // The exchange that asked for this connection fails; the others get their own attempt.
        Exchange exchange = poll();
        if (exchange != null) {
            exchange.fail(cause);
        }
        process();
    }

    /**
     * A new connection is open (an HTTP/2 one once the server's first SETTINGS arrived): make it available and serve
     * the queue.
     */
    void onOpened(ClientConnection connection) {
        int now = open.incrementAndGet();
        maxOpen.accumulateAndGet(now, Math::max);
        opened.increment();
        CompletableFuture<Void> preCreated = preCreating.isEmpty() ? null : preCreating.remove(connection.entry());
        if (!connection.entry().enable(connection, false)) {
            connection.endPoint().close(); // the client closed meanwhile
            if (preCreated != null) {
                preCreated.completeExceptionally(new IOException("the client is closed"));
            }
            return;
        }
        scheduleExpiry(connection);
        if (preCreated != null) {
            preCreated.complete(null);
        }
        process();
    }

    /**
     * Closes the connection when it reaches the max duration, if it is idle then. One carrying exchanges is retired
     * when they release it ({@link ConnectionPool#release}), and an acquire that comes across an expired one skips it.
     */
    private void scheduleExpiry(ClientConnection connection) {
        long nanos = connections.maxDurationNanos();
        if (nanos <= 0) {
            return;
        }
        long remaining = Math.max(0, connection.createdNanos() + nanos - System.nanoTime());
        Timeout timeout;
        try {
            timeout = client.timer().schedule(() -> expireIfIdle(connection), remaining, TimeUnit.NANOSECONDS);
        } catch (IllegalStateException stopped) {
            return; // the client is closing: so is the connection
        }
        connection.expiry(timeout);
        if (!connection.endPoint().isOpen()) {
            timeout.cancel(); // closed before the handle was kept, so onClosed could not cancel it
        }
    }

    private void expireIfIdle(ClientConnection connection) {
        if (connection.entry().removeIfIdle()) {
            LOG.log(Level.DEBUG, "closing {0}: it reached the max connection duration", connection);
            close(connection);
        }
    }

    private static void close(ClientConnection connection) {
        if (connection instanceof Http2Connection h2) {
            h2.closeGracefully();
        } else {
            connection.endPoint().close();
        }
    }

    /**
     * Opens connections ahead of requests, up to the max connections of the destination (reserved and open ones
     * included).
     *
     * @param count how many connections to open
     * @return a future completed when they are all open, or failed with the first connect failure
     */
    CompletableFuture<Void> preCreate(int count) {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int i = 0; i < count && !stopped; i++) {
            Pool.Entry<ClientConnection> entry = pool.reserve();
            if (entry == null) {
                break; // the pool is full: the connections asked for exist, or are being opened
            }
            CompletableFuture<Void> opened = new CompletableFuture<>();
            preCreating.put(entry, opened);
            all.add(opened);
            connect(entry);
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    /** A connection's endpoint closed (called before its pool entry is removed). */
    void onClosed(ClientConnection connection) {
        open.decrementAndGet();
        closed.increment();
        Timeout expiry = connection.expiry();
        if (expiry != null) {
            expiry.cancel();
        }
    }

    /** A connection finished an exchange and persists: back to the pool, then serve the queue. */
    void release(ClientConnection connection) {
        if (!connections.release(connection.entry())) {
            retire(connection.entry()); // worn out (max usage or duration) or the pool closed
        }
        process();
    }

    /** A connection that carried an exchange cannot be reused: close it and leave the pool. */
    void remove(ClientConnection connection) {
        connection.endPoint().close();
        connection.entry().remove();
        process();
    }

    /** An idle connection closed (the server closed it, or its idle timeout expired). */
    void removeIdle(ClientConnection connection) {
        connection.entry().removeIfIdle();
    }

    /**
     * An HTTP/2 stream ended: its hold on the connection's entry ends too. A connection that can take no more
     * streams (GOAWAY, closed, worn out) leaves the pool, and the last stream to end closes it.
     *
     * @param connection the stream's connection
     * @param reusable whether the connection may take further streams
     */
    void streamEnded(Http2Connection connection, boolean reusable) {
        Pool.Entry<ClientConnection> entry = connection.entry();
        if (!reusable || !connections.release(entry)) {
            if (entry.remove()) {
                connection.closeGracefully();
            }
        }
        process();
    }

    /**
     * An HTTP/1.1 connection switches to HTTP/2 (the server accepted {@code Upgrade: h2c}): the pooled object of an
     * entry cannot change, so its entry leaves the pool (ending the upgrading exchange's hold) and a new one is
     * reserved for the HTTP/2 connection, which enables it already held by that exchange (now stream 1).
     *
     * @return the new entry, or null if the pool is closed or another connect took the freed slot meanwhile
     */
    Pool.Entry<ClientConnection> replaceEntry(Pool.Entry<ClientConnection> held) {
        held.remove();
        return pool.reserve();
    }

    /**
     * The server's SETTINGS_MAX_CONCURRENT_STREAMS (or the client's own cap, if lower) for an HTTP/2 connection: the
     * pool lets that many exchanges hold an entry at once. One value for the whole pool, as servers announce the same
     * limit on each of their connections; a connection given more than its own limit keeps the extra exchanges
     * waiting until one of its streams ends (see {@link Http2Connection}).
     */
    void maxMultiplex(int streams) {
        if (pool.maxMultiplex() != streams) {
            pool.maxMultiplex(streams);
        }
        process();
    }

    private void retire(Pool.Entry<ClientConnection> entry) {
        ClientConnection connection = entry.pooled();
        if (connection instanceof Http2Connection h2) {
            // Other streams may still run on it: only the last holder closes it.
            if (entry.remove()) {
                h2.closeGracefully();
            }
            return;
        }
        connection.endPoint().close();
        entry.remove();
    }

    private void failQueued(Throwable cause) {
        Exchange exchange;
        while ((exchange = poll()) != null) {
            exchange.fail(cause);
        }
    }

    /** Closes every connection and fails the queued exchanges. */
    void stop() {
        stopped = true;
        failQueued(new IOException("the client is closed"));
        List<ClientConnection> all = new ArrayList<>();
        for (Pool.Entry<ClientConnection> entry : pool.entries()) {
            ClientConnection connection = entry.pooled();
            if (connection != null) {
                all.add(connection);
            }
        }
        pool.close();
        for (ClientConnection connection : all) {
            connection.endPoint().close(new IOException("the client is closed"));
        }
    }

    DestinationStatistics statistics() {
        return new DestinationStatistics(
                origin,
                queued.get(),
                pool.size(),
                pool.idleCount(),
                pool.inUseCount(),
                pool.reservedCount(),
                open.get(),
                maxOpen.get(),
                opened.sum(),
                closed.sum(),
                exchanges.sum(),
                retries.sum(),
                rejected.sum());
    }

    @Override
    public String toString() {
        DestinationStatistics s = statistics();
        return "Destination{" + origin + (proxy != null ? " via proxy " + proxy : "") + ", queued=" + s.queued() + "/"
                + client.maxQueuedPerDestination()
                + ", pool=" + s.connections() + "/" + pool.maxEntries() + " (active=" + s.inUse() + ", idle=" + s.idle()
                + ", pending=" + s.connecting() + "), open=" + s.open() + ", maxOpen=" + s.maxOpen() + ", opened="
                + s.opened() + ", closed=" + s.closed() + ", exchanges=" + s.exchanges() + ", retries=" + s.retries()
                + ", rejected=" + s.rejected() + ", kind=" + client.connectionPoolKind() + ", maxUsage="
                + pool.maxUsage() + ", cache=" + pool.cacheSize()
                + (connections.maxDurationNanos() > 0
                        ? ", maxDuration=" + TimeUnit.NANOSECONDS.toMillis(connections.maxDurationNanos()) + "ms"
                        : "")
                + "}";
    }
}
