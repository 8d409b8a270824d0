package dev.quarry.server;

import dev.quarry.core.Dumpable;
import dev.quarry.core.buffer.BucketedByteBufferPool;
import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.thread.BoundedVirtualThreadExecutor;
import dev.quarry.core.thread.ThreadPool;
import dev.quarry.core.timer.HashedWheelTimer;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.PreEncodedHttpField;
import dev.quarry.io.ConnectionFactory;
import dev.quarry.io.IdleTimeouts;
import dev.quarry.io.ServerConnector;
import dev.quarry.server.internal.DateField;
import dev.quarry.server.internal.HandlerInvoker;
import dev.quarry.server.internal.Http1ConnectionFactory;
import dev.quarry.server.internal.ServerContext;
import dev.quarry.server.internal.ServerStatistics;
import dev.quarry.server.internal.h2.Http2ConnectionFactory;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
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
 *         .start();     // logs: Started http/1.1 (h2c) on 0.0.0.0:8080
 * }</pre>
 *
 * <p>{@link #stop()} is graceful: connectors stop accepting, in-flight exchanges get the shutdown timeout to finish
 * (idle connections close at once, busy ones answer with {@code Connection: close}), then everything left is closed.
 *
 * <p>Thread-safety: start and stop from one thread; accessors from any.
 */
public final class Server implements Dumpable {
    private static final System.Logger LOG = System.getLogger(Server.class.getName());

    private final ServerBuilder config;
    private final ReentrantLock lock = new ReentrantLock();
    private final List<ServerConnector> connectors = new ArrayList<>();
    private final ServerStatistics statistics = new ServerStatistics();
    private final AsyncHandler handler;
    private HashedWheelTimer timer;
    private ThreadPool threadPool;
    private BoundedVirtualThreadExecutor virtualThreads;
    private ByteBufferPool buffers;
    private DateField dateField;
    private HandlerInvoker invoker;
    private volatile boolean running;

    Server(ServerBuilder config) {
        this.config = config;
        if (config.router != null) {
            if (config.handler != null) {
                config.router.fallback(config.handler);
            }
            this.handler = config.router;
        } else {
            this.handler = config.handler;
        }
    }

    /** @return a builder */
    public static ServerBuilder builder() {
        return new ServerBuilder();
    }

    /**
     * Starts the threads, timer and connectors, and logs one line per connector, e.g.
     * {@code Started http/1.1 (h2c) on 0.0.0.0:8080}.
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
            running = true;
            return this;
        } catch (IOException | RuntimeException x) {
            stopQuietly();
            throw x;
        } finally {
            lock.unlock();
        }
    }

    private void doStart() throws IOException {
        timer = HashedWheelTimer.builder().name(config.name + "-timer").build();
        timer.start();
        threadPool = ThreadPool.builder()
                .name(config.name)
                .minThreads(Math.max(config.minThreads, config.selectors * config.listeners.size()))
                .maxThreads(Math.max(config.maxThreads, config.selectors * config.listeners.size() + 1))
                .reservedThreads(config.reservedThreads)
                .build();
        threadPool.start();
        Executor blocking;
        if (config.virtualThreads) {
            virtualThreads = new BoundedVirtualThreadExecutor(
                    config.name + "-handler", config.maxConcurrentRequests, config.maxQueuedRequests);
            blocking = virtualThreads;
        } else {
            blocking = threadPool;
        }
        invoker = new HandlerInvoker(
                blocking, config.virtualThreads, config.maxConcurrentRequests + config.maxQueuedRequests);
        if (handler instanceof Router router) {
            router.bind(invoker);
        }
        buffers = config.buffers != null ? config.buffers : new BucketedByteBufferPool();
        dateField = new DateField(timer);
        dateField.start();
        Optional<PreEncodedHttpField> serverField =
                config.httpConfig.serverName().map(name -> new PreEncodedHttpField(HttpHeader.SERVER, name));
        ServerContext context = new ServerContext(
                handler,
                invoker,
                config.httpConfig,
                buffers,
                timer,
                dateField,
                serverField,
                statistics,
                Optional.empty(),
                threadPool,
                config.http2Config);
        if (config.h2c) {
            context = context.withHttp2(Optional.of(new Http2ConnectionFactory(context)));
        }
        List<ConnectionFactory> factories = new ArrayList<>();
        factories.add(new Http1ConnectionFactory(context));
        if (context.http2().isPresent()) {
            factories.add(protocolOnly("h2c"));
        }
        int index = 0;
        for (ServerBuilder.ListenSpec listen : config.listeners) {
            ServerConnector.Config connectorConfig = new ServerConnector.Config(
                    config.name + "-" + index++,
                    listen.host(),
                    listen.port(),
                    listen.unix(),
                    config.acceptQueueSize,
                    config.acceptors,
                    config.selectors,
                    config.maxConnections,
                    config.idleTimeout,
                    factories);
            ServerConnector connector = ServerConnector.create(connectorConfig, threadPool, IdleTimeouts.of(timer));
            connector.start();
            connectors.add(connector);
            LOG.log(Level.INFO, "Started " + connector.describe());
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
     * then stop threads and timer.
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
            for (ServerConnector connector : connectors) {
                connector.stopAccepting();
            }
            Duration timeout = config.shutdownTimeout;
            long deadline = System.nanoTime() + timeout.toNanos();
            for (ServerConnector connector : connectors) {
                Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
                if (!connector.shutdown(left)) {
                    LOG.log(Level.WARNING, "closed connections still busy after " + timeout + " on " + connector);
                }
            }
            stopQuietly();
            LOG.log(Level.INFO, "Stopped " + config.name);
        } finally {
            lock.unlock();
        }
    }

    private void stopQuietly() {
        for (ServerConnector connector : connectors) {
            try {
                connector.stop();
            } catch (Exception x) {
                LOG.log(Level.WARNING, "stopping " + connector, x);
            }
        }
        connectors.clear();
        if (dateField != null) {
            dateField.stop();
        }
        try {
            if (threadPool != null) {
                threadPool.stop();
            }
        } catch (Exception x) {
            LOG.log(Level.WARNING, "stopping " + threadPool, x);
        }
        if (timer != null) {
            timer.stop();
        }
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

    /** @return {@code http://127.0.0.1:port/} for the first TCP connector (or its bound host) */
    public URI uri() {
        for (ServerConnector connector : connectors) {
            if (connector.boundAddress().orElse(null) instanceof InetSocketAddress inet) {
                String host = inet.getAddress().isAnyLocalAddress()
                        ? "127.0.0.1"
                        : inet.getAddress().getHostAddress();
                if (host.contains(":")) {
                    host = "[" + host + "]";
                }
                return URI.create("http://" + host + ":" + inet.getPort() + "/");
            }
        }
        throw new IllegalStateException("no TCP connector is started");
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

    /** @return requests answered 503 because blocking handlers were at their bound */
    public long rejectedRequests() {
        return invoker == null ? 0 : invoker.rejectedCount();
    }

    /** @return the root handler */
    public AsyncHandler handler() {
        return handler;
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
        return "Server{" + config.name + (running ? ", running" : "") + ", virtualThreads=" + config.virtualThreads
                + ", threads=" + config.minThreads + ".." + config.maxThreads + ", selectors=" + config.selectors
                + ", maxConcurrentRequests=" + config.maxConcurrentRequests + ", maxQueuedRequests="
                + config.maxQueuedRequests + ", idleTimeout=" + config.idleTimeout + ", shutdownTimeout="
                + config.shutdownTimeout + ", h2c=" + config.h2c + ", handler=" + handler + "}";
    }
}
