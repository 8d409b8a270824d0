package dev.quarry.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.h1.HttpParserConfig;
import dev.quarry.server.test.HttpTestClient;
import dev.quarry.server.test.ServerTestBase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The status page and {@code status.json} show the configured limits beside the live figures, and name the
 * high-water marks as such.
 */
class StatusLimitsTest extends ServerTestBase {

    /** Every limit set to a value that is no default, so that a value shown can only come from the configuration. */
    private static final Consumer<ServerBuilder> NON_DEFAULT_LIMITS = builder -> builder.selectors(1)
            .minThreads(3)
            .maxThreads(40)
            .reservedThreads(2)
            .maxConcurrentRequests(123)
            .maxQueuedRequests(45)
            .maxConnections(99)
            .acceptQueueSize(77)
            .idleTimeout(Duration.ofSeconds(17))
            .shutdownTimeout(Duration.ofSeconds(7))
            .httpConfig(HttpConfig.DEFAULT.withParser(HttpParserConfig.builder()
                    .maxRequestLineLength(4000)
                    .maxHeaderSize(6000)
                    .maxFieldCount(50)
                    .maxContentLength(1_000_000)
                    .build()))
            .minRequestBodyRate(2048)
            .http2Config(Http2Config.builder()
                    .maxConcurrentStreams(66)
                    .initialStreamWindow(100_000)
                    .connectionWindow(2_000_000)
                    .build());

    private void startWithStatusPage(boolean virtualThreads) throws Exception {
        start(builder -> {
            builder.route("GET /hello", (req, res) -> res.send("hello")).statusPage("/quarry/status");
            NON_DEFAULT_LIMITS.accept(builder);
            builder.virtualThreads(virtualThreads);
        });
    }

    private String get(String path) throws Exception {
        HttpTestClient.Reply reply = client().get(path);
        assertEquals(200, reply.status(), reply::toString);
        return reply.text();
    }

    @Test
    void statusJsonShowsEachSectionsLimitsAfterItsLiveFigures() throws Exception {
        startWithStatusPage(true);

        String json = get("/quarry/status.json");

        assertContains(json, "\"limits\":{\"shutdown timeout ms\":7000}");
        assertContains(json, "\"limits\":{\"min threads\":3,\"max threads\":40,\"reserved threads\":2}");
        assertContains(json, "\"limits\":{\"max concurrent requests\":123,\"max queued requests\":45}");
        assertContains(json, "\"limits\":{\"max connections\":99,\"accept queue\":77}");
        assertContains(
                json,
                "\"limits\":{\"idle timeout ms\":17000,\"h2 max streams\":66,"
                        + "\"h2 stream window\":100000,\"h2 connection window\":2000000,");
        assertContains(json, ",\"min request body rate B/s\":2048}");
        assertContains(
                json,
                "\"limits\":{\"max request line bytes\":4000,\"max header bytes\":6000,\"max header count\":50,"
                        + "\"max content bytes\":1000000}");
    }

    @Test
    void withoutVirtualThreadsThePoolShowsTheBoundOfBlockingRequests() throws Exception {
        startWithStatusPage(false);

        Map<String, Object> pool = server.status().section("thread pool");

        assertEquals(
                Map.of("min threads", 3, "max threads", 40, "reserved threads", 2, "max blocking requests", 168),
                pool.get(ServerStatus.LIMITS));
        assertFalse(server.status().sections().containsKey("virtual threads"));
    }

    @Test
    void highWaterMarksAreNamedAsSuchAndNoOtherLabelSaysMax() throws Exception {
        startWithStatusPage(true);
        assertEquals(200, client().get("/hello").status());

        ServerStatus status = server.status();

        assertEquals(
                List.of("busy", "queue size", "queue latency ms", "task time ms"),
                List.copyOf(group(status.section("thread pool"), ServerStatus.HIGH_WATER_MARKS)
                        .keySet()));
        assertTrue((Integer) group(status.section("virtual threads"), ServerStatus.HIGH_WATER_MARKS)
                        .get("running")
                >= 1);
        Map<?, ?> connector = (Map<?, ?>) ((List<?>) status.sections().get("connectors")).get(0);
        assertTrue((Long) group(connector, ServerStatus.HIGH_WATER_MARKS).get("open") >= 1);
        for (Map.Entry<String, Object> section : status.sections().entrySet()) {
            assertNoLiveLabelSaysMax(section.getKey(), section.getValue());
        }
    }

    @Test
    void statusPageShowsLimitsAndHighWaterMarksUnderHeadingsOfTheirOwn() throws Exception {
        startWithStatusPage(true);

        String html = get("/quarry/status");

        assertContains(html, "<tr><th colspan=\"2\">high-water marks since start</th></tr><tr><td class=\"k\">busy");
        assertContains(html, "<tr><th colspan=\"2\">limits</th></tr>");
        assertContains(html, row("max threads", "40"));
        assertContains(html, row("min threads", "3"));
        assertContains(html, row("reserved threads", "2"));
        assertContains(html, row("max concurrent requests", "123"));
        assertContains(html, row("max queued requests", "45"));
        assertContains(html, row("max connections", "99"));
        assertContains(html, row("idle timeout ms", "17,000"));
        assertContains(html, row("shutdown timeout ms", "7,000"));
        assertContains(html, row("max request line bytes", "4,000"));
        assertContains(html, row("max header bytes", "6,000"));
        assertContains(html, row("max header count", "50"));
        assertContains(html, row("max content bytes", "1,000,000"));
        assertContains(html, row("h2 max streams", "66"));
        assertContains(html, row("h2 stream window", "100,000"));
    }

    @Test
    void anUncappedConnectorAndUnlimitedContentSayHowInWords() throws Exception {
        start(builder -> builder.maxConnections(0).route("GET /hello", (req, res) -> res.send("hello")));

        ServerStatus status = server.status();

        Map<?, ?> connector = (Map<?, ?>) ((List<?>) status.sections().get("connectors")).get(0);
        assertEquals("no cap", group(connector, ServerStatus.LIMITS).get("max connections"));
        assertEquals(
                "unlimited",
                group(status.section("requests"), ServerStatus.LIMITS).get("max content bytes"));
    }

    private static String row(String label, String value) {
        return "<tr><td class=\"k\">" + label + "</td><td class=\"v n\">" + value + "</td></tr>";
    }

    private static Map<?, ?> group(Map<?, ?> section, String group) {
        Object value = section.get(group);
        assertTrue(value instanceof Map<?, ?>, () -> group + " in " + section);
        return (Map<?, ?>) value;
    }

    /** Outside the limits, "max" would be ambiguous: a high-water mark says so, a limit sits under "limits". */
    private static void assertNoLiveLabelSaysMax(String where, Object value) {
        if (value instanceof List<?> list) {
            list.forEach(item -> assertNoLiveLabelSaysMax(where, item));
        } else if (value instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                String label = String.valueOf(entry.getKey());
                if (label.equals(ServerStatus.LIMITS)) {
                    continue;
                }
                assertFalse(label.contains("max"), () -> "label '" + label + "' in " + where);
                assertNoLiveLabelSaysMax(where + " / " + label, entry.getValue());
            }
        }
    }

    private static void assertContains(String text, String expected) {
        assertTrue(text.contains(expected), () -> "expected " + expected + " in\n" + text);
    }
}
