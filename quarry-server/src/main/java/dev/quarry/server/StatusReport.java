package dev.quarry.server;

import dev.quarry.core.thread.BoundedVirtualThreadExecutor;
import dev.quarry.core.thread.ThreadPool;
import dev.quarry.http.h1.HttpParserConfig;
import dev.quarry.io.ProxyConnectionFactory;
import dev.quarry.io.ServerConnector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Takes the snapshot of {@link Server#status()}: every section shows its live figures first, then (as a nested map)
 * its {@linkplain ServerStatus#HIGH_WATER_MARKS high-water marks since start} and its configured
 * {@linkplain ServerStatus#LIMITS limits}, so that "busy 14" is read beside "max threads 16".
 *
 * <p>Thread-safety: any thread. Cost: reads counters and iterates the open endpoints once; never blocks.
 */
final class StatusReport {
    private StatusReport() {}

    static ServerStatus of(Server server, ServerConfig config) {
        Map<String, Object> sections = new LinkedHashMap<>();
        sections.put("server", server(config));
        ThreadPool threadPool = server.threadPool();
        Optional<BoundedVirtualThreadExecutor> virtualThreads = server.virtualThreads();
        sections.put("thread pool", threadPool(threadPool, config, virtualThreads.isEmpty()));
        virtualThreads.ifPresent(executor -> sections.put("virtual threads", virtualThreads(executor)));
        List<ServerConnector> connectors = server.connectors();
        long pc = 0;
        long pic = 0;
        long pec = 0;
        long epc = 0;
        List<Object> connectorList = new ArrayList<>();
        Map<String, Object> connections = new LinkedHashMap<>();
        long bytesIn = 0;
        long bytesOut = 0;
        for (ServerConnector connector : connectors) {
            var strategy = connector.selectorManager().strategyStatistics();
            pc += strategy.produceConsume();
            pic += strategy.produceInvokeConsume();
            pec += strategy.produceExecuteConsume();
            epc += strategy.executeProduceConsume();
            connectorList.add(connector(connector));
            bytesIn += connector.bytesIn();
            bytesOut += connector.bytesOut();
            for (dev.quarry.io.EndPoint endPoint : connector.endPoints()) {
                dev.quarry.io.Connection connection = endPoint.connection();
                String protocol = connection == null ? "opening" : connection.protocol();
                connections.merge(protocol, 1L, (a, b) -> (Long) a + (Long) b);
            }
        }
        Map<String, Object> strategy = new LinkedHashMap<>();
        strategy.put("produce-consume (in place)", pc);
        strategy.put("produce-invoke-consume", pic);
        strategy.put("produce-execute-consume", pec);
        strategy.put("execute-produce-consume", epc);
        sections.put("selector strategy", strategy);
        sections.put("connectors", connectorList);
        ServerStatistics statistics = server.statistics();
        connections.put("http/1.1 since start", statistics.http1Connections());
        connections.put("h2c since start", statistics.http2Connections());
        connections.put(ServerStatus.LIMITS, connectionLimits(config));
        sections.put("connections", connections);
        sections.put("requests", requests(statistics, server.rejectedRequests(), config.httpConfig()));
        Map<String, Object> bytes = new LinkedHashMap<>();
        bytes.put("in", bytesIn);
        bytes.put("out", bytesOut);
        sections.put("bytes", bytes);
        Map<String, Object> pool = new LinkedHashMap<>();
        var direct = server.buffers().statistics(true);
        var heap = server.buffers().statistics(false);
        pool.put("direct pooled", direct.pooled());
        pool.put("direct pooled KiB", direct.pooledMemory() / 1024);
        pool.put("direct in use", direct.outstanding());
        pool.put("heap pooled", heap.pooled());
        pool.put("heap in use", heap.outstanding());
        if (config.h2c()
                || config.listeners().stream()
                        .anyMatch(l -> l.http2Only() || l.tls().isPresent())) {
            // Unread HTTP/2 request content, against its server-wide budget, and the streams the budget turned away.
            var h2 = server.http2Budget();
            pool.put("h2 held content KiB", h2.held() / 1024);
            pool.put("h2 streams refused", h2.refusedStreams());
            pool.put("h2 streams reset", h2.resetStreams());
            pool.put("h2 file waits", server.statistics().fileResponsesWaited());
            pool.put(ServerStatus.HIGH_WATER_MARKS, Map.of("h2 held content KiB", h2.highWaterMark() / 1024));
            Map<String, Object> limits = new LinkedHashMap<>();
            limits.put("h2 max held KiB", h2.max() / 1024);
            limits.put("h2 open files", config.http2Config().maxOpenFiles());
            pool.put(ServerStatus.LIMITS, limits);
        }
        sections.put("buffers", pool);
        Map<String, Object> timer = new LinkedHashMap<>();
        timer.put("pending timeouts", server.timer().pendingCount());
        timer.put("expired", server.timer().expiredCount());
        timer.put("cancelled", server.timer().cancelledCount());
        sections.put("timer", timer);
        config.accessLog().ifPresent(log -> {
            Map<String, Object> accessLog = new LinkedHashMap<>();
            accessLog.put("format", log.format().toString().toLowerCase(java.util.Locale.ROOT));
            accessLog.put("written", log.written());
            accessLog.put("dropped", log.dropped());
            accessLog.put("queued", log.queued());
            sections.put("access log", accessLog);
        });
        List<TlsCertificatesMXBean> certificates = server.tlsCertificates();
        if (!certificates.isEmpty()) {
            // One entry per HTTPS listener: what it serves now, and whether reloads went well.
            Map<String, Object> tls = new LinkedHashMap<>();
            for (TlsCertificatesMXBean listener : certificates) {
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("certificates", String.join(", ", listener.getCertificates()));
                entry.put("reloads", listener.getReloads());
                entry.put("failed reloads", listener.getFailedReloads());
                if (!listener.getLastFailure().isEmpty()) {
                    entry.put("last failure", listener.getLastFailure());
                }
                tls.put(listener.getListener(), entry);
            }
            sections.put("tls certificates", tls);
        }
        for (StatusContributor contributor : config.contributors()) {
            try {
                sections.put(contributor.statusName(), contributor.status());
            } catch (RuntimeException x) {
                sections.put(contributor.statusName(), Map.of("error", String.valueOf(x)));
            }
        }
        return new ServerStatus(config.name(), server.uptime(), sections);
    }

    private static Map<String, Object> server(ServerConfig config) {
        Map<String, Object> server = new LinkedHashMap<>();
        server.put("java", Runtime.version().toString());
        server.put("cores", Runtime.getRuntime().availableProcessors());
        server.put("virtual threads", config.virtualThreads() ? "on" : "off");
        server.put("virtual selectors", config.virtualSelectors() ? "on" : "off");
        server.put("h2c", config.h2c() ? "on" : "off");
        server.put(
                "heap used MiB",
                (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) / (1024 * 1024));
        server.put(ServerStatus.LIMITS, Map.of("shutdown timeout ms", millis(config.shutdownTimeout())));
        return server;
    }

    /**
     * The pool's limits are read from the pool, not the configuration: JMX may have changed them, and the pool keeps
     * at least one thread per selector.
     */
    private static Map<String, Object> threadPool(ThreadPool pool, ServerConfig config, boolean runsBlockingHandlers) {
        var t = pool.statistics();
        Map<String, Object> threads = new LinkedHashMap<>();
        threads.put("threads", t.threads());
        threads.put("idle", t.idle());
        threads.put("busy", t.busy());
        threads.put("reserved", t.reserved());
        threads.put("tasks", t.tasksCompleted());
        threads.put("queue size", t.queueSize());
        threads.put("queue latency avg ms", t.queueLatencyAverageNanos() / 1e6);
        threads.put("task time avg ms", t.taskTimeAverageNanos() / 1e6);
        Map<String, Object> highWater = new LinkedHashMap<>();
        highWater.put("busy", t.maxBusy());
        highWater.put("queue size", t.maxQueueSize());
        highWater.put("queue latency ms", t.queueLatencyMaxNanos() / 1e6);
        highWater.put("task time ms", t.taskTimeMaxNanos() / 1e6);
        threads.put(ServerStatus.HIGH_WATER_MARKS, highWater);
        Map<String, Object> limits = new LinkedHashMap<>();
        limits.put("min threads", pool.getMinThreads());
        limits.put("max threads", pool.getMaxThreads());
        limits.put("reserved threads", pool.getReservedThreadsCapacity());
        if (runsBlockingHandlers) {
            // Without virtual threads, one bound counts blocking handlers running and queued on the pool.
            limits.put("max blocking requests", config.maxConcurrentRequests() + config.maxQueuedRequests());
        }
        threads.put(ServerStatus.LIMITS, limits);
        return threads;
    }

    private static Map<String, Object> virtualThreads(BoundedVirtualThreadExecutor executor) {
        var v = executor.statistics();
        Map<String, Object> vt = new LinkedHashMap<>();
        vt.put("running", v.running());
        vt.put("queued", v.queued());
        vt.put("completed", v.completed());
        vt.put("rejected (503)", v.rejected());
        vt.put(ServerStatus.HIGH_WATER_MARKS, Map.of("running", v.maxRunning()));
        Map<String, Object> limits = new LinkedHashMap<>();
        limits.put("max concurrent requests", executor.maxConcurrent());
        limits.put("max queued requests", executor.maxQueued());
        vt.put(ServerStatus.LIMITS, limits);
        return vt;
    }

    private static Map<String, Object> connector(ServerConnector connector) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("listening", connector.describe());
        c.put("open", connector.openConnections());
        c.put("accepted", connector.acceptedConnections());
        c.put("paused at cap", connector.acceptsPausedAtLimit());
        c.put("accept errors", connector.acceptFailures());
        ProxyConnectionFactory proxy = Server.proxyFactory(connector).orElse(null);
        if (proxy != null) {
            c.put("proxy headers", proxy.acceptedHeaders());
            c.put("without proxy header", proxy.connectionsWithoutHeader());
            c.put("proxy headers rejected", proxy.rejectedHeaders());
        }
        c.put(ServerStatus.HIGH_WATER_MARKS, Map.of("open", connector.maxOpenConnections()));
        Map<String, Object> limits = new LinkedHashMap<>();
        int max = connector.config().maxConnections();
        limits.put("max connections", max > 0 ? (Object) max : "no cap");
        limits.put("accept queue", connector.config().acceptQueueSize());
        if (proxy != null) {
            limits.put("proxy header timeout ms", proxy.headerTimeout().toMillis());
            limits.put("proxy header max bytes", proxy.maxHeaderSize());
        }
        c.put(ServerStatus.LIMITS, limits);
        return c;
    }

    private static Map<String, Object> connectionLimits(ServerConfig config) {
        Map<String, Object> limits = new LinkedHashMap<>();
        limits.put("idle timeout ms", millis(config.idleTimeout()));
        if (config.h2c() || config.listeners().stream().anyMatch(ServerBuilder.ListenSpec::http2Only)) {
            Http2Config h2 = config.http2Config();
            limits.put("h2 max streams", h2.maxConcurrentStreams());
            limits.put("h2 stream window", h2.initialStreamWindow());
            limits.put("h2 connection window", h2.connectionWindow());
            limits.put("h2 max frame size", h2.maxFrameSize());
            limits.put("h2 max header list size", h2.maxHeaderListSize());
        }
        long minBodyRate = config.httpConfig().minRequestBodyRate();
        limits.put("min request body rate B/s", minBodyRate > 0 ? (Object) minBodyRate : "none");
        return limits;
    }

    private static Map<String, Object> requests(ServerStatistics statistics, long rejected, HttpConfig http) {
        Map<String, Object> requests = new LinkedHashMap<>();
        requests.put("total", statistics.requests());
        requests.put("http/1.x", statistics.http1Requests());
        requests.put("http/2", statistics.http2Requests());
        long[] classes = statistics.responsesByClass();
        for (int i = 0; i < classes.length; i++) {
            requests.put((i + 1) + "xx", classes[i]);
        }
        requests.put("aborted", statistics.aborted());
        requests.put("rejected (503)", rejected);
        requests.put("peer failures", statistics.peerIoFailures());
        HttpParserConfig parser = http.parser();
        Map<String, Object> limits = new LinkedHashMap<>();
        limits.put("max request line bytes", parser.maxRequestLineLength());
        limits.put("max header bytes", parser.maxHeaderSize());
        limits.put("max header count", parser.maxFieldCount());
        limits.put(
                "max content bytes",
                parser.maxContentLength() == Long.MAX_VALUE ? (Object) "unlimited" : parser.maxContentLength());
        requests.put(ServerStatus.LIMITS, limits);
        return requests;
    }

    private static long millis(Duration duration) {
        return duration.toMillis();
    }
}
