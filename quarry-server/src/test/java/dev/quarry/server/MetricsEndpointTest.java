package dev.quarry.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.h1.HttpParserConfig;
import dev.quarry.server.ExpositionParser.Exposition;
import dev.quarry.server.test.HttpTestClient;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.Transport;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code ServerBuilder.metrics(path)}: the server's figures in the Prometheus text exposition format 0.0.4. */
class MetricsEndpointTest extends ServerTestBase {
    private static final String TRICKY = "say \"hi\"\\ now\nplease";

    private void startWithMetrics(Transport transport, Consumer<ServerBuilder> more) throws Exception {
        start(transport, builder -> {
            builder.route("GET /hello", (req, res) -> res.send("hello"))
                    .route("GET /missing", (req, res) -> res.status(404).send("no"))
                    .metrics("/quarry/metrics");
            more.accept(builder);
        });
    }

    private Exposition scrape(HttpTestClient client) throws Exception {
        HttpTestClient.Reply reply = client.send("GET", "/quarry/metrics", null);
        assertEquals(200, reply.status(), reply::toString);
        assertEquals(
                "text/plain; version=0.0.4; charset=utf-8",
                reply.header("Content-Type").orElseThrow());
        return ExpositionParser.parse(reply.text());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void everyLineIsValidExpositionFormat(Transport transport) throws Exception {
        startWithMetrics(transport, builder -> {});

        Exposition metrics = scrape(client());

        assertTrue(
                metrics.samples().size() > 40,
                () -> "samples: " + metrics.samples().keySet());
        metrics.types().forEach((name, type) -> {
            if (type.equals("counter")) {
                assertTrue(name.endsWith("_total"), name);
            }
        });
        assertEquals("counter", metrics.types().get("quarry_requests_total"));
        assertEquals("gauge", metrics.types().get("quarry_connections_open"));
        assertEquals("gauge", metrics.types().get("quarry_limit_max_threads"));
    }

    @Test
    void countersIncreaseAfterRequests() throws Exception {
        startWithMetrics(Transport.TCP, builder -> {});
        HttpTestClient client = client();
        Exposition before = scrape(client);

        for (int i = 0; i < 3; i++) {
            assertEquals(200, client.send("GET", "/hello", null).status());
        }
        assertEquals(404, client.send("GET", "/missing", null).status());
        Exposition after = scrape(client);

        assertTrue(
                delta(before, after, "quarry_requests_total", "status_class", "2xx") >= 3 + 1,
                "three hellos and the first scrape were answered 2xx");
        assertEquals(1, delta(before, after, "quarry_requests_total", "status_class", "4xx"));
        assertTrue(delta(before, after, "quarry_requests_received_total", "protocol", "http/1.x") >= 4);
        assertTrue(delta(before, after, "quarry_received_bytes_total") > 0);
        assertTrue(delta(before, after, "quarry_sent_bytes_total") > 0);
        assertTrue(after.value("quarry_connections_accepted_total", "connector", "test-0") >= 1);
        assertEquals(1, after.value("quarry_connections_open", "connector", "test-0"), "this client's connection");
        assertEquals(1, after.value("quarry_connections_open_by_protocol", "protocol", "http/1.1"));
        assertTrue(after.value("quarry_connections_open_high_water_mark", "connector", "test-0") >= 1);
        assertEquals(0, after.value("quarry_requests_rejected_total"));
    }

    @Test
    void closedConnectionsAreCounted() throws Exception {
        startWithMetrics(Transport.TCP, builder -> {});
        try (HttpTestClient first = HttpTestClient.connect(transport, transport.address(server), WAIT)) {
            assertEquals(200, first.send("GET", "/hello", null).status());
        }
        await("the first connection closed", () -> server.connectors().get(0).openConnections() == 0);

        Exposition metrics = scrape(client());

        assertEquals(1, metrics.value("quarry_connections_closed_total", "connector", "test-0"));
        assertEquals(2, metrics.value("quarry_connections_accepted_total", "connector", "test-0"));
    }

    @Test
    void configuredLimitsAreGaugesInBaseUnits() throws Exception {
        startWithMetrics(
                Transport.TCP,
                builder -> builder.selectors(1)
                        .minThreads(3)
                        .maxThreads(40)
                        .reservedThreads(2)
                        .maxConcurrentRequests(123)
                        .maxQueuedRequests(45)
                        .maxConnections(99)
                        .idleTimeout(Duration.ofMillis(17_500))
                        .shutdownTimeout(Duration.ofSeconds(7))
                        .httpConfig(HttpConfig.DEFAULT.withParser(HttpParserConfig.builder()
                                .maxRequestLineLength(4000)
                                .maxHeaderSize(6000)
                                .maxFieldCount(50)
                                .build()))
                        .minRequestBodyRate(2048)
                        .http2Config(Http2Config.builder()
                                .maxConcurrentStreams(77)
                                .initialStreamWindow(100_000)
                                .build()));

        Exposition metrics = scrape(client());

        assertEquals(3, metrics.value("quarry_limit_min_threads"));
        assertEquals(40, metrics.value("quarry_limit_max_threads"));
        assertEquals(2, metrics.value("quarry_limit_reserved_threads"));
        assertEquals(123, metrics.value("quarry_limit_max_concurrent_requests"));
        assertEquals(45, metrics.value("quarry_limit_max_queued_requests"));
        assertEquals(99, metrics.value("quarry_limit_max_connections", "connector", "test-0"));
        assertEquals(17.5, metrics.value("quarry_limit_idle_timeout_seconds"));
        assertEquals(7, metrics.value("quarry_limit_shutdown_timeout_seconds"));
        assertEquals(2048, metrics.value("quarry_limit_min_request_body_rate_bytes_per_second"));
        assertEquals(4000, metrics.value("quarry_limit_max_request_line_bytes"));
        assertEquals(6000, metrics.value("quarry_limit_max_header_bytes"));
        assertEquals(50, metrics.value("quarry_limit_max_header_count"));
        assertEquals(Double.POSITIVE_INFINITY, metrics.value("quarry_limit_max_content_bytes"), "unlimited");
        assertEquals(77, metrics.value("quarry_limit_http2_max_concurrent_streams"));
        assertEquals(100_000, metrics.value("quarry_limit_http2_initial_stream_window_bytes"));
    }

    @Test
    void contributedNumbersAreExportedWithEscapedLabels() throws Exception {
        startWithMetrics(
                Transport.TCP,
                builder -> builder.name("the \"quoted\" server").statusContributor(new StatusContributor() {
                    @Override
                    public String statusName() {
                        return TRICKY;
                    }

                    @Override
                    public Map<String, Object> status() {
                        Map<String, Object> values = new LinkedHashMap<>();
                        values.put("answer", 42L);
                        values.put("ratio", 0.25);
                        values.put("words", "left out");
                        values.put(ServerStatus.LIMITS, Map.of("rate B/s", 2048L));
                        return values;
                    }
                }));

        Exposition metrics = scrape(client());

        assertEquals("untyped", metrics.types().get("quarry_status_value"));
        assertEquals(42, metrics.value("quarry_status_value", "section", TRICKY, "group", "", "name", "answer"));
        assertEquals(0.25, metrics.value("quarry_status_value", "section", TRICKY, "group", "", "name", "ratio"));
        assertEquals(
                2048, metrics.value("quarry_status_value", "section", TRICKY, "group", "limits", "name", "rate B/s"));
        assertFalse(metrics.samples().keySet().stream().anyMatch(key -> key.contains("words")), "strings left out");
        assertTrue(metrics.samples().values().stream()
                .anyMatch(s -> s.name().equals("quarry_info")
                        && s.labels().get("server").equals("the \"quoted\" server")));
    }

    @Test
    void metricsAloneAreEnoughToBuildAServer() throws Exception {
        start(builder -> builder.metrics("/metrics"));

        HttpTestClient.Reply reply = client().send("GET", "/metrics", null);

        assertEquals(200, reply.status());
        assertTrue(reply.text().contains("\n# TYPE quarry_requests_total counter\n"), reply::text);
    }

    @Test
    void aMetricsPathMustStartAndNotEndWithASlash() {
        ServerBuilder builder = Server.builder();
        assertThrows(IllegalArgumentException.class, () -> builder.metrics("metrics"));
        assertThrows(IllegalArgumentException.class, () -> builder.metrics("/metrics/"));
    }

    private static double delta(Exposition before, Exposition after, String name, String... labels) {
        return after.value(name, labels) - before.value(name, labels);
    }
}
