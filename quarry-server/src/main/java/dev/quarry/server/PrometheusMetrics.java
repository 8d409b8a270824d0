package dev.quarry.server;

import dev.quarry.core.thread.BoundedVirtualThreadExecutor;
import dev.quarry.core.thread.ThreadPool;
import dev.quarry.http.h1.HttpParserConfig;
import dev.quarry.io.ProxyConnectionFactory;
import dev.quarry.io.ServerConnector;
import dev.quarry.server.PrometheusText.Type;
import dev.quarry.server.internal.tls.CertificateReloader;
import dev.quarry.server.internal.tls.ServerCertificate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Takes the exposition of {@link Server#metrics()}: the figures of the status page as Prometheus metrics, named
 * {@code quarry_*}. Counters count since start and end in {@code _total}; gauges are values now; the high-water marks
 * are gauges ending in {@code _high_water_mark}; the configured limits are gauges named {@code quarry_limit_*}, in
 * base units (bytes, seconds). Every numeric value of a {@link StatusContributor}'s section is one sample of the
 * untyped family {@code quarry_status_value}, labelled with its section, group and name.
 *
 * <p>Thread-safety: any thread. Cost: reads counters and iterates the open endpoints once, about 8 KiB of text;
 * never blocks.
 */
final class PrometheusMetrics {
    private PrometheusMetrics() {}

    static String of(Server server, ServerConfig config) {
        StringBuilder text = new StringBuilder(8192);
        PrometheusText out = new PrometheusText(text);
        out.family("quarry_info", Type.GAUGE, "Always 1; the labels describe the server.")
                .sample(
                        1,
                        "server",
                        config.name(),
                        "java",
                        Runtime.version().toString(),
                        "virtual_threads",
                        config.virtualThreads() ? "on" : "off",
                        "h2c",
                        config.h2c() ? "on" : "off");
        out.family("quarry_uptime_seconds", Type.GAUGE, "Time since the server started.")
                .sample(server.uptime().toNanos() / 1e9);
        threadPool(out, server.threadPool());
        Optional<BoundedVirtualThreadExecutor> virtualThreads = server.virtualThreads();
        virtualThreads.ifPresent(executor -> virtualThreads(out, executor));
        List<ServerConnector> connectors = server.connectors();
        connectors(out, connectors);
        connections(out, server.statistics(), connectors);
        requests(out, server.statistics(), server.rejectedRequests());
        buffersAndTimer(out, server);
        limits(out, config, server.threadPool(), connectors);
        tls(out, server.certificateReloaders());
        contributors(out, config.contributors());
        return text.toString();
    }

    private static void threadPool(PrometheusText out, ThreadPool pool) {
        var t = pool.statistics();
        out.family("quarry_thread_pool_threads", Type.GAUGE, "Platform threads of the pool alive now.")
                .sample(t.threads());
        out.family("quarry_thread_pool_idle_threads", Type.GAUGE, "Pool threads waiting for a task now.")
                .sample(t.idle());
        out.family("quarry_thread_pool_busy_threads", Type.GAUGE, "Pool threads running a task now.")
                .sample(t.busy());
        out.family(
                        "quarry_thread_pool_busy_threads_high_water_mark",
                        Type.GAUGE,
                        "The most pool threads busy at once since start (reserved ones included).")
                .sample(t.maxBusy());
        out.family("quarry_thread_pool_reserved_threads", Type.GAUGE, "Threads waiting in reserved mode now.")
                .sample(t.reserved());
        out.family("quarry_thread_pool_queue_size", Type.GAUGE, "Tasks waiting in the pool's queue now.")
                .sample(t.queueSize());
        out.family(
                        "quarry_thread_pool_queue_size_high_water_mark",
                        Type.GAUGE,
                        "The most tasks that waited in the pool's queue at once since start.")
                .sample(t.maxQueueSize());
        out.family("quarry_thread_pool_tasks_completed_total", Type.COUNTER, "Tasks the pool ran to completion.")
                .sample(t.tasksCompleted());
        out.family("quarry_thread_pool_tasks_rejected_total", Type.COUNTER, "Tasks the pool refused: queue full.")
                .sample(t.tasksRejected());
        out.family(
                        "quarry_thread_pool_queue_latency_seconds_high_water_mark",
                        Type.GAUGE,
                        "The longest a task waited in the queue since start.")
                .sample(t.queueLatencyMaxNanos() / 1e9);
        out.family(
                        "quarry_thread_pool_task_time_seconds_high_water_mark",
                        Type.GAUGE,
                        "The longest a task ran since start.")
                .sample(t.taskTimeMaxNanos() / 1e9);
    }

    private static void virtualThreads(PrometheusText out, BoundedVirtualThreadExecutor executor) {
        var v = executor.statistics();
        out.family("quarry_virtual_threads_running", Type.GAUGE, "Blocking handlers running on virtual threads now.")
                .sample(v.running());
        out.family(
                        "quarry_virtual_threads_running_high_water_mark",
                        Type.GAUGE,
                        "The most blocking handlers running at once since start.")
                .sample(v.maxRunning());
        out.family("quarry_virtual_threads_queued", Type.GAUGE, "Blocking handlers waiting for a slot now.")
                .sample(v.queued());
        out.family("quarry_virtual_threads_completed_total", Type.COUNTER, "Blocking handlers that completed.")
                .sample(v.completed());
    }

    private static void connectors(PrometheusText out, List<ServerConnector> connectors) {
        out.family(
                "quarry_accepts_paused_at_limit_total",
                Type.COUNTER,
                "Times accepting paused because the connector had its maximum of open connections.");
        for (ServerConnector connector : connectors) {
            out.sample(
                    connector.acceptsPausedAtLimit(),
                    "connector",
                    connector.config().name());
        }
        out.family(
                "quarry_accept_failures_total",
                Type.COUNTER,
                "Accepts that failed, typically because the process ran out of file descriptors.");
        for (ServerConnector connector : connectors) {
            out.sample(
                    connector.acceptFailures(), "connector", connector.config().name());
        }
        out.family("quarry_connections_accepted_total", Type.COUNTER, "Connections accepted, by connector.");
        for (ServerConnector connector : connectors) {
            out.sample(
                    connector.acceptedConnections(),
                    "connector",
                    connector.config().name());
        }
        out.family("quarry_connections_closed_total", Type.COUNTER, "Connections closed, by connector.");
        for (ServerConnector connector : connectors) {
            out.sample(
                    connector.acceptedConnections() - connector.openConnections(),
                    "connector",
                    connector.config().name());
        }
        out.family("quarry_connections_open", Type.GAUGE, "Connections open now, by connector.");
        for (ServerConnector connector : connectors) {
            out.sample(
                    connector.openConnections(), "connector", connector.config().name());
        }
        out.family(
                "quarry_connections_open_high_water_mark",
                Type.GAUGE,
                "The most connections open at once since start, by connector.");
        for (ServerConnector connector : connectors) {
            out.sample(
                    connector.maxOpenConnections(),
                    "connector",
                    connector.config().name());
        }
        List<ServerConnector> proxied = connectors.stream()
                .filter(connector -> Server.proxyFactory(connector).isPresent())
                .toList();
        if (!proxied.isEmpty()) {
            out.family(
                    "quarry_proxy_headers_total",
                    Type.COUNTER,
                    "Connections to a connector that accepts the PROXY protocol, by their header: accepted, absent,"
                            + " or rejected (malformed, truncated, oversized or late; the connection was closed).");
            for (ServerConnector connector : proxied) {
                ProxyConnectionFactory proxy = Server.proxyFactory(connector).orElseThrow();
                String name = connector.config().name();
                out.sample(proxy.acceptedHeaders(), "connector", name, "result", "accepted");
                out.sample(proxy.connectionsWithoutHeader(), "connector", name, "result", "absent");
                out.sample(proxy.rejectedHeaders(), "connector", name, "result", "rejected");
            }
        }
        long in = 0;
        long out2 = 0;
        long pc = 0;
        long pic = 0;
        long pec = 0;
        long epc = 0;
        for (ServerConnector connector : connectors) {
            in += connector.bytesIn();
            out2 += connector.bytesOut();
            var strategy = connector.selectorManager().strategyStatistics();
            pc += strategy.produceConsume();
            pic += strategy.produceInvokeConsume();
            pec += strategy.produceExecuteConsume();
            epc += strategy.executeProduceConsume();
        }
        out.family("quarry_received_bytes_total", Type.COUNTER, "Bytes read from all connections.")
                .sample(in);
        out.family("quarry_sent_bytes_total", Type.COUNTER, "Bytes written to all connections.")
                .sample(out2);
        out.family(
                        "quarry_selector_strategy_runs_total",
                        Type.COUNTER,
                        "Selected events run, by execution-strategy mode.")
                .sample(pc, "mode", "produce-consume")
                .sample(pic, "mode", "produce-invoke-consume")
                .sample(pec, "mode", "produce-execute-consume")
                .sample(epc, "mode", "execute-produce-consume");
    }

    private static void connections(PrometheusText out, ServerStatistics statistics, List<ServerConnector> connectors) {
        Map<String, Long> byProtocol = new LinkedHashMap<>();
        byProtocol.put("http/1.1", 0L);
        byProtocol.put("h2c", 0L);
        for (ServerConnector connector : connectors) {
            for (dev.quarry.io.EndPoint endPoint : connector.endPoints()) {
                dev.quarry.io.Connection connection = endPoint.connection();
                byProtocol.merge(connection == null ? "opening" : connection.protocol(), 1L, Long::sum);
            }
        }
        out.family(
                "quarry_connections_open_by_protocol",
                Type.GAUGE,
                "Connections open now, by protocol (opening: no byte read yet).");
        byProtocol.forEach((protocol, count) -> out.sample(count, "protocol", protocol));
        out.family(
                        "quarry_connections_by_protocol_total",
                        Type.COUNTER,
                        "Connections that started speaking a protocol.")
                .sample(statistics.http1Connections(), "protocol", "http/1.1")
                .sample(statistics.http2Connections(), "protocol", "h2c");
    }

    private static void requests(PrometheusText out, ServerStatistics statistics, long rejected) {
        out.family("quarry_requests_received_total", Type.COUNTER, "Requests received, by protocol.")
                .sample(statistics.http1Requests(), "protocol", "http/1.x")
                .sample(statistics.http2Requests(), "protocol", "http/2");
        out.family("quarry_requests_total", Type.COUNTER, "Requests answered, by the class of the response status.");
        long[] classes = statistics.responsesByClass();
        for (int i = 0; i < classes.length; i++) {
            out.sample(classes[i], "status_class", (i + 1) + "xx");
        }
        out.family(
                        "quarry_requests_aborted_total",
                        Type.COUNTER,
                        "Exchanges aborted after their response was committed.")
                .sample(statistics.aborted());
        out.family(
                        "quarry_requests_rejected_total",
                        Type.COUNTER,
                        "Requests answered 503 because blocking handlers were at their bound.")
                .sample(rejected);
        out.family(
                        "quarry_connections_peer_failed_total",
                        Type.COUNTER,
                        "Connections that failed because of their peer (a reset, a broken pipe).")
                .sample(statistics.peerIoFailures());
        out.family("quarry_file_transfers_total", Type.COUNTER, "File regions sent zero-copy.")
                .sample(statistics.fileTransfers());
        out.family("quarry_file_transfer_bytes_total", Type.COUNTER, "Bytes sent zero-copy from files.")
                .sample(statistics.fileTransferBytes());
    }

    private static void buffersAndTimer(PrometheusText out, Server server) {
        var direct = server.buffers().statistics(true);
        var heap = server.buffers().statistics(false);
        out.family("quarry_buffers_pooled", Type.GAUGE, "Buffers idle in the pool, by memory.")
                .sample(direct.pooled(), "memory", "direct")
                .sample(heap.pooled(), "memory", "heap");
        out.family("quarry_buffers_pooled_bytes", Type.GAUGE, "Memory of the buffers idle in the pool, by memory.")
                .sample(direct.pooledMemory(), "memory", "direct")
                .sample(heap.pooledMemory(), "memory", "heap");
        out.family("quarry_buffers_in_use", Type.GAUGE, "Buffers taken from the pool and not yet released.")
                .sample(direct.outstanding(), "memory", "direct")
                .sample(heap.outstanding(), "memory", "heap");
        var h2 = server.http2Budget();
        out.family(
                        "quarry_http2_held_content_bytes",
                        Type.GAUGE,
                        "Memory held by HTTP/2 request content received and not yet consumed by handlers.")
                .sample(h2.held());
        out.family(
                        "quarry_http2_held_content_bytes_high_water_mark",
                        Type.GAUGE,
                        "The most memory HTTP/2 request content held at once since start.")
                .sample(h2.highWaterMark());
        out.family(
                        "quarry_http2_streams_over_budget_total",
                        Type.COUNTER,
                        "HTTP/2 streams turned away because unread request content had spent the server's budget: "
                                + "refused new streams (REFUSED_STREAM) and streams reset by a DATA frame that would "
                                + "have overrun it (ENHANCE_YOUR_CALM).")
                .sample(h2.refusedStreams(), "action", "refused")
                .sample(h2.resetStreams(), "action", "reset");
        out.family(
                        "quarry_http2_file_responses_waited_total",
                        Type.COUNTER,
                        "File responses that waited for another response of their HTTP/2 connection to close its file.")
                .sample(server.statistics().fileResponsesWaited());
        out.family("quarry_timer_pending", Type.GAUGE, "Timeouts scheduled now.")
                .sample(server.timer().pendingCount());
        out.family("quarry_timer_expired_total", Type.COUNTER, "Timeouts that expired.")
                .sample(server.timer().expiredCount());
        out.family("quarry_timer_cancelled_total", Type.COUNTER, "Timeouts cancelled before expiry.")
                .sample(server.timer().cancelledCount());
    }

    /** The configured limits, in base units; the pool's are read from the pool, where JMX may have changed them. */
    private static void limits(
            PrometheusText out, ServerConfig config, ThreadPool pool, List<ServerConnector> connectors) {
        out.family("quarry_limit_min_threads", Type.GAUGE, "Platform threads kept when idle.")
                .sample(pool.getMinThreads());
        out.family("quarry_limit_max_threads", Type.GAUGE, "The most platform threads.")
                .sample(pool.getMaxThreads());
        out.family("quarry_limit_reserved_threads", Type.GAUGE, "The most threads waiting in reserved mode.")
                .sample(pool.getReservedThreadsCapacity());
        out.family(
                        "quarry_limit_max_concurrent_requests",
                        Type.GAUGE,
                        "Blocking handlers running at once (with platform threads: running and queued together"
                                + " with max_queued_requests).")
                .sample(config.maxConcurrentRequests());
        out.family("quarry_limit_max_queued_requests", Type.GAUGE, "Blocking handlers waiting for a slot; beyond, 503.")
                .sample(config.maxQueuedRequests());
        out.family("quarry_limit_max_connections", Type.GAUGE, "Open connections per connector; 0: no cap.");
        for (ServerConnector connector : connectors) {
            out.sample(
                    connector.config().maxConnections(),
                    "connector",
                    connector.config().name());
        }
        out.family("quarry_limit_accept_queue_size", Type.GAUGE, "The kernel accept backlog per connector.")
                .sample(config.acceptQueueSize());
        out.family("quarry_limit_idle_timeout_seconds", Type.GAUGE, "How long a connection may stay idle.")
                .sample(config.idleTimeout().toMillis() / 1e3);
        out.family("quarry_limit_shutdown_timeout_seconds", Type.GAUGE, "How long a graceful stop waits.")
                .sample(config.shutdownTimeout().toMillis() / 1e3);
        out.family(
                        "quarry_limit_min_request_body_rate_bytes_per_second",
                        Type.GAUGE,
                        "The slowest a request body may arrive while its handler waits; beyond, 408. 0: none.")
                .sample(config.httpConfig().minRequestBodyRate());
        HttpParserConfig parser = config.httpConfig().parser();
        out.family(
                        "quarry_limit_max_request_line_bytes",
                        Type.GAUGE,
                        "The longest HTTP/1.1 request line (method, URI, version); beyond, 414.")
                .sample(parser.maxRequestLineLength());
        out.family("quarry_limit_max_header_bytes", Type.GAUGE, "The largest HTTP/1.1 header section; beyond, 431.")
                .sample(parser.maxHeaderSize());
        out.family("quarry_limit_max_header_count", Type.GAUGE, "The most header fields; beyond, 431.")
                .sample(parser.maxFieldCount());
        out.family("quarry_limit_max_content_bytes", Type.GAUGE, "The largest request content; beyond, 413.")
                .sample(
                        parser.maxContentLength() == Long.MAX_VALUE
                                ? Double.POSITIVE_INFINITY
                                : parser.maxContentLength());
        Http2Config h2 = config.http2Config();
        out.family(
                        "quarry_limit_http2_max_concurrent_streams",
                        Type.GAUGE,
                        "Streams an HTTP/2 client may have open (SETTINGS_MAX_CONCURRENT_STREAMS).")
                .sample(h2.maxConcurrentStreams());
        out.family(
                        "quarry_limit_http2_initial_stream_window_bytes",
                        Type.GAUGE,
                        "Request content one HTTP/2 stream may send before it is read (SETTINGS_INITIAL_WINDOW_SIZE).")
                .sample(h2.initialStreamWindow());
        out.family(
                        "quarry_limit_http2_connection_window_bytes",
                        Type.GAUGE,
                        "The receive window of an HTTP/2 connection.")
                .sample(h2.connectionWindow());
        out.family(
                        "quarry_limit_http2_max_frame_size_bytes",
                        Type.GAUGE,
                        "The largest HTTP/2 frame accepted (SETTINGS_MAX_FRAME_SIZE).")
                .sample(h2.maxFrameSize());
        out.family(
                        "quarry_limit_http2_max_header_list_bytes",
                        Type.GAUGE,
                        "The largest decoded HTTP/2 header list (SETTINGS_MAX_HEADER_LIST_SIZE); beyond, 431.")
                .sample(h2.maxHeaderListSize());
        out.family(
                        "quarry_limit_http2_max_held_content_bytes",
                        Type.GAUGE,
                        "The server-wide budget of memory for unread HTTP/2 request content.")
                .sample(h2.maxHeldContent());
        out.family(
                        "quarry_limit_http2_max_open_files",
                        Type.GAUGE,
                        "Files the responses of one HTTP/2 connection may keep open at once; more wait.")
                .sample(h2.maxOpenFiles());
    }

    /**
     * The certificates of the HTTPS listeners: when each expires (what an alert on a failed renewal needs), and the
     * reloads.
     */
    private static void tls(PrometheusText out, Map<String, CertificateReloader> reloaders) {
        if (reloaders.isEmpty()) {
            return;
        }
        out.family(
                "quarry_tls_certificate_expiry_timestamp_seconds",
                Type.GAUGE,
                "When a certificate in use stops being valid (its notAfter), by connector and first name.");
        for (Map.Entry<String, CertificateReloader> entry : reloaders.entrySet()) {
            for (ServerCertificate certificate :
                    entry.getValue().current().keyManager().certificates()) {
                out.sample(
                        certificate.chain()[0].getNotAfter().getTime() / 1000,
                        "connector",
                        entry.getKey(),
                        "certificate",
                        certificate.names().getFirst());
            }
        }
        out.family(
                "quarry_tls_certificate_reloads_total",
                Type.COUNTER,
                "Reloads that replaced the certificates of an HTTPS connector.");
        reloaders.forEach((connector, reloader) -> out.sample(reloader.getReloads(), "connector", connector));
        out.family(
                "quarry_tls_certificate_reload_failures_total",
                Type.COUNTER,
                "Reloads that failed (the certificates in use were kept), by connector.");
        reloaders.forEach((connector, reloader) -> out.sample(reloader.getFailedReloads(), "connector", connector));
    }

    /** The numbers of contributed sections, one level of groups deep; strings (descriptions) are left out. */
    private static void contributors(PrometheusText out, List<StatusContributor> contributors) {
        if (contributors.isEmpty()) {
            return;
        }
        out.family(
                "quarry_status_value",
                Type.UNTYPED,
                "A number of a section added to the status page, by section, group and name.");
        for (StatusContributor contributor : contributors) {
            Map<String, Object> values;
            try {
                values = contributor.status();
            } catch (RuntimeException x) {
                continue; // the status page shows the error; a scrape stays valid
            }
            String section = contributor.statusName();
            for (Map.Entry<String, Object> entry : values.entrySet()) {
                if (entry.getValue() instanceof Map<?, ?> group) {
                    for (Map.Entry<?, ?> member : group.entrySet()) {
                        value(out, section, entry.getKey(), String.valueOf(member.getKey()), member.getValue());
                    }
                } else {
                    value(out, section, "", entry.getKey(), entry.getValue());
                }
            }
        }
    }

    private static void value(PrometheusText out, String section, String group, String name, Object value) {
        if (value instanceof Number number) {
            String[] labels = {"section", section, "group", group, "name", name};
            if (number instanceof Double || number instanceof Float) {
                out.sample(number.doubleValue(), labels);
            } else {
                out.sample(number.longValue(), labels);
            }
        } else if (value instanceof Boolean flag) {
            out.sample(flag ? 1 : 0, "section", section, "group", group, "name", name);
        }
    }
}
