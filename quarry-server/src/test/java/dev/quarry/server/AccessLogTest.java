package dev.quarry.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpFields;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.server.handlers.RequestId;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.Transport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class AccessLogTest extends ServerTestBase {
    private static final byte[] HELLO = "hello\n".getBytes(StandardCharsets.US_ASCII);

    /** The combined format, one group per field (quoted fields still escaped). */
    private static final Pattern COMBINED = Pattern.compile("(\\S+) - - \\[([^]]+)] \"((?:[^\"\\\\]|\\\\.)*)\" (\\d{3})"
            + " (\\d+|-) \"((?:[^\"\\\\]|\\\\.)*)\" \"((?:[^\"\\\\]|\\\\.)*)\" (\\d+)"
            + " \"((?:[^\"\\\\]|\\\\.)*)\" ([X-])");

    private static final DateTimeFormatter NCSA_TIME = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.US);

    private final ByteArrayOutputStream output = new ByteArrayOutputStream();

    /** A non-blocking route that answers 6 bytes, with a request id filter before it. */
    private Server startLogged(Transport transport, AccessLog log) throws IOException {
        return start(
                transport,
                builder -> builder.filter(RequestId.filter())
                        .accessLog(log)
                        .route("GET /hello", AsyncHandler.nonBlocking((req, res, callback) -> {
                            res.header("Content-Type", "text/plain");
                            res.write(true, ByteBuffer.wrap(HELLO), callback);
                        })));
    }

    /** Sends {@code GET target} with Referer, User-Agent and X-Request-Id, over HTTP/1.1 or HTTP/2. */
    private int get(String target, String userAgent) throws IOException {
        if (transport.http2()) {
            Http2TestClient h2 = track(Http2TestClient.connect(transport.address(server)));
            HttpFields fields = new HttpFields()
                    .add("referer", "http://example.com/page")
                    .add("user-agent", userAgent)
                    .add("x-request-id", "req-42");
            return h2.awaitResponse(h2.request("GET", target, fields, null), WAIT)
                    .status();
        }
        RawClient client = connect();
        RawResponse response = client.send("GET " + target + " HTTP/1.1\r\nHost: test\r\n"
                        + "Referer: http://example.com/page\r\nUser-Agent: " + userAgent + "\r\n"
                        + "X-Request-Id: req-42\r\n\r\n")
                .readResponse();
        return response.status();
    }

    private List<String> awaitLines(AccessLog log, int count) {
        await("" + count + " lines written", () -> log.written() >= count, log::toString);
        List<String> lines = output.toString(StandardCharsets.US_ASCII).lines().toList();
        assertEquals(count, lines.size(), lines::toString);
        return lines;
    }

    @ParameterizedTest
    @EnumSource(
            value = Transport.class,
            names = {"TCP", "H2C"})
    void combinedLineHasEveryField(Transport transport) throws Exception {
        AccessLog log =
                AccessLog.builder().stream(output).zone(ZoneOffset.ofHours(2)).build();
        startLogged(transport, log);
        long before = System.currentTimeMillis() / 1000 * 1000;

        assertEquals(200, get("/hello?x=1", "curl/8.5.0"));

        Matcher line = COMBINED.matcher(awaitLines(log, 1).get(0));
        assertTrue(line.matches(), line::toString);
        String protocol = transport.http2() ? "HTTP/2.0" : "HTTP/1.1";
        assertEquals("127.0.0.1", line.group(1));
        OffsetDateTime time = OffsetDateTime.parse(line.group(2), NCSA_TIME);
        assertEquals(ZoneOffset.ofHours(2), time.getOffset());
        assertTrue(time.toInstant().toEpochMilli() >= before, line.group(2));
        assertTrue(time.toInstant().isBefore(Instant.now().plusSeconds(1)), line.group(2));
        assertEquals("GET /hello?x=1 " + protocol, line.group(3));
        assertEquals("200", line.group(4));
        assertEquals("6", line.group(5));
        assertEquals("http://example.com/page", line.group(6));
        assertEquals("curl/8.5.0", line.group(7));
        assertTrue(Long.parseLong(line.group(8)) < WAIT.toNanos() / 1000, line.group(8));
        assertEquals("req-42", line.group(9));
        assertEquals("-", line.group(10));
    }

    @ParameterizedTest
    @EnumSource(
            value = Transport.class,
            names = {"TCP", "H2C"})
    void jsonLineHasEveryField(Transport transport) throws Exception {
        AccessLog log = AccessLog.toStream(output, AccessLog.Format.JSON);
        startLogged(transport, log);
        Instant before = Instant.now().minusMillis(1);

        assertEquals(200, get("/hello?x=1", "curl/8.5.0"));

        Map<String, Object> json = parseJson(awaitLines(log, 1).get(0));
        assertEquals(
                List.of(
                        "time",
                        "client",
                        "method",
                        "target",
                        "protocol",
                        "status",
                        "bytes",
                        "duration_us",
                        "referer",
                        "user_agent",
                        "request_id",
                        "aborted"),
                List.copyOf(json.keySet()));
        Instant time = Instant.parse((String) json.get("time"));
        assertTrue(!time.isBefore(before) && time.isBefore(Instant.now()), json.toString());
        assertTrue(((String) json.get("time")).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z"));
        assertEquals("127.0.0.1", json.get("client"));
        assertEquals("GET", json.get("method"));
        assertEquals("/hello?x=1", json.get("target"));
        assertEquals(transport.http2() ? "HTTP/2.0" : "HTTP/1.1", json.get("protocol"));
        assertEquals(200L, json.get("status"));
        assertEquals(6L, json.get("bytes"));
        assertTrue((Long) json.get("duration_us") >= 0, json.toString());
        assertEquals("http://example.com/page", json.get("referer"));
        assertEquals("curl/8.5.0", json.get("user_agent"));
        assertEquals("req-42", json.get("request_id"));
        assertEquals(false, json.get("aborted"));
    }

    @Test
    void absentFieldsAreADashInCombinedAndNullInJson() throws Exception {
        AccessLog log = AccessLog.toStream(output, AccessLog.Format.JSON);
        start(builder -> builder.accessLog(log).route("GET /empty", (req, res) -> {}));

        RawResponse response =
                connect().send("GET /empty HTTP/1.1\r\nHost: test\r\n\r\n").readResponse();

        assertEquals(200, response.status());
        Map<String, Object> json = parseJson(awaitLines(log, 1).get(0));
        assertEquals(0L, json.get("bytes"));
        assertNull(json.get("referer"));
        assertNull(json.get("user_agent"));
        assertNull(json.get("request_id"));
    }

    @Test
    void hostileUserAgentCannotBreakOrForgeACombinedLine() throws Exception {
        AccessLog log = AccessLog.toStream(output, AccessLog.Format.COMBINED);
        startLogged(Transport.TCP, log);
        // A quote and fake fields to end the field early, a backslash, a tab, and UTF-8 bytes (read as Latin-1).
        String hostile = "x\" 200 1 \"-\" \"forged\\\t\u00c3\u00a9";

        assertEquals(200, get("/hello?q=%22a%22", hostile));

        String line = awaitLines(log, 1).get(0);
        Matcher fields = COMBINED.matcher(line);
        assertTrue(fields.matches(), line);
        assertEquals("x\\\" 200 1 \\\"-\\\" \\\"forged\\\\\\x09\\xc3\\xa9", fields.group(7), line);
        assertEquals("GET /hello?q=%22a%22 HTTP/1.1", fields.group(3));
        assertTrue(line.chars().allMatch(c -> c >= 0x20 && c < 0x7F), line);
    }

    @Test
    void hostileUserAgentIsEscapedAsJson() throws Exception {
        AccessLog log = AccessLog.toStream(output, AccessLog.Format.JSON);
        startLogged(Transport.TCP, log);
        String hostile = "x\",\"status\":999,\"a\":\"\\\t\u00c3\u00a9";

        assertEquals(200, get("/hello", hostile));

        String line = awaitLines(log, 1).get(0);
        assertTrue(
                line.contains("\"user_agent\":\"x\\\",\\\"status\\\":999,\\\"a\\\":\\\"\\\\\\t\\u00c3\\u00a9\""), line);
        Map<String, Object> json = parseJson(line);
        assertEquals(hostile, json.get("user_agent"));
        assertEquals(200L, json.get("status"));
        assertTrue(line.chars().allMatch(c -> c >= 0x20 && c < 0x7F), line);
    }

    @Test
    void aFailedHandlerIsLoggedWithTheErrorStatusAndAnAbortAfterCommit() throws Exception {
        AccessLog log = AccessLog.toStream(output, AccessLog.Format.JSON);
        start(builder -> builder.accessLog(log)
                .route("GET /fail", AsyncHandler.nonBlocking((req, res, callback) -> {
                    callback.failed(new IllegalStateException("test: handler failure"));
                }))
                .route("GET /abort", AsyncHandler.nonBlocking((req, res, callback) -> {
                    res.status(202);
                    res.write(
                            false,
                            ByteBuffer.wrap(HELLO),
                            dev.quarry.core.Callback.from(
                                    InvocationType.NON_BLOCKING,
                                    () -> callback.failed(new IllegalStateException("test: failure after commit")),
                                    callback::failed));
                })));

        assertEquals(
                500,
                connect()
                        .send("GET /fail HTTP/1.1\r\nHost: test\r\n\r\n")
                        .readResponse()
                        .status());
        connect().send("GET /abort HTTP/1.1\r\nHost: test\r\n\r\n"); // its head and 6 bytes, then the close

        List<String> lines = awaitLines(log, 2);
        Map<String, Object> fail = parseJson(
                lines.stream().filter(l -> l.contains("/fail")).findFirst().orElseThrow());
        assertEquals(500L, fail.get("status"));
        assertEquals(false, fail.get("aborted"));
        Map<String, Object> abort = parseJson(
                lines.stream().filter(l -> l.contains("/abort")).findFirst().orElseThrow());
        assertEquals(202L, abort.get("status"));
        assertEquals(6L, abort.get("bytes"));
        assertEquals(true, abort.get("aborted"));
    }

    @Test
    void theLogIsOutermostWhateverTheOrderOfTheBuildersCalls() throws Exception {
        AccessLog log = AccessLog.toStream(output, AccessLog.Format.JSON);
        start(builder -> builder.filter(Filter.nonBlocking((req, res, callback, next) -> {
                    res.status(403);
                    res.write(true, ByteBuffer.wrap(HELLO), callback); // answers before any route
                }))
                .route("GET /hello", (req, res) -> res.send("hello\n"))
                .accessLog(log));

        assertEquals(
                403,
                connect()
                        .send("GET /hello HTTP/1.1\r\nHost: test\r\n\r\n")
                        .readResponse()
                        .status());

        Map<String, Object> json = parseJson(awaitLines(log, 1).get(0));
        assertEquals(403L, json.get("status"));
        assertEquals(6L, json.get("bytes"));
    }

    @Test
    void aFullQueueDropsLinesAndCountsThemWithoutBlockingTheServer() throws Exception {
        GatedOutput gated = new GatedOutput();
        AccessLog log = AccessLog.builder().stream(gated).queueCapacity(4).build();
        startLogged(Transport.TCP, log);
        RawClient client = connect();
        String request = "GET /hello HTTP/1.1\r\nHost: test\r\n\r\n";

        assertEquals(200, client.send(request).readResponse().status());
        assertTrue(gated.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the writer never wrote");
        // The writer is held in its write: 4 lines fill the queue, the 3 after them are dropped.
        for (int i = 0; i < 7; i++) {
            assertEquals(200, client.send(request).readResponse().status());
        }
        await("3 lines dropped", () -> log.dropped() == 3, log::toString);
        assertEquals(4, log.queued());
        assertTrue(log.toString().contains("dropped=3"), log::toString);

        gated.release.countDown();
        await("5 lines written", () -> log.written() == 5, log::toString);
        assertEquals(5, gated.lines());
        assertEquals(3, log.dropped());
    }

    @Test
    void stoppingTheServerWritesEveryQueuedLineAndFlushes() throws Exception {
        GatedOutput gated = new GatedOutput();
        AccessLog log = AccessLog.toStream(gated, AccessLog.Format.COMBINED);
        startLogged(Transport.TCP, log);
        RawClient client = connect();
        String request = "GET /hello HTTP/1.1\r\nHost: test\r\n\r\n";
        assertEquals(200, client.send(request).readResponse().status());
        assertTrue(gated.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the writer never wrote");
        for (int i = 0; i < 5; i++) {
            assertEquals(200, client.send(request).readResponse().status());
        }
        await("5 lines queued behind the held writer", () -> log.queued() == 5, log::toString);
        client.close();

        Thread stopper = Thread.ofPlatform().start(() -> {
            try {
                server.stop();
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
        });
        gated.release.countDown();
        stopper.join(WAIT.toMillis());

        assertFalse(log.isRunning());
        assertEquals(6, log.written());
        assertEquals(6, gated.lines());
        assertTrue(gated.flushes.get() > 0, "never flushed");
        assertFalse(gated.closed, "a given stream is not closed");
    }

    @Test
    void aFileLogIsAppendedToAndHasEveryLineAfterStop() throws Exception {
        Path file = tempDir.resolve("access.log");
        Files.writeString(file, "earlier line\n");
        AccessLog log = AccessLog.toFile(file);
        startLogged(Transport.TCP, log);
        RawClient client = connect();
        for (int i = 0; i < 3; i++) {
            assertEquals(
                    200,
                    client.send("GET /hello HTTP/1.1\r\nHost: test\r\n\r\n")
                            .readResponse()
                            .status());
        }
        await("3 lines written", () -> log.written() == 3, log::toString);

        server.stop();

        List<String> lines = Files.readAllLines(file);
        assertEquals(4, lines.size(), lines::toString);
        assertEquals("earlier line", lines.get(0));
        assertTrue(COMBINED.matcher(lines.get(3)).matches(), lines.get(3));
        assertTrue(server.toString().contains("AccessLog"), server::toString);
    }

    @Test
    void theStatusPageCountsWrittenAndDroppedLines() throws Exception {
        AccessLog log = AccessLog.toStream(output, AccessLog.Format.COMBINED);
        start(builder -> builder.accessLog(log).statusPage("/status"));

        assertEquals(
                200,
                connect()
                        .send("GET /status.json HTTP/1.1\r\nHost: test\r\n\r\n")
                        .readResponse()
                        .status());
        awaitLines(log, 1);

        @SuppressWarnings("unchecked")
        Map<String, Object> section =
                (Map<String, Object>) server.status().sections().get("access log");
        assertEquals("combined", section.get("format"));
        assertEquals(1L, section.get("written"));
        assertEquals(0L, section.get("dropped"));
    }

    /** An output whose first write waits for {@link #release}: holds the writer thread, and only it. */
    private static final class GatedOutput extends OutputStream {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger flushes = new AtomicInteger();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        volatile boolean closed;

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            entered.countDown();
            try {
                if (!release.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                    throw new IOException("test: never released");
                }
            } catch (InterruptedException x) {
                throw new UncheckedIOException(new IOException(x));
            }
            synchronized (bytes) {
                bytes.write(b, off, len);
            }
        }

        @Override
        public void flush() {
            flushes.incrementAndGet();
        }

        @Override
        public void close() {
            closed = true;
        }

        int lines() {
            synchronized (bytes) {
                return (int) bytes.toString(StandardCharsets.US_ASCII).lines().count();
            }
        }
    }

    /** Parses one flat JSON object (strings, integers, booleans, null): enough to read a line back, strictly. */
    static Map<String, Object> parseJson(String text) {
        Map<String, Object> object = new LinkedHashMap<>();
        int[] at = {0};
        expect(text, at, '{');
        while (true) {
            String key = (String) value(text, at);
            expect(text, at, ':');
            object.put(key, value(text, at));
            if (text.charAt(at[0]) == '}') {
                at[0]++;
                break;
            }
            expect(text, at, ',');
        }
        assertEquals(text.length(), at[0], () -> "trailing characters in " + text);
        return object;
    }

    private static void expect(String text, int[] at, char c) {
        assertEquals(c, text.charAt(at[0]), () -> "at " + at[0] + " of " + text);
        at[0]++;
    }

    private static Object value(String text, int[] at) {
        char c = text.charAt(at[0]);
        if (c == '"') {
            StringBuilder value = new StringBuilder();
            at[0]++;
            while ((c = text.charAt(at[0]++)) != '"') {
                if (c != '\\') {
                    value.append(c);
                    continue;
                }
                char e = text.charAt(at[0]++);
                switch (e) {
                    case 'n' -> value.append('\n');
                    case 'r' -> value.append('\r');
                    case 't' -> value.append('\t');
                    case 'b' -> value.append('\b');
                    case 'f' -> value.append('\f');
                    case 'u' -> {
                        value.append((char) Integer.parseInt(text.substring(at[0], at[0] + 4), 16));
                        at[0] += 4;
                    }
                    default -> value.append(e);
                }
            }
            return value.toString();
        }
        for (String literal : new String[] {"null", "true", "false"}) {
            if (text.startsWith(literal, at[0])) {
                at[0] += literal.length();
                return literal.equals("null") ? null : Boolean.valueOf(literal);
            }
        }
        int start = at[0];
        while (at[0] < text.length() && (Character.isDigit(text.charAt(at[0])) || text.charAt(at[0]) == '-')) {
            at[0]++;
        }
        return Long.parseLong(text.substring(start, at[0]));
    }
}
