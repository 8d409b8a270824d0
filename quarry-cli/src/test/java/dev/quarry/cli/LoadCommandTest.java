package dev.quarry.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.Server;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code quarry load} against a real server: short, bounded runs. */
class LoadCommandTest {
    private final AtomicInteger served = new AtomicInteger();
    private Server server;

    @BeforeEach
    void start() throws Exception {
        server = Server.builder()
                .http("127.0.0.1", 0)
                .route("GET /hello", (req, res) -> {
                    served.incrementAndGet();
                    res.send("Hello");
                })
                .route("GET /fail", (req, res) -> res.sendError(503, "busy"))
                .build()
                .start();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    private String url(String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    private static long requests(String summary) {
        Matcher matcher = Pattern.compile("requests +([\\d,]+) in").matcher(summary);
        assertTrue(matcher.find(), summary);
        return Long.parseLong(matcher.group(1).replace(",", ""));
    }

    @Test
    void aClosedLoopReportsRequestsLatenciesAndProgress() {
        CliRun run = CliRun.of("load", "-c", "4", "-d", "2s", url("/hello"));
        assertEquals(0, run.status(), run.err());
        long requests = requests(run.out());
        assertTrue(requests > 0, run.out());
        assertEquals(served.get(), requests, "every request counted was served, and the other way round");
        assertTrue(
                run.out().contains("responses    2xx " + String.format(java.util.Locale.ROOT, "%,d", requests)),
                run.out());
        assertTrue(run.out().matches("(?s).*latency +p50 .+ p90 .+ p99 .+ p99\\.9 .+ max .+"), run.out());
        assertTrue(run.out().contains("errors       none"), run.out());
        assertTrue(run.err().contains("4 connections, closed loop"), run.err());
        assertTrue(run.err().contains("  1s "), "a progress line each second: " + run.err());
    }

    @Test
    void anOpenLoopKeepsToItsRate() {
        CliRun run = CliRun.of("load", "-c", "4", "-d", "2s", "--rate", "100", url("/hello"));
        assertEquals(0, run.status(), run.err());
        long requests = requests(run.out());
        // 100 per second for 2 s, each due on the schedule: the last ones may still be in flight at the end.
        assertTrue(requests >= 190 && requests <= 200, run.out());
    }

    @Test
    void errorStatusesAndFailuresAreCountedByKind() {
        CliRun failing = CliRun.of("load", "-c", "2", "-d", "1s", url("/fail"));
        assertTrue(failing.out().contains("responses    5xx"), failing.out());

        CliRun refused = CliRun.of("load", "-c", "2", "-d", "1s", "http://127.0.0.1:1/");
        assertEquals(1, refused.status(), "nothing succeeded");
        assertTrue(refused.out().matches("(?s).*errors +[\\d,]+ connect.*"), refused.out());
    }

    @Test
    void mistakesAreNamed() {
        assertEquals(2, CliRun.of("load").status());
        CliRun streams = CliRun.of("load", "-m", "32", url("/hello"));
        assertEquals(2, streams.status());
        assertTrue(streams.err().contains("needs --http2"), streams.err());
    }

    @Test
    void http2MultiplexesStreamsOnFewConnections() {
        CliRun run = CliRun.of("load", "--http2", "-c", "2", "-m", "8", "-d", "1s", url("/hello"));
        assertEquals(0, run.status(), run.err());
        assertTrue(run.err().contains("2 connections (HTTP/2, 8 streams each)"), run.err());
        assertTrue(requests(run.out()) > 0, run.out());
        assertTrue(run.out().contains("errors       none"), run.out());
    }
}
