package dev.quarry.server;

import dev.quarry.core.Dumpable;
import dev.quarry.core.buffer.BucketedByteBufferPool;
import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.thread.BoundedVirtualThreadExecutor;
import dev.quarry.core.thread.ThreadPool;
import dev.quarry.core.thread.TryExecutor;
import dev.quarry.core.thread.VirtualProducerThreads;
import dev.quarry.core.timer.HashedWheelTimer;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.PreEncodedHttpField;
import dev.quarry.io.ConnectionFactory;
import dev.quarry.io.IdleTimeouts;
import dev.quarry.io.ProxyConnectionFactory;
import dev.quarry.io.ServerConnector;
import dev.quarry.io.TlsConnectionFactory;
import dev.quarry.server.internal.DateField;
import dev.quarry.server.internal.ErrorPages;
import dev.quarry.server.internal.ExchangePool;
import dev.quarry.server.internal.HandlerInvoker;
import dev.quarry.server.internal.ServerContext;
import dev.quarry.server.internal.h1.Http1ConnectionFactory;
import dev.quarry.server.internal.h2.Http2ConnectionFactory;
import dev.quarry.server.internal.h2.Http2ContentBudget;
import dev.quarry.server.internal.h2.Http2OnlyConnectionFactory;
import dev.quarry.server.internal.tls.CertificateReloader;
import dev.quarry.server.internal.tls.LoadedCertificates;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An embeddable HTTP server: connectors (TCP or Unix-domain) speaking HTTP/1.1 and h2c, a root handler or routes,
 * a platform thread pool for selectors, and bounded virtual threads for blocking handlers.
 *
 * <pre>{@code
 * Server server = Server.builder()
 *         .http(8080)
 *         .route("GET /hello/{name}", (req, res) -> res.send("Hello " + req.pathParam("name")))
 *         .build()
 *         .start();     // logs: Started http/1.1 (h2c) on 0.0.0.0:8080 — http://localhost:8080/
 * }</pre>
 *
 * <p>{@link #stop()} is graceful: connectors stop accepting, in-flight exchanges get the shutdown timeout to finish
 * (idle connections close at once, busy ones answer with {@code Connection: close}), then everything left is closed.
 *
 * <p>Thread-safety: start and stop from one thread; accessors from any.
 */
public final class Server implements Dumpable {
    private static final System.Logger LOG = System.getLogger(Server.class.getName());
    /** The most of the shutdown deadline kept for stopping threads (a twentieth of it below 10 s). */
    private static final long THREADS_RESERVE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final ServerConfig config;
    private final ReentrantLock lock = new ReentrantLock();
    private final List<ServerConnector> connectors = new ArrayList<>();
    // The certificate reloaders of the HTTPS connectors, by connector index; written by start and stop only.
    private final Map<Integer, CertificateReloader> reloaders = new java.util.concurrent.ConcurrentHashMap<>();
    // The bound port of the first HTTPS connector, where redirects send clients; 0 until it is started.
    private volatile int httpsPort;
    // Whether start() succeeded once: a restart reads certificate files again. Guarded by the lock.
    private boolean startedBefore;
    private final ServerStatistics statistics = new ServerStatistics();
    private final Http2ContentBudget http2Budget;
    private final AsyncHandler handler;
    private final AsyncHandler routing;
    private final HashedWheelTimer timer;
    private final ThreadPool threadPool;
    private final ByteBufferPool buffers;
    private final DateField dateField;
    private volatile BoundedVirtualThreadExecutor virtualThreads;
    private volatile HandlerInvoker invoker;
    private final List<javax.management.ObjectName> mbeans = new ArrayList<>();
    private volatile boolean running;
    private volatile long startedNanos;

    Server(ServerConfig config) {
        this.config = config;
        this.routing = rootHandler(config);
        // The access log outermost, whatever the order of the builder's calls: it sees what the filters answer too.
        this.handler = config.accessLog()
                .map(log -> Filter.around(log.filter(), routing))
                .orElse(routing);
        this.timer = HashedWheelTimer.builder().name(config.name() + "-timer").build();
        this.http2Budget = new Http2ContentBudget(config.http2Config().maxHeldContent());
        // Platform selectors each hold a pool thread for their life; virtual ones hold none.
        int selectorThreads = config.virtualSelectors()
                ? 0
                : config.selectors() * config.listeners().size();
        this.threadPool = ThreadPool.builder()
                .name(config.name())
                .minThreads(Math.max(config.minThreads(), selectorThreads))
                .maxThreads(Math.max(config.maxThreads(), selectorThreads + 1))
                .reservedThreads(config.reservedThreads())
                .build();
        this.buffers = config.buffers().orElseGet(BucketedByteBufferPool::new);
        this.dateField = new DateField(timer);
    }

    /**
     * The root handler of a snapshot: a fresh router for the routes, the status page and the filters, whose fallback
     * is the handler; the handler alone when there is nothing else (no router on the way of every request).
     */
    private AsyncHandler rootHandler(ServerConfig config) {
        if (config.routes().isEmpty()
                && config.statusPath().isEmpty()
                && config.metricsPath().isEmpty()
                && config.filters().isEmpty()) {
            return config.handler().orElseThrow();
        }
        Router router = new Router();
        for (ServerBuilder.RouteSpec route : config.routes()) {
            router.route(route.spec(), route.handler());
        }
        config.statusPath().ifPresent(path -> {
            StatusHandler status = new StatusHandler(this::status);
            router.route("GET " + path, status);
            router.route("GET " + path + ".json", status);
        });
        config.metricsPath().ifPresent(path -> router.route("GET " + path, new MetricsHandler(this::metrics)));
        config.handler().ifPresent(router::fallback);
        for (ServerBuilder.FilterSpec filter : config.filters()) {
            if (filter.pathPattern().isPresent()) {
                router.filter(filter.pathPattern().get(), filter.filter());
            } else {
                router.filter(filter.filter());
            }
        }
        return router;
    }

    /** @return a builder */
    public static ServerBuilder builder() {
        return new ServerBuilder();
    }

    /**
     * Starts the threads, timer and connectors, and logs one line per connector with the URL to open, e.g.
     * {@code Started http/1.1 (h2c) on 0.0.0.0:8080 — http://localhost:8080/}, or
     * {@code Started http/1.1 (h2c) on unix:/run/quarry.sock} for a Unix-domain socket.
     *
     * @return this, started
     * @throws IOException if a connector cannot bind
     */
    public Server start() throws IOException {
        lock.lock();
        try {
            if (running) {
                return this;
            }
            doStart();
            startedBefore = true;
            startedNanos = System.nanoTime();
            running = true;
            if (config.jmx()) {
                registerMBeans();
            }
            return this;
        } catch (IOException | RuntimeException x) {
            stopQuietly(config.shutdownTimeout());
            throw x;
        } finally {
            lock.unlock();
        }
    }

    private void doStart() throws IOException {
        for (dev.quarry.core.LifeCycle component : config.managed()) {
            try {
                component.start();
            } catch (IOException | RuntimeException x) {
                throw x;
            } catch (Exception x) {
                throw new IOException("cannot start " + component + ": " + x.getMessage(), x);
            }
        }
        timer.start();
        threadPool.start();
        Executor blocking;
        if (config.virtualThreads()) {
            // A new one per start: a stopped executor refuses work for good.
            virtualThreads = new BoundedVirtualThreadExecutor(
                    config.name() + "-handler", config.maxConcurrentRequests(), config.maxQueuedRequests());
            blocking = virtualThreads;
        } else {
            blocking = threadPool;
        }
        invoker = new HandlerInvoker(
                blocking, config.virtualThreads(), config.maxConcurrentRequests() + config.maxQueuedRequests());
        freeze(routing);
        dateField.start();
        Optional<PreEncodedHttpField> serverField =
                config.httpConfig().serverName().map(name -> new PreEncodedHttpField(HttpHeader.SERVER, name));
        ServerContext context = new ServerContext(
                handler,
                invoker,
                config.httpConfig(),
                buffers,
                timer,
                dateField,
                serverField,
                statistics,
                Optional.empty(),
                threadPool,
                config.http2Config(),
                new ErrorPages(config.errorHandlers(), config.errorPages()),
                http2Budget,
                ExchangePool.forAvailableProcessors());
        List<ConnectionFactory> mixed = cleartext(context);
        List<ConnectionFactory> http2Only = List.of(new Http2OnlyConnectionFactory(context));
        // Over TLS, HTTP/2 is chosen by ALPN only: no h2c upgrade nor prior knowledge on an HTTP/1.1 connection.
        ServerContext secure = context.withHttp2(Optional.empty());
        Http1ConnectionFactory http1OverTls = new Http1ConnectionFactory(secure);
        // TLS handshakes (and wake-ups of non-blocking readers over TLS) run on virtual threads of their own, one per
        // step: not in the platform pool, where handlers blocked in their requests would otherwise hold up every new
        // HTTPS connection's handshake, and the HTTP/2 sessions that read the bodies those handlers wait for.
        ThreadFactory tlsThreadFactory =
                Thread.ofVirtual().name(config.name() + "-tls-", 0).factory();
        Executor tlsThreads = task -> tlsThreadFactory.newThread(task).start();
        // With redirectToHttps, clear-text TCP listeners answer every request with a redirect and run nothing else.
        List<ConnectionFactory> redirectMixed = List.of();
        List<ConnectionFactory> redirectHttp2Only = List.of();
        if (config.redirectToHttps()) {
            ServerContext redirecting = context.withHandler(redirectHandler());
            redirectMixed = cleartext(redirecting);
            redirectHttp2Only = List.of(new Http2OnlyConnectionFactory(redirecting));
        }
        // With blocking handlers on virtual threads, the selectors run on virtual threads too: they share the carriers
        // with the handlers instead of taking turns with them on a core (two context switches per select batch).
        TryExecutor selectorThreads = config.virtualSelectors()
                ? new VirtualProducerThreads(config.name() + "-selector", threadPool)
                : threadPool;
        int index = 0;
        for (ServerBuilder.ListenSpec listen : config.listeners()) {
            boolean redirect = config.redirectToHttps()
                    && listen.tls().isEmpty()
                    && listen.unix().isEmpty();
            List<ConnectionFactory> factories = redirect
                    ? (listen.http2Only() ? redirectHttp2Only : redirectMixed)
                    : (listen.http2Only() ? http2Only : mixed);
            TlsConnectionFactory tlsFactory = null;
            Optional<LoadedCertificates> certificates = Optional.empty();
            if (listen.tls().isPresent()) {
                TlsConfig tls = listen.tls().get();
                // Read at build time for the first start; a restart reads the files again, so that it serves what a
                // reload before the stop served, not what the files held when the server was built.
                certificates = startedBefore
                        ? tls.loaded().map(unused -> LoadedCertificates.load(tls.sources(), tls.requireSni()))
                        : tls.loaded();
                List<ConnectionFactory> alpn = tls.http2()
                        ? List.of(new Http2OnlyConnectionFactory(secure, "h2"), http1OverTls)
                        : List.of(http1OverTls);
                List<ConnectionFactory> chain = new ArrayList<>();
                tlsFactory = new TlsConnectionFactory(
                        certificates.map(LoadedCertificates::context).orElse(tls.sslContext()),
                        certificates.map(LoadedCertificates::sniMatchers).orElse(List.of()),
                        buffers,
                        threadPool,
                        tlsThreads,
                        alpn,
                        http1OverTls);
                chain.add(tlsFactory);
                chain.addAll(alpn);
                factories = chain;
            }
            if (listen.proxyProtocol()) {
                List<ConnectionFactory> chain = new ArrayList<>();
                chain.add(new ProxyConnectionFactory(factories.get(0), timer, threadPool));
                chain.addAll(factories);
                factories = chain;
            }
            int connectorIndex = index;
            ServerConnector.Config connectorConfig = new ServerConnector.Config(
                    config.name() + "-" + index++,
                    listen.host(),
                    listen.port(),
                    listen.unix(),
                    config.acceptQueueSize(),
                    config.acceptors(),
                    config.selectors(),
                    config.maxConnections(),
                    config.idleTimeout(),
                    factories);
            ServerConnector connector =
                    ServerConnector.create(connectorConfig, selectorThreads, IdleTimeouts.of(timer));
            connector.start();
            connectors.add(connector);
            if (tlsFactory != null && httpsPort == 0) {
                httpsPort = connector.localPort();
            }
            if (tlsFactory != null && certificates.isPresent()) {
                TlsConfig tls = listen.tls().get();
                CertificateReloader reloader = new CertificateReloader(
                        tls.sources(),
                        tls.requireSni(),
                        certificates.get(),
                        tlsFactory,
                        () -> describe(connector),
                        tls.watchInterval());
                reloader.start(timer);
                reloaders.put(connectorIndex, reloader);
            }
            LOG.log(
                    Level.INFO,
                    "Started " + describe(connector)
                            + url(connector).map(url -> " — " + url).orElse(""));
        }
    }

    /** The factories of a clear-text listener: HTTP/1.1, and h2c (upgrade or prior knowledge) if it is on. */
    private List<ConnectionFactory> cleartext(ServerContext context) {
        List<ConnectionFactory> factories = new ArrayList<>();
        if (config.h2c()) {
            context = context.withHttp2(Optional.of(new Http2ConnectionFactory(context)));
        }
        factories.add(new Http1ConnectionFactory(context));
        if (context.http2().isPresent()) {
            factories.add(protocolOnly("h2c"));
        }
        return factories;
    }

    /** The handler of redirecting listeners: the redirect, in the access log if there is one. */
    private AsyncHandler redirectHandler() {
        AsyncHandler redirect = new HttpsRedirect(this::httpsPort);
        return config.accessLog()
                .map(log -> Filter.around(log.filter(), redirect))
                .orElse(redirect);
    }

    /**
     * @return the port of the first HTTPS connector, where redirects send clients; before it is bound (a request that
     *     raced the start) the configured port, 0 if that is to be picked
     */
    private int httpsPort() {
        int bound = httpsPort;
        if (bound > 0) {
            return bound;
        }
        return config.listeners().stream()
                .filter(listen -> listen.tls().isPresent())
                .mapToInt(ServerBuilder.ListenSpec::port)
                .findFirst()
                .orElse(0);
    }

    /** @return whether the connector speaks TLS */
    static boolean isSecure(ServerConnector connector) {
        ConnectionFactory first = connector.config().connectionFactories().get(0);
        if (first instanceof ProxyConnectionFactory proxy) {
            first = proxy.next();
        }
        return first instanceof TlsConnectionFactory;
    }

    /** @return the connector's PROXY protocol factory, if it accepts the PROXY protocol */
    static Optional<ProxyConnectionFactory> proxyFactory(ServerConnector connector) {
        return connector.config().connectionFactories().get(0) instanceof ProxyConnectionFactory proxy
                ? Optional.of(proxy)
                : Optional.empty();
    }

    /**
     * @return what a connector serves, e.g. {@code http/1.1 (h2c) on 0.0.0.0:8080}, or {@code https (h2, http/1.1) on
     *     0.0.0.0:8443} for TLS, whose protocols in parentheses are those ALPN may choose
     */
    static String describe(ServerConnector connector) {
        String description = connector.describe();
        return isSecure(connector) ? "https" + description.substring("tls".length()) : description;
    }

    /**
     * The URL a person would open for a TCP connector: {@code http://localhost:8080/} for a wildcard bind, else the
     * bound address ({@code http://127.0.0.1:8080/}, {@code http://[::1]:8080/}); empty for a Unix socket, whose
     * path the connector's description names.
     */
    static Optional<String> url(ServerConnector connector) {
        if (connector.boundAddress().orElse(null) instanceof InetSocketAddress inet) {
            String host = inet.getAddress().isAnyLocalAddress()
                    ? "localhost"
                    : inet.getAddress().getHostAddress();
            if (host.contains(":")) {
                host = "[" + host + "]";
            }
            return Optional.of((isSecure(connector) ? "https://" : "http://") + host + ":" + inet.getPort() + "/");
        }
        return Optional.empty();
    }

    /** Fixes the routes and filters of the routers of the tree, and the invocation type they add up to. */
    private static void freeze(AsyncHandler root) {
        if (root instanceof Router router) {
            router.freeze();
        }
    }

    /** A factory that only names a protocol the first factory detects and switches to (h2c). */
    private static ConnectionFactory protocolOnly(String protocol) {
        return new ConnectionFactory() {
            @Override
            public String protocol() {
                return protocol;
            }

            @Override
            public dev.quarry.io.Connection newConnection(ServerConnector connector, dev.quarry.io.EndPoint endPoint) {
                throw new UnsupportedOperationException(protocol + " is reached through http/1.1 detection");
            }
        };
    }

    /**
     * Stops gracefully: stop accepting, let in-flight exchanges finish within the shutdown timeout, close the rest,
     * then stop threads and timer. The shutdown timeout bounds the whole call: connections still busy are cut a
     * twentieth of it (at most 500 ms) before the deadline, and the thread pool stops in what is left, interrupting
     * the handlers still running on it; one that ignores interrupts is logged and left behind.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    public void stop() throws InterruptedException {
        lock.lock();
        try {
            if (!running) {
                return;
            }
            running = false;
            long begin = System.nanoTime();
            long open = 0;
            for (ServerConnector connector : connectors) {
                connector.stopAccepting();
                open += connector.openConnections();
            }
            Duration timeout = config.shutdownTimeout();
            LOG.log(
                    Level.INFO,
                    "Stopping " + config.name() + ": draining " + open + " connection(s), at most " + timeout.toMillis()
                            + " ms");
            long deadline = begin + timeout.toNanos();
            // The last part of the deadline is kept for the threads: handlers still running when their connections are
            // cut get interrupted and a moment to exit, within the deadline rather than a stop timeout on top of it.
            long drainDeadline = deadline - Math.min(timeout.toNanos() / 20, THREADS_RESERVE_NANOS);
            int cut = 0;
            for (ServerConnector connector : connectors) {
                Duration left = Duration.ofNanos(Math.max(0, drainDeadline - System.nanoTime()));
                int cutHere = connector.shutdown(left);
                if (cutHere > 0) {
                    LOG.log(
                            Level.WARNING,
                            cutHere + " connection(s) still busy after " + timeout.toMillis() + " ms cut on "
                                    + connector.describe());
                }
                cut += cutHere;
            }
            HandlerInvoker handlers = invoker;
            int requestsCut = cut > 0 && handlers != null ? handlers.blockingInProgress() : 0;
            if (requestsCut > 0) {
                LOG.log(
                        Level.WARNING,
                        requestsCut + " request(s) still in their handlers when their connections were cut at the "
                                + timeout.toMillis() + " ms deadline");
            }
            unregisterMBeans();
            stopQuietly(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin);
            LOG.log(
                    Level.INFO,
                    "Stopped " + config.name() + " in " + millis + " ms"
                            + (cut == 0
                                    ? ", every connection drained"
                                    : ", " + cut + " connection(s) and " + requestsCut
                                            + " request(s) in handlers cut at the deadline"));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops the certificate reloaders, connectors, executors, components, threads and timer.
     *
     * @param threadsTimeout the most the thread pool may take to stop, interrupting what is left half-way
     */
    private void stopQuietly(Duration threadsTimeout) {
        reloaders.values().forEach(CertificateReloader::stop);
        reloaders.clear();
        httpsPort = 0;
        for (ServerConnector connector : connectors) {
            try {
                connector.stop();
            } catch (Exception x) {
                LOG.log(Level.WARNING, "stopping " + connector, x);
            }
        }
        connectors.clear();
        BoundedVirtualThreadExecutor handlers = virtualThreads;
        if (handlers != null) {
            handlers.stop(); // queued handlers never start once the server has stopped
        }
        for (dev.quarry.core.LifeCycle component : config.managed()) {
            try {
                component.stop();
            } catch (Exception x) {
                LOG.log(Level.WARNING, "stopping " + component, x);
            }
        }
        dateField.stop();
        try {
            int left = threadPool.stop(threadsTimeout);
            if (left > 0) {
                LOG.log(Level.WARNING, left + " thread(s) of " + config.name() + " still in a task, left behind");
            }
        } catch (Exception x) {
            LOG.log(Level.WARNING, "stopping " + threadPool, x);
        }
        timer.stop();
    }

    /** @return true between {@link #start()} and {@link #stop()} */
    public boolean isRunning() {
        return running;
    }

    /** @return the connectors, in the order they were configured */
    public List<ServerConnector> connectors() {
        return List.copyOf(connectors);
    }

    /** @return the TCP port of the first TCP connector (the chosen one when 0 was asked) */
    public int port() {
        for (ServerConnector connector : connectors) {
            if (connector.localPort() > 0) {
                return connector.localPort();
            }
        }
        throw new IllegalStateException("no TCP connector is started");
    }

    /**
     * @return {@code http://127.0.0.1:port/} ({@code https://} for TLS) for the first TCP connector (or its bound host)
     */
    public URI uri() {
        for (ServerConnector connector : connectors) {
            if (connector.boundAddress().orElse(null) instanceof InetSocketAddress inet) {
                String host = inet.getAddress().isAnyLocalAddress()
                        ? "127.0.0.1"
                        : inet.getAddress().getHostAddress();
                if (host.contains(":")) {
                    host = "[" + host + "]";
                }
                return URI.create((isSecure(connector) ? "https://" : "http://") + host + ":" + inet.getPort() + "/");
            }
        }
        throw new IllegalStateException("no TCP connector is started");
    }

    /**
     * Reads the certificate files of every HTTPS listener again and uses them for new handshakes: connections already
     * made keep theirs, and none is closed. A listener whose files cannot be used (unreadable, half written, a key
     * that does not match its certificate) keeps the certificates it has, and the exception says why, after the other
     * listeners were reloaded. Listeners given an {@code sslContext} of their own are left alone. The same operation
     * is on JMX ({@code type=Tls}); {@link TlsConfig.Builder#watch} does it when the files change.
     *
     * <p>Blocking: it reads files; call it from a thread that may block, never from a non-blocking handler.
     *
     * @throws IllegalArgumentException if a file holds no usable certificate or key
     * @throws java.io.UncheckedIOException if a file cannot be read
     * @throws IllegalStateException if the server is not running
     */
    public void reloadCertificates() {
        if (!running) {
            throw new IllegalStateException("the server is not running: its certificates are read when it starts");
        }
        RuntimeException failure = null;
        for (CertificateReloader reloader : List.copyOf(reloaders.values())) {
            try {
                reloader.reload();
            } catch (RuntimeException x) {
                if (failure == null) {
                    failure = x;
                } else {
                    failure.addSuppressed(x);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** @return the certificates of the HTTPS listeners read from files, in the order of the connectors */
    List<TlsCertificatesMXBean> tlsCertificates() {
        return new java.util.TreeMap<>(reloaders)
                .values().stream().map(TlsCertificatesMXBean.class::cast).toList();
    }

    /** @return the certificate reloaders of the HTTPS listeners read from files, by the name of their connector */
    Map<String, CertificateReloader> certificateReloaders() {
        Map<String, CertificateReloader> byConnector = new java.util.LinkedHashMap<>();
        List<ServerConnector> started = connectors();
        new java.util.TreeMap<>(reloaders).forEach((index, reloader) -> {
            if (index < started.size()) {
                byConnector.put(started.get(index).config().name(), reloader);
            }
        });
        return byConnector;
    }

    /** @return the platform thread pool */
    public ThreadPool threadPool() {
        return threadPool;
    }

    /** @return the virtual-thread executor of blocking handlers, if virtual threads are on */
    public Optional<BoundedVirtualThreadExecutor> virtualThreads() {
        return Optional.ofNullable(virtualThreads);
    }

    /** @return the buffer pool */
    public ByteBufferPool buffers() {
        return buffers;
    }

    /** @return the timer */
    public HashedWheelTimer timer() {
        return timer;
    }

    /** @return request counters */
    public ServerStatistics statistics() {
        return statistics;
    }

    /** @return the server-wide budget of unread HTTP/2 request content, with its figures (the status page's source) */
    Http2ContentBudget http2Budget() {
        return http2Budget;
    }

    /** @return requests answered 503 because blocking handlers were at their bound */
    public long rejectedRequests() {
        return invoker == null ? 0 : invoker.rejectedCount();
    }

    /** @return the root handler */
    public AsyncHandler handler() {
        return handler;
    }

    /**
     * A snapshot for the status page and {@code status.json}: the thread pool table of the Jetty blog's Loom articles,
     * virtual threads, execution-strategy mode counts, connectors, connections per protocol, requests and responses,
     * bytes in and out, buffers, the timer, and every {@link StatusContributor}; each section with its high-water marks
     * since start and its configured limits ({@link ServerStatus#HIGH_WATER_MARKS}, {@link ServerStatus#LIMITS}).
     *
     * @return the snapshot
     */
    public ServerStatus status() {
        return StatusReport.of(this, config);
    }

    /**
     * The same figures as {@link #status()} in the Prometheus text exposition format 0.0.4, as served by
     * {@link ServerBuilder#metrics(String)}: counters ({@code _total}), gauges, and the configured limits as
     * {@code quarry_limit_*} gauges.
     *
     * @return the exposition, one sample per line
     */
    public String metrics() {
        return PrometheusMetrics.of(this, config);
    }

    /** @return time since start, zero when stopped */
    Duration uptime() {
        return Duration.ofNanos(running ? System.nanoTime() - startedNanos : 0);
    }

    /** Registers the thread pool, the connectors and every MXBean given to the builder with the platform server. */
    private void registerMBeans() {
        javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        register(server, threadPool, "type=ThreadPool");
        int index = 0;
        for (ServerConnector connector : connectors) {
            CertificateReloader reloader = reloaders.get(index);
            if (reloader != null) {
                register(server, reloader, "type=Tls,index=" + index);
            }
            register(server, connector, "type=Connector,index=" + index++);
        }
        for (Map.Entry<String, Object> bean : config.mbeans().entrySet()) {
            register(server, bean.getValue(), bean.getKey());
        }
    }

    private void register(javax.management.MBeanServer server, Object bean, String properties) {
        try {
            javax.management.ObjectName name =
                    new javax.management.ObjectName("dev.quarry:server=" + quote(config.name()) + "," + properties);
            if (server.isRegistered(name)) {
                server.unregisterMBean(name);
            }
            server.registerMBean(bean, name);
            mbeans.add(name);
        } catch (javax.management.JMException x) {
            LOG.log(Level.WARNING, "cannot register MBean " + properties + " for " + bean, x);
        }
    }

    private static String quote(String value) {
        return value.matches("[A-Za-z0-9._-]+") ? value : javax.management.ObjectName.quote(value);
    }

    private void unregisterMBeans() {
        javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        for (javax.management.ObjectName name : mbeans) {
            try {
                server.unregisterMBean(name);
            } catch (javax.management.JMException x) {
                LOG.log(Level.DEBUG, "unregistering " + name, x);
            }
        }
        mbeans.clear();
    }

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        out.append(toString()).append(System.lineSeparator());
        for (ServerConnector connector : connectors) {
            out.append(indent).append("+- ");
            connector.dump(out, indent + "   ");
        }
        if (threadPool != null) {
            out.append(indent).append("+- ");
            threadPool.dump(out, indent + "   ");
        }
        if (virtualThreads != null) {
            out.append(indent).append("+- ");
            virtualThreads.dump(out, indent + "   ");
        }
        if (timer != null) {
            out.append(indent).append("+- ");
            timer.dump(out, indent + "   ");
        }
    }

    @Override
    public String toString() {
        return "Server{" + config.name() + (running ? ", running" : "") + ", virtualThreads=" + config.virtualThreads()
                + ", virtualSelectors=" + config.virtualSelectors() + ", threads=" + config.minThreads() + ".."
                + config.maxThreads() + ", selectors=" + config.selectors()
                + ", maxConcurrentRequests=" + config.maxConcurrentRequests() + ", maxQueuedRequests="
                + config.maxQueuedRequests() + ", idleTimeout=" + config.idleTimeout() + ", shutdownTimeout="
                + config.shutdownTimeout() + ", h2c=" + config.h2c() + ", handler=" + handler + "}";
    }
}
