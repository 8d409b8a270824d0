package dev.quarry.server;

import dev.quarry.core.buffer.ByteBufferPool;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Configures a {@link Server} in code. Every setting has a default that a demanding user would pick; the effective
 * values are shown by {@link Server#toString()}. Setters check their arguments at once (a null, a negative count, a
 * port out of range throws {@link IllegalArgumentException} or {@link NullPointerException} naming the setting).
 *
 * <p>{@link #build()} takes an immutable snapshot: the server it returns never sees later changes to this builder,
 * and a builder may build several servers (each with routes of its own).
 *
 * <p>Thread-safety: not thread-safe; configure from one thread.
 */
public final class ServerBuilder {
    final List<ListenSpec> listeners = new ArrayList<>();
    AsyncHandler handler;
    final List<RouteSpec> routes = new ArrayList<>();
    final List<FilterSpec> filters = new ArrayList<>();
    boolean virtualThreads = true;
    /** Null: automatic (on when blocking handlers run on virtual threads). */
    Boolean virtualSelectors;
    /** Whether a handler, route or filter was given in the blocking shape ({@link Handler}). */
    boolean blockingHandlers;

    int minThreads = 2;
    int maxThreads = Math.max(16, Runtime.getRuntime().availableProcessors() * 8);
    int reservedThreads = -1;
    int selectors = Math.max(1, Runtime.getRuntime().availableProcessors() / 4);
    int acceptors = 1;
    int maxConcurrentRequests = 4096;
    int maxQueuedRequests = 16384;
    int maxConnections = dev.quarry.server.internal.DescriptorLimit.defaultMaxConnections();
    int acceptQueueSize = 1024;
    Duration idleTimeout = Duration.ofSeconds(30);
    Duration shutdownTimeout = Duration.ofSeconds(10);
    HttpConfig httpConfig = HttpConfig.DEFAULT;
    Http2Config http2Config = Http2Config.DEFAULT;
    boolean h2c = true;
    ByteBufferPool buffers;
    String name = "quarry";
    String statusPath;
    String metricsPath;
    boolean jmx;
    final List<StatusContributor> contributors = new ArrayList<>();
    final java.util.Map<String, Object> mbeans = new java.util.LinkedHashMap<>();
    final List<dev.quarry.core.LifeCycle> managed = new ArrayList<>();
    final Map<Class<? extends Throwable>, ErrorHandler<?>> errorHandlers = new LinkedHashMap<>();
    final Map<Integer, AsyncHandler> errorPages = new LinkedHashMap<>();
    AccessLog accessLog;
    boolean redirectToHttps;

    ServerBuilder() {}

    /**
     * Listens on a TCP port on all interfaces, for HTTP/1.1 and h2c.
     *
     * @param port the port; 0 picks a free one (see {@link Server#port()})
     * @return this
     */
    public ServerBuilder http(int port) {
        listeners.add(
                new ListenSpec(Optional.empty(), checkPort(port), Optional.empty(), false, Optional.empty(), false));
        return this;
    }

    /**
     * Listens on a TCP port for HTTP/2 only, by prior knowledge (h2c without HTTP/1.1): for clients and proxies that
     * speak HTTP/2 from the first byte. Anything but the HTTP/2 preface is answered with GOAWAY and closed.
     *
     * @param host the address to bind, or null for all interfaces
     * @param port the port; 0 picks a free one
     * @return this
     */
    public ServerBuilder http2(String host, int port) {
        listeners.add(new ListenSpec(
                Optional.ofNullable(host), checkPort(port), Optional.empty(), true, Optional.empty(), false));
        return this;
    }

    /**
     * Listens on a TCP host and port, for HTTP/1.1 and h2c.
     *
     * @param host a host name or address, e.g. {@code 127.0.0.1} or {@code ::1}
     * @param port the port; 0 picks a free one
     * @return this
     */
    public ServerBuilder http(String host, int port) {
        Objects.requireNonNull(host, "host (use http(port) for all interfaces)");
        listeners.add(
                new ListenSpec(Optional.of(host), checkPort(port), Optional.empty(), false, Optional.empty(), false));
        return this;
    }

    /**
     * Listens on a TCP port on all interfaces for HTTPS: TLS 1.3 or 1.2, then HTTP/2 or HTTP/1.1 as ALPN negotiates
     * ({@code h2} when the client offers it, HTTP/1.1 otherwise and for clients without ALPN). See {@link TlsConfig}.
     *
     * @param port the port; 0 picks a free one
     * @param tls sets the certificate, e.g. {@code tls -> tls.pem(cert, key)}
     * @return this
     * @throws IllegalStateException if {@code tls} sets no certificate
     */
    public ServerBuilder https(int port, Consumer<TlsConfig.Builder> tls) {
        listeners.add(new ListenSpec(
                Optional.empty(), checkPort(port), Optional.empty(), false, Optional.of(tls(tls)), false));
        return this;
    }

    /**
     * Listens on a TCP host and port for HTTPS; see {@link #https(int, Consumer)}.
     *
     * @param host a host name or address, e.g. {@code 127.0.0.1}
     * @param port the port; 0 picks a free one
     * @param tls sets the certificate
     * @return this
     */
    public ServerBuilder https(String host, int port, Consumer<TlsConfig.Builder> tls) {
        Objects.requireNonNull(host, "host (use https(port, tls) for all interfaces)");
        listeners.add(new ListenSpec(
                Optional.of(host), checkPort(port), Optional.empty(), false, Optional.of(tls(tls)), false));
        return this;
    }

    /**
     * Makes every clear-text TCP listener ({@link #http(int)}, {@link #http(String, int)}, {@link #http2(String, int)})
     * answer each request with {@code 308 Permanent Redirect} to the same URL over HTTPS: the host the client asked
     * for, with the port of the first {@link #https(int, Consumer) https} listener ({@code :443} left out), and the
     * same path and query. No handler, filter, route or status page runs for them (the access log still sees them).
     * Unix-domain listeners are served as usual.
     *
     * @return this
     */
    public ServerBuilder redirectToHttps() {
        this.redirectToHttps = true;
        return this;
    }

    private static TlsConfig tls(Consumer<TlsConfig.Builder> tls) {
        Objects.requireNonNull(tls, "tls");
        TlsConfig.Builder builder = TlsConfig.builder();
        tls.accept(builder);
        return builder.build();
    }

    /**
     * Listens on a Unix-domain socket, for HTTP/1.1 and h2c.
     *
     * @param path the socket file; a stale one is replaced
     * @return this
     */
    public ServerBuilder unix(Path path) {
        Objects.requireNonNull(path, "path");
        listeners.add(new ListenSpec(Optional.empty(), 0, Optional.of(path), false, Optional.empty(), false));
        return this;
    }

    /**
     * Accepts the PROXY protocol (HAProxy's, versions 1 and 2) on the listener added last: a connection may start
     * with a header from the proxy in front (haproxy's {@code send-proxy} or {@code send-proxy-v2}, nginx's
     * {@code proxy_protocol on}, a cloud load balancer), whose client address then is what {@link
     * Request#remoteAddress()} reports, what per-client throttling counts and what the access log writes. The
     * version, and whether a header is there at all, is detected per connection; a malformed header, or one not
     * complete within 10 seconds, closes the connection (logged at DEBUG). Over HTTPS the header comes before the TLS
     * handshake, as proxies send it.
     *
     * <p>Enable it only on listeners that nothing but the proxy can reach (a Unix socket, a loopback or private
     * address): any client of such a listener can claim any address. A listener without it never reads a header.
     *
     * @param enabled whether the listener added last accepts the PROXY protocol; off by default
     * @return this
     * @throws IllegalStateException if no listener was added yet
     */
    public ServerBuilder proxyProtocol(boolean enabled) {
        if (listeners.isEmpty()) {
            throw new IllegalStateException(
                    "proxyProtocol applies to the listener added last: call http(...), https(...) or unix(...) first");
        }
        int last = listeners.size() - 1;
        listeners.set(last, listeners.get(last).withProxyProtocol(enabled));
        return this;
    }

    /**
     * Sets the root handler (blocking shape).
     *
     * @param handler runs for every request not matched by a route
     * @return this
     */
    public ServerBuilder handler(Handler handler) {
        blockingHandlers = true;
        return handler(Handlers.blocking(handler));
    }

    /**
     * Sets the root handler (asynchronous shape).
     *
     * @param handler runs for every request not matched by a route
     * @return this
     */
    public ServerBuilder handler(AsyncHandler handler) {
        this.handler = Objects.requireNonNull(handler, "handler");
        return this;
    }

    /**
     * Adds a blocking route, e.g. {@code "GET /hello/{name}"}; see {@link Router}.
     *
     * @param spec the route
     * @param handler runs on a virtual thread
     * @return this
     */
    public ServerBuilder route(String spec, Handler handler) {
        blockingHandlers = true;
        return route(spec, Handlers.blocking(handler));
    }

    /**
     * Adds an asynchronous route; see {@link Router}.
     *
     * @param spec the route
     * @param handler runs as its invocation type says
     * @return this
     * @throws IllegalArgumentException if the spec is malformed
     */
    public ServerBuilder route(String spec, AsyncHandler handler) {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(handler, "handler");
        new Router().route(spec, handler); // validates the spec now, not at build()
        routes.add(new RouteSpec(spec, handler));
        return this;
    }

    /**
     * Adds a filter around every request: see {@link Filter}. Filters run in the order added, the first outermost,
     * around the routes and the root handler alike.
     *
     * @param filter the filter
     * @return this
     */
    public ServerBuilder filter(Filter filter) {
        filters.add(new FilterSpec(Optional.empty(), Objects.requireNonNull(filter, "filter")));
        return this;
    }

    /**
     * Adds a filter for the requests whose path matches a pattern: see {@link Router#filter(String, Filter)}.
     *
     * @param pathPattern e.g. {@code /admin/*}
     * @param filter the filter
     * @return this
     */
    public ServerBuilder filter(String pathPattern, Filter filter) {
        Objects.requireNonNull(pathPattern, "pathPattern");
        Objects.requireNonNull(filter, "filter");
        new Router().filter(pathPattern, filter); // validates the pattern now
        filters.add(new FilterSpec(Optional.of(pathPattern), filter));
        return this;
    }

    /**
     * Runs a blocking handler before every request: see {@link Filter#before(Handler)}.
     *
     * @param handler runs first; the request stops there if it commits the response
     * @return this
     */
    public ServerBuilder before(Handler handler) {
        blockingHandlers = true;
        return filter(Filter.before(handler));
    }

    /**
     * Runs a blocking handler after every request: see {@link Filter#after(Handler)}.
     *
     * @param handler runs once the handler completed
     * @return this
     */
    public ServerBuilder after(Handler handler) {
        blockingHandlers = true;
        return filter(Filter.after(handler));
    }

    /**
     * Answers the failures of a type (and its subclasses) that handlers throw, or fail their callback with, before the
     * response is committed: see {@link ErrorHandler}. When several types match a failure, the most specific one wins
     * (the failure's class, then its superclass, and so on up to {@link Throwable}). A failure that no error handler
     * takes is answered with the status of an {@link dev.quarry.http.HttpException}, else 500, and that status's
     * {@linkplain #errorPage(int, Handler) error page} if there is one. A failure an error handler takes is the
     * application's to log: the server logs it only at DEBUG.
     *
     * @param type the type of failure, e.g. {@code NoSuchElementException.class}
     * @param handler writes the response for it
     * @param <T> the type of failure
     * @return this
     * @throws IllegalArgumentException if the type already has an error handler
     */
    public <T extends Throwable> ServerBuilder onError(Class<T> type, ErrorHandler<? super T> handler) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(handler, "handler");
        if (errorHandlers.putIfAbsent(type, handler) != null) {
            throw new IllegalArgumentException("an error handler for " + type.getName() + " is set already");
        }
        return this;
    }

    /**
     * Sets the page that answers a status whenever the server would send its plain default error for it: a handler's
     * {@link Response#sendError(int, String)}, a handler that throws an {@link dev.quarry.http.HttpException} of that
     * status (or anything else, for 500), the router's 404 and 405, the 503 of an overloaded server, and the 400 or
     * 413 of malformed or too large request content. The page is a blocking handler, run on a virtual thread; it finds
     * what it answers in {@link ErrorInfo#of(Request)}, and the response comes to it reset, with the status set.
     *
     * <p>A page runs at most once per request and only before the response is committed; a page that fails (or calls
     * {@code sendError} itself) gets the plain default error instead. Malformed request heads, which are answered
     * before there is a request to hand to a page, always get the plain default error.
     *
     * @param status the status, 400-599
     * @param page writes the error response
     * @return this
     * @throws IllegalArgumentException if the status is not an error status or already has a page
     */
    public ServerBuilder errorPage(int status, Handler page) {
        return errorPage(status, Handlers.blocking(page));
    }

    /**
     * Sets the page that answers a status, asynchronous shape: see {@link #errorPage(int, Handler)}. It runs where its
     * invocation type says, as any handler does.
     *
     * @param status the status, 400-599
     * @param page writes the error response and completes its callback
     * @return this
     * @throws IllegalArgumentException if the status is not an error status or already has a page
     */
    public ServerBuilder errorPage(int status, AsyncHandler page) {
        Objects.requireNonNull(page, "page");
        if (status < 400 || status > 599) {
            throw new IllegalArgumentException("an error page is for a status 400-599, was " + status);
        }
        if (errorPages.putIfAbsent(status, page) != null) {
            throw new IllegalArgumentException("an error page for " + status + " is set already");
        }
        return this;
    }

    /**
     * Logs every request, outermost: around every filter and route, whatever the order of the builder's calls. The log
     * is started and stopped with the server; see {@link AccessLog}.
     *
     * @param log the access log, e.g. {@code AccessLog.toFile(Path.of("access.log"))}; replaces an earlier one
     * @return this
     */
    public ServerBuilder accessLog(AccessLog log) {
        this.accessLog = Objects.requireNonNull(log, "log");
        return this;
    }

    /**
     * @param enabled whether blocking handlers run on virtual threads (default) rather than on pooled platform threads
     * @return this
     */
    public ServerBuilder virtualThreads(boolean enabled) {
        this.virtualThreads = enabled;
        return this;
    }

    /**
     * Runs the selectors on virtual threads rather than on the platform thread pool. By default they do when the
     * server has blocking handlers (a {@link Handler} given to {@link #handler(Handler)}, {@link #route(String,
     * Handler)}, {@link #before(Handler)} or {@link #after(Handler)}) and runs them on virtual threads: the selectors
     * then share the carrier threads with the handlers' virtual threads, instead of taking turns with them on the
     * cores through operating-system context switches. A server of asynchronous handlers keeps platform selector
     * threads, which block in {@code epoll_wait} directly. See docs/server.md.
     *
     * @param enabled whether the selectors run on virtual threads
     * @return this
     */
    public ServerBuilder virtualSelectors(boolean enabled) {
        this.virtualSelectors = enabled;
        return this;
    }

    /**
     * @param max the most platform threads (selectors, reserved threads, and blocking handlers when virtual threads
     *     are off)
     * @return this
     */
    public ServerBuilder maxThreads(int max) {
        checkAtLeast("maxThreads", max, 1);
        this.maxThreads = max;
        this.minThreads = Math.min(minThreads, max);
        return this;
    }

    /**
     * @param min the platform threads kept when idle
     * @return this
     */
    public ServerBuilder minThreads(int min) {
        checkAtLeast("minThreads", min, 0);
        this.minThreads = min;
        return this;
    }

    /**
     * @param reserved how many idle threads wait to take over production (execute-produce-consume); -1 for the
     *     automatic value
     * @return this
     */
    public ServerBuilder reservedThreads(int reserved) {
        checkAtLeast("reservedThreads", reserved, -1);
        this.reservedThreads = reserved;
        return this;
    }

    /**
     * @param selectors selector threads per connector
     * @return this
     */
    public ServerBuilder selectors(int selectors) {
        checkAtLeast("selectors", selectors, 1);
        this.selectors = selectors;
        return this;
    }

    /**
     * @param max blocking handlers running at once (virtual threads are cheap, what they do is not)
     * @return this
     */
    public ServerBuilder maxConcurrentRequests(int max) {
        checkAtLeast("maxConcurrentRequests", max, 1);
        this.maxConcurrentRequests = max;
        return this;
    }

    /**
     * @param max blocking requests waiting for a slot; beyond, 503 with Retry-After
     * @return this
     */
    public ServerBuilder maxQueuedRequests(int max) {
        checkAtLeast("maxQueuedRequests", max, 0);
        this.maxQueuedRequests = max;
        return this;
    }

    /**
     * Caps the connections open at once on each connector: at the cap the server stops accepting (new connections wait
     * in the kernel's accept backlog) and resumes when one closes, logging that it reached it. The default is half the
     * file descriptors the process may open beyond a reserve of 256 ({@code (ulimit -n - 256) / 2}), so that the server
     * never runs out of descriptors with connections it can no longer serve; 0 if that limit cannot be read.
     *
     * @param max open connections per connector; 0 for no cap
     * @return this
     */
    public ServerBuilder maxConnections(int max) {
        checkAtLeast("maxConnections", max, 0);
        this.maxConnections = max;
        return this;
    }

    /**
     * @param size the kernel accept backlog
     * @return this
     */
    public ServerBuilder acceptQueueSize(int size) {
        checkAtLeast("acceptQueueSize", size, 1);
        this.acceptQueueSize = size;
        return this;
    }

    /**
     * @param timeout how long a connection may stay idle
     * @return this
     */
    public ServerBuilder idleTimeout(Duration timeout) {
        this.idleTimeout = checkNotNegative("idleTimeout", timeout);
        return this;
    }

    /**
     * Sets how long a request head may take to arrive once it has begun, however slowly its bytes come (each byte
     * restarts the idle timeout, not this one): past it the request is answered 408 and the connection closed. The
     * same bound applies to an HTTP/2 header block (HEADERS and its CONTINUATION frames). 15 s by default.
     *
     * @param timeout the header timeout, positive
     * @return this
     */
    public ServerBuilder headerTimeout(Duration timeout) {
        this.httpConfig = httpConfig.withHeaderTimeout(timeout);
        return this;
    }

    /**
     * Sets the slowest a request body may arrive, in bytes per second of waiting for it, over HTTP/1.1 and HTTP/2: a
     * client that trickles a body (a slow upload attack) is answered 408, and its connection (HTTP/1.1) or stream
     * (HTTP/2) ends, instead of holding a handler and a connection for as long as each byte keeps the idle timeout
     * away. Only the time the handler waits for content counts, after a first second of grace; a handler that is slow
     * to read is not the client's fault. Off (0) by default: a rate that stops an attack also cuts off honest uploads
     * over a poor link, so it is a choice for the operator, who knows the clients.
     *
     * @param bytesPerSecond the minimum rate, 0 for none
     * @return this
     */
    public ServerBuilder minRequestBodyRate(long bytesPerSecond) {
        this.httpConfig = httpConfig.withMinRequestBodyRate(bytesPerSecond);
        return this;
    }

    /**
     * @param timeout how long {@link Server#stop()} lets in-flight exchanges finish
     * @return this
     */
    public ServerBuilder shutdownTimeout(Duration timeout) {
        this.shutdownTimeout = checkNotNegative("shutdownTimeout", timeout);
        return this;
    }

    /**
     * @param config HTTP settings
     * @return this
     */
    public ServerBuilder httpConfig(HttpConfig config) {
        this.httpConfig = Objects.requireNonNull(config, "config");
        return this;
    }

    /**
     * @param config HTTP/2 settings and abuse limits
     * @return this
     */
    public ServerBuilder http2Config(Http2Config config) {
        this.http2Config = Objects.requireNonNull(config, "config");
        return this;
    }

    /**
     * @param enabled whether HTTP/2 cleartext (prior knowledge and {@code Upgrade: h2c}) is served on HTTP ports
     * @return this
     */
    public ServerBuilder h2c(boolean enabled) {
        this.h2c = enabled;
        return this;
    }

    /**
     * @param pool the buffer pool (tests pass a leak-tracking one)
     * @return this
     */
    public ServerBuilder buffers(ByteBufferPool pool) {
        this.buffers = Objects.requireNonNull(pool, "pool");
        return this;
    }

    /**
     * @param name prefixes thread names and JMX names
     * @return this
     */
    public ServerBuilder name(String name) {
        this.name = Objects.requireNonNull(name, "name");
        return this;
    }

    /**
     * Serves the status page at {@code path} (HTML, refreshing itself) and {@code path + ".json"}.
     *
     * @param path e.g. {@code /quarry/status}
     * @return this
     */
    public ServerBuilder statusPage(String path) {
        this.statusPath = checkPath("status", path);
        return this;
    }

    /**
     * Serves the server's figures at {@code path} in the Prometheus text exposition format 0.0.4 (see
     * {@link Server#metrics()}): counters, gauges and the configured limits, for Prometheus to scrape. Like the status
     * page, the endpoint is non-blocking and cheap; protect both as you would any operational endpoint.
     *
     * @param path e.g. {@code /quarry/metrics}
     * @return this
     */
    public ServerBuilder metrics(String path) {
        this.metricsPath = checkPath("metrics", path);
        return this;
    }

    private static String checkPath(String what, String path) {
        Objects.requireNonNull(path, "path");
        if (!path.startsWith("/") || path.endsWith("/")) {
            throw new IllegalArgumentException(what + " path must start and not end with '/': " + path);
        }
        return path;
    }

    /**
     * Adds a section to the status page.
     *
     * @param contributor the section
     * @return this
     */
    public ServerBuilder statusContributor(StatusContributor contributor) {
        contributors.add(Objects.requireNonNull(contributor, "contributor"));
        return this;
    }

    /**
     * Registers JMX MBeans on start: the thread pool (its sizes are writable), the connectors, and {@link #mbean}s.
     *
     * @param enabled whether to register
     * @return this
     */
    public ServerBuilder jmx(boolean enabled) {
        this.jmx = enabled;
        return this;
    }

    /**
     * Registers an extra MBean on start (e.g. the throttle's writable limits), when JMX is enabled.
     *
     * @param properties the key properties of its name, e.g. {@code type=Throttle}
     * @param bean an MXBean implementation
     * @return this
     */
    public ServerBuilder mbean(String properties, Object bean) {
        mbeans.put(Objects.requireNonNull(properties, "properties"), Objects.requireNonNull(bean, "bean"));
        return this;
    }

    /**
     * Ties a component's life cycle to the server's: started before the connectors, stopped after them (e.g. a
     * {@link dev.quarry.server.handlers.Throttle} used by a handler).
     *
     * @param component the component
     * @return this
     */
    public ServerBuilder manage(dev.quarry.core.LifeCycle component) {
        managed.add(Objects.requireNonNull(component, "component"));
        return this;
    }

    /**
     * @return a new server, not started, from a snapshot of this builder
     * @throws IllegalStateException if there is nothing to listen on, nothing to handle requests, or the settings
     *     contradict each other
     */
    public Server build() {
        if (listeners.isEmpty()) {
            throw new IllegalStateException(
                    "no listener: call http(port), http(host, port), https(port, tls) or unix(path)");
        }
        if (handler == null && routes.isEmpty() && statusPath == null && metricsPath == null) {
            throw new IllegalStateException("no handler: call handler(...) or route(...)");
        }
        if (redirectToHttps
                && listeners.stream().noneMatch(listen -> listen.tls().isPresent())) {
            throw new IllegalStateException("redirectToHttps() needs an https(port, tls) listener to redirect to");
        }
        if (minThreads > maxThreads) {
            throw new IllegalStateException("minThreads " + minThreads + " > maxThreads " + maxThreads);
        }
        return new Server(new ServerConfig(this));
    }

    private static int checkPort(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0 to 65535, was " + port);
        }
        return port;
    }

    private static void checkAtLeast(String name, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException(name + " must be at least " + min + ", was " + value);
        }
    }

    private static Duration checkNotNegative(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative, was " + value);
        }
        return value;
    }

    /**
     * Where to listen: a TCP host/port, or a Unix socket path; HTTP/1.1 and h2c, HTTP/2 only, or HTTPS; with or
     * without the PROXY protocol in front.
     */
    record ListenSpec(
            Optional<String> host,
            int port,
            Optional<Path> unix,
            boolean http2Only,
            Optional<TlsConfig> tls,
            boolean proxyProtocol) {
        ListenSpec withProxyProtocol(boolean enabled) {
            return new ListenSpec(host, port, unix, http2Only, tls, enabled);
        }
    }

    /** A route as given to the builder. */
    record RouteSpec(String spec, AsyncHandler handler) {}

    /** A filter as given to the builder, for every path or those matching a pattern. */
    record FilterSpec(Optional<String> pathPattern, Filter filter) {}
}
