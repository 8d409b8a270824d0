package dev.quarry.client;

import dev.quarry.core.buffer.BucketedByteBufferPool;
import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.thread.ThreadPool;
import dev.quarry.core.timer.HashedWheelTimer;
import dev.quarry.http.h1.HttpParserConfig;
import dev.quarry.io.IdleTimeouts;
import dev.quarry.io.SelectorManager;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.CookieStore;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;

/**
 * An HTTP/1.1 and HTTP/2 client: requests go to a destination per origin (scheme, host, port), which queues them (bounded) in
 * front of a pool of keep-alive connections.
 *
 * <pre>{@code
 * try (HttpClient client = HttpClient.builder().maxConnectionsPerDestination(8).build()) {
 *     HttpResponse response = client.send(HttpRequest.get("http://localhost:8080/hello"));
 *     System.out.println(response.status() + " " + response.asString());
 * }
 * }</pre>
 *
 * <p><b>Shapes.</b> {@link #send} blocks until the response head arrived (natural on a virtual thread);
 * {@link #sendAsync} returns a future completed then, on a virtual thread of the client, so that what is chained to
 * it may block. Either way the content is then streamed with back pressure ({@link HttpResponse#body()}) or read whole.
 *
 * <p><b>Connections.</b> At most {@code maxConnectionsPerDestination} per origin; beyond, requests wait in a queue of
 * at most {@code maxQueuedRequestsPerDestination} and a request that finds it full fails at once with a
 * {@link java.util.concurrent.RejectedExecutionException}. Connections persist unless the server or the request says
 * {@code Connection: close}, are closed after {@code maxUsagePerConnection} exchanges or once older than
 * {@code maxConnectionDuration} when set (between two exchanges, never during one), and leave the pool when idle for
 * {@code idleTimeout} or when the server closes them. Which available connection a request takes is the
 * {@link ConnectionPoolKind} ({@link Builder#connectionPool}); {@link #preCreateConnections} opens connections ahead of
 * the first requests. A request sent on a pooled connection that the
 * server had closed meanwhile is retried once on a new connection if it is idempotent with a replayable body, or if
 * nothing of it was sent.
 *
 * <p><b>Statistics</b> per destination (queued, active, idle, pending connections and totals): {@link #statistics()},
 * {@link #toString()}, and MXBeans with {@link Builder#jmx(boolean)}.
 *
 * <p><b>Timeouts</b> fail the request with a {@link SocketTimeoutException}: connect, idle (no byte either way on a
 * connection carrying the exchange; a request may set its own, {@link HttpRequest.Builder#idleTimeout(Duration)},
 * which over HTTP/2 applies to its stream alone) and request (the whole exchange, from send to the end of the
 * content).
 *
 * <p><b>Threads.</b> One platform thread per selector; virtual threads write requests and complete futures; a timer
 * thread. No selector thread ever blocks (no application code runs on one).
 *
 * <p><b>Redirects</b> are followed (at most {@link Builder#maxRedirects(int) 8} in a row, never from {@code https} to
 * {@code http}, with the method rules of RFC 9110 §15.4), unless a request turns it off. <b>gzip</b> content is
 * decoded for the application unless it sets {@code Accept-Encoding} itself ({@link Builder#contentDecoding}).
 *
 * <p><b>TLS.</b> {@code https} origins are reached over TLS 1.3 or 1.2 with the JDK's {@code SSLEngine}, on the same
 * TLS layer as the server, with the host name checked against the certificate; see
 * {@link Builder#sslContext(SSLContext)}.
 *
 * <p><b>HTTP/2</b> ({@link Builder#http2(boolean)}): h2c by prior knowledge (or by the HTTP/1.1 upgrade,
 * {@link Builder#h2cUpgrade(boolean)}), or h2 chosen by ALPN over TLS. Each
 * connection carries up to the server's SETTINGS_MAX_CONCURRENT_STREAMS requests at once (at most
 * {@link Builder#maxStreamsPerConnection(int)}); requests beyond wait in the queue for a stream. Each response's content
 * is credited back to the server as the application reads it, so a slow reader slows only its own stream.
 *
 * <p><b>Proxy</b> ({@link Builder#proxy(HttpProxy)}): {@code https} requests through a {@code CONNECT} tunnel,
 * {@code http} requests forwarded in absolute-form. <b>Cookies</b> are kept only in a store the application gives
 * ({@link Builder#cookieStore(CookieStore)}). <b>{@code Expect: 100-continue}</b>
 * ({@link HttpRequest.Builder#expectContinue(boolean)}) holds a request's body back until the server asks for it.
 *
 * <p>Thread-safety: immutable configuration; all methods may be called from any thread.
 */
public final class HttpClient implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(HttpClient.class.getName());
    private static final int DEFAULT_MAX_REDIRECTS = 8;

    private final Builder config;
    private final ThreadPool threads;
    private final HashedWheelTimer timer;
    private final SelectorManager selectors;
    private final ExecutorService executor;
    private final ByteBufferPool bufferPool;
    private final HttpParserConfig parserConfig;
    private final ClientTls tls;
    private final ConcurrentMap<Origin, Destination> destinations = new ConcurrentHashMap<>();
    private final Cookies cookies; // null without a store: no cookie handling at all
    /** Null unless {@link Builder#jmx(boolean)}. */
    private final ClientMBeans mbeans;

    private volatile boolean closed;

    private HttpClient(Builder builder) {
        this.config = builder.copy();
        this.cookies = builder.cookieStore != null ? new Cookies(builder.cookieStore) : null;
        this.tls = ClientTls.of(builder.sslContext, builder.verifyHostnames, builder.http2);
        this.bufferPool = builder.bufferPool != null ? builder.bufferPool : new BucketedByteBufferPool();
        this.parserConfig = HttpParserConfig.builder()
                .maxHeaderSize(builder.maxResponseHeaderSize)
                .maxRequestLineLength(builder.maxResponseHeaderSize)
                .build();
        this.threads = ThreadPool.builder()
                .name(builder.name)
                .minThreads(builder.selectors)
                .maxThreads(builder.selectors + 2)
                .daemon(true)
                .build();
        this.timer = HashedWheelTimer.builder().name(builder.name + "-timer").build();
        this.selectors = SelectorManager.create(builder.name, builder.selectors, threads, IdleTimeouts.of(timer));
        this.executor = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name(builder.name + "-", 0).factory());
        this.mbeans = builder.jmx ? new ClientMBeans(this, builder.name) : null;
        try {
            threads.start();
            timer.start();
            selectors.start();
            if (mbeans != null) {
                mbeans.registerClient();
            }
        } catch (IOException x) {
            close();
            throw new UncheckedIOException("cannot start the client's selectors", x);
        } catch (RuntimeException x) {
            close();
            throw x;
        }
    }

    /** @return a builder with the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a client with the defaults */
    public static HttpClient newClient() {
        return builder().build();
    }

    /**
     * Sends a request and waits for the head of its response, following redirects (see
     * {@link Builder#maxRedirects(int)}).
     *
     * @param request the request
     * @return the response; read its content or close it
     * @throws IOException if the request fails: {@link SocketTimeoutException} on a timeout,
     *     {@link BadResponseException} on an invalid response, {@link java.net.ConnectException} when the server cannot
     *     be reached
     * @throws java.util.concurrent.RejectedExecutionException if the destination's queue is full
     * @throws InterruptedException if interrupted while waiting (the exchange is then aborted)
     */
    public HttpResponse send(HttpRequest request) throws IOException, InterruptedException {
        HttpRequest current = request;
        for (int followed = 0; ; followed++) {
            HttpResponse response = sendOne(current);
            Optional<HttpRequest> next = followOrClose(response, followed);
            if (next.isEmpty()) {
                return response;
            }
            Redirects.discard(response);
            current = next.get();
        }
    }

    private HttpResponse sendOne(HttpRequest request) throws IOException, InterruptedException {
        Exchange exchange = start(request);
        try {
            return exchange.future.get();
        } catch (InterruptedException x) {
            exchange.abort(new InterruptedIOException("interrupted waiting for the response"));
            throw x;
        } catch (ExecutionException x) {
            Throwable cause = x.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IOException(cause);
        }
    }

    /** @return the request following a redirect, or empty; closes the response if following it fails */
    private Optional<HttpRequest> followOrClose(HttpResponse response, int followed) throws IOException {
        try {
            int max = config.maxRedirects > 0 ? config.maxRedirects : DEFAULT_MAX_REDIRECTS;
            return Redirects.next(response, followed, max, config.maxRedirects > 0);
        } catch (IOException x) {
            response.close();
            throw x;
        }
    }

    /**
     * Sends a request without waiting.
     *
     * @param request the request
     * @return a future completed with the response once its head arrived (on a virtual thread of the client), or
     *     failed like {@link #send}; cancelling it aborts the exchange
     */
    public CompletableFuture<HttpResponse> sendAsync(HttpRequest request) {
        if (!request.followsRedirects(config.maxRedirects > 0)) {
            Exchange exchange = start(request);
            exchange.future.whenComplete((response, failure) -> {
                if (failure instanceof CancellationException) {
                    exchange.abort(new IOException("the request was cancelled"));
                }
            });
            return exchange.future;
        }
        CompletableFuture<HttpResponse> result = new CompletableFuture<>();
        AtomicReference<Exchange> current = new AtomicReference<>();
        result.whenComplete((response, failure) -> {
            Exchange exchange = current.get();
            if (failure instanceof CancellationException && exchange != null) {
                exchange.abort(new IOException("the request was cancelled"));
            }
        });
        sendFollowing(request, 0, result, current);
        return result;
    }

    private void sendFollowing(
            HttpRequest request,
            int followed,
            CompletableFuture<HttpResponse> result,
            AtomicReference<Exchange> current) {
        Exchange exchange = start(request);
        current.set(exchange);
        if (result.isDone()) {
            exchange.abort(new IOException("the request was cancelled"));
            return;
        }
        // Completed on a virtual thread of the client: reading a redirect's content there may block.
        exchange.future.whenComplete((response, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
                return;
            }
            Optional<HttpRequest> next;
            try {
                next = followOrClose(response, followed);
            } catch (IOException x) {
                result.completeExceptionally(x);
                return;
            }
            if (next.isEmpty()) {
                if (!result.complete(response)) {
                    response.close(); // cancelled meanwhile
                }
                return;
            }
            Redirects.discard(response);
            sendFollowing(next.get(), followed + 1, result, current);
        });
    }

    private Exchange start(HttpRequest request) {
        Objects.requireNonNull(request, "request");
        Exchange exchange = new Exchange(request, executor, cookies);
        if (closed) {
            exchange.fail(new IOException("the client is closed"));
            return exchange;
        }
        if (cookies != null) {
            exchange.cookie(cookies.header(request));
        }
        // One destination per origin: the proxy (or none) is a function of the origin, the client having one proxy.
        Destination destination = destination(request.origin());
        long millis = request.timeout().map(Duration::toMillis).orElse(config.requestTimeout.toMillis());
        if (millis > 0) {
            exchange.timeout(timer.schedule(
                    () -> exchange.abort(
                            new SocketTimeoutException("request " + request + " timed out after " + millis + " ms")),
                    millis,
                    TimeUnit.MILLISECONDS));
        }
        destination.send(exchange);
        return exchange;
    }

    /**
     * Opens connections to an origin ahead of its requests, so that the first requests find them open (as Jetty's
     * {@code ConnectionPool.preCreateConnections}). Connections count against
     * {@link Builder#maxConnectionsPerDestination(int)}, connecting ones and those already open included: asking for
     * more opens only up to that limit. They then live as any pooled connection (idle timeout, max duration).
     *
     * @param uri any URI of the origin ({@code http} or {@code https}, host and port); its path is ignored
     * @param count how many connections to open, at least 1
     * @return a future completed once every connection opened (an HTTP/2 one once the server's SETTINGS arrived), or
     *     failed with the first connect failure
     * @throws IllegalArgumentException if {@code count < 1} or the URI has no supported scheme or no host
     */
    public CompletableFuture<Void> preCreateConnections(URI uri, int count) {
        Objects.requireNonNull(uri, "uri");
        if (count < 1) {
            throw new IllegalArgumentException("count must be >= 1, was " + count);
        }
        if (closed) {
            return CompletableFuture.failedFuture(new IOException("the client is closed"));
        }
        return destination(Origin.of(uri)).preCreate(count);
    }

    /** @return the destination of an origin, created (and registered on JMX, if asked) on first use */
    private Destination destination(Origin origin) {
        Destination destination = destinations.get(origin);
        if (destination != null) {
            return destination;
        }
        Destination created = new Destination(origin, this);
        destination = destinations.putIfAbsent(origin, created);
        if (destination != null) {
            return destination; // another thread created it first; ours never served and holds nothing
        }
        if (mbeans != null) {
            mbeans.registerDestination(created);
        }
        return created;
    }

    /** @return a snapshot of every destination's queue and pool */
    public List<DestinationStatistics> statistics() {
        List<DestinationStatistics> all = new ArrayList<>();
        for (Destination destination : destinations.values()) {
            all.add(destination.statistics());
        }
        return all;
    }

    /**
     * @param origin an origin
     * @return a snapshot of its destination, if the client sent a request there
     */
    public Optional<DestinationStatistics> statistics(Origin origin) {
        return Optional.ofNullable(destinations.get(origin)).map(Destination::statistics);
    }

    /** Closes every connection, fails queued and in-flight requests, and stops the client's threads. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (mbeans != null) {
            mbeans.unregisterAll();
        }
        for (Destination destination : destinations.values()) {
            destination.stop();
        }
        try {
            selectors.stop();
            timer.stop();
            threads.stop();
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        } catch (Exception x) {
            LOG.log(Level.WARNING, "stopping the client failed", x);
        }
        executor.shutdown();
    }

    // --- for the internals
    // ---------------------------------------------------------------------------------------------

    SelectorManager selectors() {
        return selectors;
    }

    HashedWheelTimer timer() {
        return timer;
    }

    ExecutorService executor() {
        return executor;
    }

    ByteBufferPool bufferPool() {
        return bufferPool;
    }

    ClientTls tls() {
        return tls;
    }

    HttpParserConfig parserConfig() {
        return parserConfig;
    }

    int maxConnectionsPerDestination() {
        return config.maxConnectionsPerDestination;
    }

    int maxQueuedPerDestination() {
        return config.maxQueuedRequestsPerDestination;
    }

    int maxUsagePerConnection() {
        return config.maxUsagePerConnection;
    }

    int threadLocalCacheSize() {
        return config.threadLocalCacheSize;
    }

    String name() {
        return config.name;
    }

    ConnectionPoolKind connectionPoolKind() {
        return config.connectionPoolKind;
    }

    long maxConnectionDurationNanos() {
        return config.maxConnectionDuration.toNanos();
    }

    long connectTimeoutMillis() {
        return config.connectTimeout.toMillis();
    }

    long idleTimeoutMillis() {
        return config.idleTimeout.toMillis();
    }

    int networkBufferSize() {
        return config.bufferSize;
    }

    String userAgent() {
        return config.userAgent;
    }

    /** @return the Unix-domain socket every connection goes to, or null for TCP to each origin */
    Path unixDomainSocket() {
        return config.unixSocket;
    }

    boolean http2() {
        return config.http2;
    }

    boolean h2cUpgrade() {
        return config.h2cUpgrade;
    }

    int maxStreamsPerConnection() {
        return config.maxStreamsPerConnection;
    }

    int maxResponseHeaderSize() {
        return config.maxResponseHeaderSize;
    }

    boolean decodesContent() {
        return config.contentDecoding;
    }

    /** @return the proxy that requests to {@code origin} go through, or null to go there directly */
    HttpProxy proxyFor(Origin origin) {
        HttpProxy proxy = config.proxy;
        return proxy != null && proxy.appliesTo(origin) ? proxy : null;
    }

    long continueTimeoutMillis() {
        return config.continueTimeout.toMillis();
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("HttpClient@")
                .append(Integer.toHexString(hashCode()))
                .append('{');
        out.append(config.name)
                .append(closed ? ", CLOSED" : "")
                .append(", maxConnectionsPerDestination=")
                .append(config.maxConnectionsPerDestination)
                .append(", maxQueuedRequestsPerDestination=")
                .append(config.maxQueuedRequestsPerDestination)
                .append(", maxUsagePerConnection=")
                .append(config.maxUsagePerConnection)
                .append(", connectionPool=")
                .append(config.connectionPoolKind)
                .append(config.threadLocalCacheSize > 0 ? ", threadLocalCache=" + config.threadLocalCacheSize : "")
                .append(
                        config.maxConnectionDuration.isZero()
                                ? ""
                                : ", maxConnectionDuration=" + config.maxConnectionDuration)
                .append(", connectTimeout=")
                .append(config.connectTimeout)
                .append(", idleTimeout=")
                .append(config.idleTimeout)
                .append(", requestTimeout=")
                .append(config.requestTimeout)
                .append(config.unixSocket == null ? "" : ", unixDomainSocket=" + config.unixSocket)
                .append(config.http2 ? ", http2, maxStreamsPerConnection=" + config.maxStreamsPerConnection : "")
                .append(config.http2 && config.h2cUpgrade ? ", h2cUpgrade" : "")
                .append(config.proxy == null ? "" : ", proxy=" + config.proxy)
                .append(cookies == null ? "" : ", cookies")
                .append(mbeans != null ? ", jmx" : "")
                .append(", destinations=")
                .append(destinations.values())
                .append('}');
        return out.toString();
    }

    /** Configures an {@link HttpClient}; not thread-safe. Every setting has a default. */
    public static final class Builder {
        private String name = "quarry-client";
        private int selectors = 1;
        private int maxConnectionsPerDestination = 64;
        private int maxQueuedRequestsPerDestination = 1024;
        private int maxUsagePerConnection;
        private int threadLocalCacheSize;
        private ConnectionPoolKind connectionPoolKind = ConnectionPoolKind.FIRST;
        private Duration maxConnectionDuration = Duration.ZERO;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration idleTimeout = Duration.ofSeconds(30);
        private Duration requestTimeout = Duration.ZERO;
        private int bufferSize = 32 * 1024;
        private int maxResponseHeaderSize = 16 * 1024;
        private String userAgent = "Quarry";
        private ByteBufferPool bufferPool;
        private SSLContext sslContext;
        private boolean verifyHostnames = true;
        private boolean contentDecoding = true;
        private int maxRedirects = DEFAULT_MAX_REDIRECTS;
        private Path unixSocket;
        private boolean http2;
        private boolean h2cUpgrade;
        private int maxStreamsPerConnection = 128;
        private HttpProxy proxy;
        private CookieStore cookieStore;
        private Duration continueTimeout = Duration.ofSeconds(1);
        private boolean jmx;

        private Builder() {}

        private Builder copy() {
            Builder copy = new Builder();
            copy.name = name;
            copy.selectors = selectors;
            copy.maxConnectionsPerDestination = maxConnectionsPerDestination;
            copy.maxQueuedRequestsPerDestination = maxQueuedRequestsPerDestination;
            copy.maxUsagePerConnection = maxUsagePerConnection;
            copy.threadLocalCacheSize = threadLocalCacheSize;
            copy.connectionPoolKind = connectionPoolKind;
            copy.maxConnectionDuration = maxConnectionDuration;
            copy.connectTimeout = connectTimeout;
            copy.idleTimeout = idleTimeout;
            copy.requestTimeout = requestTimeout;
            copy.bufferSize = bufferSize;
            copy.maxResponseHeaderSize = maxResponseHeaderSize;
            copy.userAgent = userAgent;
            copy.bufferPool = bufferPool;
            copy.sslContext = sslContext;
            copy.verifyHostnames = verifyHostnames;
            copy.contentDecoding = contentDecoding;
            copy.maxRedirects = maxRedirects;
            copy.unixSocket = unixSocket;
            copy.http2 = http2;
            copy.h2cUpgrade = h2cUpgrade;
            copy.maxStreamsPerConnection = maxStreamsPerConnection;
            copy.proxy = proxy;
            copy.cookieStore = cookieStore;
            copy.continueTimeout = continueTimeout;
            copy.jmx = jmx;
            return copy;
        }

        /** @param name names the client's threads (default {@code quarry-client}) */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** @param selectors how many selector threads (default 1) */
        public Builder selectors(int selectors) {
            this.selectors = atLeast(1, selectors, "selectors");
            return this;
        }

        /**
         * @param max the most pooled connections per origin (default 64). An HTTP/2 connection the server told to go
         *     away (GOAWAY) leaves the pool at once, since no new stream may use it, and finishes its open streams
         *     outside the count, as Jetty's client does: until the server closes it, a replacement may be open beside it
         */
        public Builder maxConnectionsPerDestination(int max) {
            this.maxConnectionsPerDestination = atLeast(1, max, "maxConnectionsPerDestination");
            return this;
        }

        /** @param max the most requests waiting for a connection per origin (default 1024); beyond, sends fail */
        public Builder maxQueuedRequestsPerDestination(int max) {
            this.maxQueuedRequestsPerDestination = atLeast(1, max, "maxQueuedRequestsPerDestination");
            return this;
        }

        /** @param max how many exchanges a connection carries before it is closed; 0 for no limit (default) */
        public Builder maxUsagePerConnection(int max) {
            this.maxUsagePerConnection = atLeast(0, max, "maxUsagePerConnection");
            return this;
        }

        /**
         * @param size how many connections each thread remembers and tries first (quarry-core's pool cache); 0 turns
         *     the cache off (default)
         */
        public Builder threadLocalCache(int size) {
            this.threadLocalCacheSize = atLeast(0, size, "threadLocalCache");
            return this;
        }

        /**
         * @param kind which available connection of a destination a request takes (default
         *     {@link ConnectionPoolKind#FIRST}); HTTP/2 connections are multiplexed whatever the kind
         * @return this builder
         */
        public Builder connectionPool(ConnectionPoolKind kind) {
            this.connectionPoolKind = Objects.requireNonNull(kind, "kind");
            return this;
        }

        /**
         * @param duration the age past which a connection is not reused: an idle one is closed when it reaches it,
         *     one carrying exchanges when they end (never in the middle of one); zero for no limit (default). For
         *     following DNS changes or spreading load over servers that come and go behind one name
         * @return this builder
         */
        public Builder maxConnectionDuration(Duration duration) {
            this.maxConnectionDuration = notNegative(duration, "maxConnectionDuration");
            return this;
        }

        /** @param timeout the most time a connect may take; zero for none (default 10 s) */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = notNegative(timeout, "connectTimeout");
            return this;
        }

        /**
         * @param timeout how long a connection may see no byte either way: an idle pooled connection is then closed,
         *     and an exchange on it fails; zero for none (default 30 s). A request may have its own instead
         *     ({@link HttpRequest.Builder#idleTimeout(Duration)})
         */
        public Builder idleTimeout(Duration timeout) {
            this.idleTimeout = notNegative(timeout, "idleTimeout");
            return this;
        }

        /** @param timeout the default for the whole exchange of requests without their own; zero for none (default) */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = notNegative(timeout, "requestTimeout");
            return this;
        }

        /** @param bytes the size of each connection's network buffer (default 32 KiB) */
        public Builder bufferSize(int bytes) {
            this.bufferSize = atLeast(1024, bytes, "bufferSize");
            return this;
        }

        /** @param bytes the largest response head (status line and fields) accepted (default 16 KiB) */
        public Builder maxResponseHeaderSize(int bytes) {
            this.maxResponseHeaderSize = atLeast(256, bytes, "maxResponseHeaderSize");
            return this;
        }

        /** @param userAgent the User-Agent of requests without one; empty for none (default {@code Quarry}) */
        public Builder userAgent(String userAgent) {
            this.userAgent = Objects.requireNonNull(userAgent, "userAgent");
            return this;
        }

        /** @param pool where network buffers come from (default: a pool of the client's own) */
        public Builder bufferPool(ByteBufferPool pool) {
            this.bufferPool = Objects.requireNonNull(pool, "pool");
            return this;
        }

        /**
         * @param context the TLS context of {@code https} requests: its trust managers decide which server
         *     certificates are accepted, its key managers which client certificate is offered (default: the JDK's
         *     default context, which trusts the JDK's CA certificates)
         * @return this builder
         */
        public Builder sslContext(SSLContext context) {
            this.sslContext = Objects.requireNonNull(context, "context");
            return this;
        }

        /**
         * @param verify whether an {@code https} server's certificate must name the host of the request (default
         *     true); turn it off only for tests or hosts known by address
         * @return this builder
         */
        public Builder verifyHostnames(boolean verify) {
            this.verifyHostnames = verify;
            return this;
        }

        /**
         * @param decode whether requests without an {@code Accept-Encoding} of their own offer {@code gzip} and their
         *     gzip responses reach the application decoded, without {@code Content-Encoding} and
         *     {@code Content-Length} (default true, as in browsers and OkHttp); a request that sets
         *     {@code Accept-Encoding} always gets the content as sent
         * @return this builder
         */
        public Builder contentDecoding(boolean decode) {
            this.contentDecoding = decode;
            return this;
        }

        /**
         * @param max how many redirects in a row a request follows (default 8); 0 follows none unless a request asks
         *     for it ({@link HttpRequest.Builder#followRedirects(boolean)}, then with a limit of 8)
         * @return this builder
         */
        public Builder maxRedirects(int max) {
            this.maxRedirects = atLeast(0, max, "maxRedirects");
            return this;
        }

        /**
         * @param path a Unix-domain socket that every connection goes to, whatever the host and port of the request
         *     (which still make its {@code Host} and its destination), as {@code curl --unix-socket} does: for
         *     talking to {@code quarry serve --unix PATH} or a server behind a local proxy
         * @return this builder
         */
        public Builder unixDomainSocket(Path path) {
            this.unixSocket = Objects.requireNonNull(path, "path");
            return this;
        }

        /**
         * @param enabled whether the client speaks HTTP/2 (off by default): to {@code http} origins as h2c by prior
         *     knowledge (RFC 9113 3.3: the server must speak HTTP/2 on that port, as Quarry's HTTP/1.1 connectors do),
         *     to {@code https} origins when the server chooses {@code h2} by ALPN, HTTP/1.1 otherwise
         * @return this builder
         */
        public Builder http2(boolean enabled) {
            this.http2 = enabled;
            return this;
        }

        /**
         * @param enabled with {@link #http2(boolean)}, whether {@code http} origins are reached by the HTTP/1.1
         *     upgrade (RFC 7540 3.2: the first request of each connection, if it has no body, offers
         *     {@code Upgrade: h2c}, and the connection speaks HTTP/2 from the server's 101 on, or stays HTTP/1.1)
         *     instead of by prior knowledge; off by default
         * @return this builder
         */
        public Builder h2cUpgrade(boolean enabled) {
            this.h2cUpgrade = enabled;
            return this;
        }

        /**
         * @param max the most requests in flight on one HTTP/2 connection (default 128); the server's
         *     SETTINGS_MAX_CONCURRENT_STREAMS lowers it. Requests beyond wait in the destination's queue for a stream,
         *     they never fail for want of one
         * @return this builder
         */
        public Builder maxStreamsPerConnection(int max) {
            this.maxStreamsPerConnection = atLeast(1, max, "maxStreamsPerConnection");
            return this;
        }

        /**
         * @param proxy the HTTP proxy that requests go through (default none): {@code https} requests through a
         *     {@code CONNECT} tunnel (TLS end to end with the origin; a non-2xx answer fails the request with a
         *     {@link ProxyConnectException}), {@code http} requests in absolute-form, forwarded by the proxy (over
         *     HTTP/1.1: h2c does not go through a proxy). Hosts it {@linkplain HttpProxy#bypass bypasses} are reached
         *     directly
         * @return this builder
         */
        public Builder proxy(HttpProxy proxy) {
            this.proxy = Objects.requireNonNull(proxy, "proxy");
            return this;
        }

        /**
         * @param host the proxy's host
         * @param port the proxy's port
         * @return this builder, with {@link #proxy(HttpProxy) proxy(HttpProxy.of(host, port))}
         */
        public Builder proxy(String host, int port) {
            return proxy(HttpProxy.of(host, port));
        }

        /**
         * @param store where cookies are kept (default none: the client then neither stores nor sends cookies, at no
         *     cost). {@code Set-Cookie} fields of every response, redirects included, are stored, and each request
         *     sends the cookies that match its URI, as the JDK's {@link java.net.CookieManager} decides them (domain,
         *     path, {@code Secure} only over https, expiry; cookies for other hosts than the one that set them are
         *     refused); they are added to the request's own {@code Cookie} field, if it has one. The store may be
         *     shared by several clients; {@code new java.net.CookieManager().getCookieStore()} makes one in memory
         * @return this builder
         */
        public Builder cookieStore(CookieStore store) {
            this.cookieStore = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * @param timeout how long a request with {@code Expect: 100-continue} waits for the server's
         *     {@code 100 Continue} before sending its body anyway, as curl does (default 1 s); must be positive
         * @return this builder
         */
        public Builder continueTimeout(Duration timeout) {
            this.continueTimeout = notNegative(timeout, "continueTimeout");
            if (timeout.isZero()) {
                throw new IllegalArgumentException("continueTimeout must be positive");
            }
            return this;
        }

        /**
         * @param enabled whether the client registers MXBeans with the platform MBean server (off by default): an
         *     {@link HttpClientMXBean} ({@code dev.quarry:type=HttpClient,client=NAME,id=ID}) when built, a
         *     {@link DestinationMXBean} per destination when first used, all unregistered when the client closes
         * @return this builder
         */
        public Builder jmx(boolean enabled) {
            this.jmx = enabled;
            return this;
        }

        /** @return a started client; close it when done */
        public HttpClient build() {
            if (unixSocket != null && proxy != null) {
                throw new IllegalStateException("a client goes either to a Unix-domain socket or through a proxy, not"
                        + " both: " + unixSocket + ", proxy " + proxy);
            }
            return new HttpClient(this);
        }

        private static int atLeast(int min, int value, String name) {
            if (value < min) {
                throw new IllegalArgumentException(name + " must be >= " + min + ", was " + value);
            }
            return value;
        }

        private static Duration notNegative(Duration value, String name) {
            Objects.requireNonNull(value, name);
            if (value.isNegative()) {
                throw new IllegalArgumentException(name + " must not be negative: " + value);
            }
            return value;
        }
    }
}
