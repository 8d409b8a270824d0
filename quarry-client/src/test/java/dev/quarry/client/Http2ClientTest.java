package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.server.Http2Config;
import dev.quarry.server.Server;
import dev.quarry.server.test.TestCertificates;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The client over HTTP/2 (h2c by prior knowledge) against a real Quarry server, and against a raw fake. */
@ExtendWith(LeakTrackingPoolExtension.class)
class Http2ClientTest {
    private static final int BIG = 8 * 1024 * 1024;

    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private Server server;
    private HttpClient client;

    private void startServer(Http2Config http2) throws Exception {
        server = Server.builder()
                .http("127.0.0.1", 0)
                .http2Config(http2)
                .idleTimeout(Duration.ofSeconds(30))
                .route("GET /hello", (req, res) -> res.send("Hello over " + req.version()))
                .route("POST /echo", (req, res) -> res.send(req.bodyAsString()))
                .route("POST /count", (req, res) -> {
                    long count = 0;
                    try (InputStream in = req.inputStream()) {
                        byte[] buffer = new byte[64 * 1024];
                        int n;
                        while ((n = in.read(buffer)) >= 0) {
                            count += n;
                        }
                    }
                    res.send(Long.toString(count));
                })
                .route("GET /big", (req, res) -> {
                    res.header("Content-Length", Integer.toString(BIG));
                    try (OutputStream out = res.outputStream()) {
                        for (int i = 0; i < BIG / 65536; i++) {
                            out.write(block());
                        }
                    }
                })
                .route("GET /busy", (req, res) -> {
                    int now = inFlight.incrementAndGet();
                    maxInFlight.accumulateAndGet(now, Math::max);
                    try {
                        Thread.sleep(5); // keeps streams open long enough for requests to pile up
                    } finally {
                        inFlight.decrementAndGet();
                    }
                    res.send("busy");
                })
                .build()
                .start();
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.stop();
        }
    }

    private static byte[] block() {
        byte[] block = new byte[65536];
        for (int i = 0; i < block.length; i++) {
            block[i] = (byte) i;
        }
        return block;
    }

    private HttpClient client(ByteBufferPool pool, HttpClient.Builder builder) {
        client = builder.http2(true).bufferPool(pool).build();
        return client;
    }

    private String uri(String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    /** @return why a GET of {@code uri} failed, which must say {@code problem} */
    private Throwable assertFailsWith(String uri, String problem) {
        ExecutionException failed = assertThrows(
                ExecutionException.class,
                () -> client.sendAsync(HttpRequest.get(uri)).get(10, TimeUnit.SECONDS));
        assertTrue(
                failed.getCause().getMessage().contains(problem),
                failed.getCause().toString());
        return failed.getCause();
    }

    private DestinationStatistics stats() {
        return client.statistics().get(0);
    }

    @Test
    void getsOverH2cByPriorKnowledge(ByteBufferPool pool) throws Exception {
        startServer(Http2Config.builder().build());
        client(pool, HttpClient.builder());
        HttpResponse response = client.send(HttpRequest.get(uri("/hello")));
        assertEquals(200, response.status());
        assertEquals(HttpVersion.HTTP_2, response.version());
        assertEquals("Hello over HTTP/2.0", response.asString());
        assertTrue(response.headers().get("Content-Length").isPresent());
    }

    @Test
    void upgradesH2cFromHttp11AndGoesOnOverHttp2(ByteBufferPool pool) throws Exception {
        startServer(Http2Config.builder().build());
        client(pool, HttpClient.builder().h2cUpgrade(true));
        HttpResponse first = client.send(HttpRequest.get(uri("/hello")));
        assertEquals(HttpVersion.HTTP_2, first.version(), "the 101 made the response arrive on stream 1");
        assertTrue(first.asString().startsWith("Hello over HTTP/"));
        for (int i = 0; i < 5; i++) {
            HttpResponse next = client.send(HttpRequest.get(uri("/hello")));
            assertEquals(HttpVersion.HTTP_2, next.version());
            assertEquals("Hello over HTTP/2.0", next.asString());
        }
        HttpRequest post = HttpRequest.newBuilder(uri("/echo"))
                .POST(RequestBody.of("after the upgrade"))
                .build();
        assertEquals("after the upgrade", client.send(post).asString());
        assertEquals(1, stats().opened(), client.toString());
    }

    @Test
    void aFirstRequestWithABodyDoesNotOfferTheUpgrade(ByteBufferPool pool) throws Exception {
        startServer(Http2Config.builder().build());
        client(pool, HttpClient.builder().h2cUpgrade(true).maxConnectionsPerDestination(1));
        HttpRequest post = HttpRequest.newBuilder(uri("/echo"))
                .POST(RequestBody.of("body first"))
                .build();
        HttpResponse response = client.send(post);
        assertEquals(HttpVersion.HTTP_1_1, response.version());
        assertEquals("body first", response.asString());
        assertEquals(
                "Hello over HTTP/1.1",
                client.send(HttpRequest.get(uri("/hello"))).asString());
    }

    @Test
    void postsABodyAndReusesTheConnection(ByteBufferPool pool) throws Exception {
        startServer(Http2Config.builder().build());
        client(pool, HttpClient.builder());
        for (int i = 0; i < 10; i++) {
            HttpRequest request = HttpRequest.newBuilder(uri("/echo"))
                    .POST(RequestBody.of("ping " + i))
                    .build();
            assertEquals("ping " + i, client.send(request).asString());
        }
        assertEquals(1, stats().opened(), client.toString());
    }

    @Test
    void largeBodiesFlowBothWaysUnderFlowControl(ByteBufferPool pool) throws Exception {
        startServer(Http2Config.builder().build());
        client(pool, HttpClient.builder());
        byte[] upload = new byte[BIG];
        HttpRequest post = HttpRequest.newBuilder(uri("/count"))
                .POST(RequestBody.of(upload))
                .build();
        assertEquals(Integer.toString(BIG), client.send(post).asString());
        HttpRequest streamed = HttpRequest.newBuilder(uri("/count"))
                .POST(RequestBody.ofStream(new ByteArrayInputStream(upload)))
                .build();
        assertEquals(Integer.toString(BIG), client.send(streamed).asString());
        byte[] download = client.send(HttpRequest.get(uri("/big"))).asBytes();
        assertEquals(BIG, download.length);
        byte[] expected = block();
        for (int i = 0; i < BIG; i += 65536) {
            assertArrayEquals(expected, java.util.Arrays.copyOfRange(download, i, i + 65536));
        }
    }

    @Test
    void aSlowReaderHoldsUpOnlyItsOwnStream(ByteBufferPool pool) throws Exception {
        startServer(Http2Config.builder().build());
        client(pool, HttpClient.builder().maxConnectionsPerDestination(1));
        try (HttpResponse unread = client.send(HttpRequest.get(uri("/big")))) {
            assertEquals(200, unread.status());
            // The unread stream's window closes; the connection's does not, so another stream still flows.
            for (int i = 0; i < 5; i++) {
                assertEquals(
                        "Hello over HTTP/2.0",
                        client.send(HttpRequest.get(uri("/hello"))).asString());
            }
            assertEquals(1, stats().opened());
            byte[] first = new byte[10];
            assertEquals(10, unread.body().readNBytes(first, 0, 10));
        }
    }

    @Test
    void manyConcurrentRequestsShareOneConnection(ByteBufferPool pool) throws Exception {
        startServer(Http2Config.builder().build());
        client(pool, HttpClient.builder().maxConnectionsPerDestination(1));
        List<CompletableFuture<HttpResponse>> responses = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            responses.add(client.sendAsync(HttpRequest.get(uri("/hello"))));
        }
        for (CompletableFuture<HttpResponse> response : responses) {
            assertEquals(
                    "Hello over HTTP/2.0", response.get(20, TimeUnit.SECONDS).asString());
        }
        assertEquals(1, stats().opened(), client.toString());
    }

    @Test
    void requestsBeyondMaxConcurrentStreamsWaitForAStream(ByteBufferPool pool) throws Exception {
        startServer(Http2Config.builder().maxConcurrentStreams(2).build());
        client(pool, HttpClient.builder().maxConnectionsPerDestination(1));
        List<CompletableFuture<HttpResponse>> responses = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            responses.add(client.sendAsync(HttpRequest.get(uri("/busy"))));
        }
        for (CompletableFuture<HttpResponse> response : responses) {
            HttpResponse done = response.get(30, TimeUnit.SECONDS);
            assertEquals(200, done.status());
            assertEquals("busy", done.asString());
        }
        assertEquals(1, stats().opened(), client.toString());
        assertTrue(maxInFlight.get() <= 2, "at most 2 streams at once, saw " + maxInFlight.get());
    }

    @Test
    void aResetFailsOneRequestAndTheConnectionServesTheNext(ByteBufferPool pool) throws Exception {
        try (FakeH2Server fake = new FakeH2Server(new Http2Settings(), (connection, streamId, head, out) -> {
            if (head.path().equals("/reset")) {
                out.reset(streamId, ErrorCode.INTERNAL_ERROR);
            } else {
                out.headers(streamId, 200, false);
                out.data(streamId, "fine", true);
            }
        })) {
            client(pool, HttpClient.builder());
            Throwable failed = assertFailsWith(fake.uri("/reset"), "reset the stream");
            assertTrue(failed instanceof IOException, failed.toString());
            assertTrue(failed.getMessage().contains("INTERNAL_ERROR"), failed.getMessage());
            assertEquals("fine", client.send(HttpRequest.get(fake.uri("/ok"))).asString());
            assertEquals(1, fake.accepted.get());
        }
    }

    @Test
    void aRequestTheServerWentAwayBeforeIsRetriedOnANewConnection(ByteBufferPool pool) throws Exception {
        try (FakeH2Server fake = new FakeH2Server(new Http2Settings(), (connection, streamId, head, out) -> {
            if (connection == 0) {
                out.goAway(0, ErrorCode.NO_ERROR); // processed nothing: the client may retry elsewhere
            } else {
                out.headers(streamId, 200, false);
                out.data(streamId, "second connection", true);
            }
        })) {
            client(pool, HttpClient.builder());
            assertEquals(
                    "second connection",
                    client.send(HttpRequest.get(fake.uri("/x"))).asString());
            assertEquals(2, fake.accepted.get());
        }
    }

    @Test
    void aGoAwayMidResponseFailsTheRequestClearly(ByteBufferPool pool) throws Exception {
        try (FakeH2Server fake = new FakeH2Server(new Http2Settings(), (connection, streamId, head, out) -> {
            if (head.path().equals("/cut")) {
                out.headers(streamId, 200, false);
                out.data(streamId, "part", false);
                out.goAway(streamId, ErrorCode.INTERNAL_ERROR);
                throw new IOException("closing"); // the fake closes the connection
            }
            out.headers(streamId, 200, false);
            out.data(streamId, "fine", true);
        })) {
            client(pool, HttpClient.builder());
            HttpResponse response = client.send(HttpRequest.get(fake.uri("/cut")));
            IOException failed = assertThrows(IOException.class, response::asString);
            assertTrue(failed.getMessage().contains("closed"), failed.getMessage());
            assertEquals(
                    "fine", client.send(HttpRequest.get(fake.uri("/after"))).asString());
        }
    }

    @Test
    void aResponseBeforeTheWholeRequestEndsTheStreamAndFreesIt(ByteBufferPool pool) throws Exception {
        try (FakeH2Server fake = new FakeH2Server(
                new Http2Settings().set(Http2Settings.MAX_CONCURRENT_STREAMS, 1), (connection, streamId, head, out) -> {
                    // Answers at once, reading nothing: the client's writer waits for window it never gets.
                    out.headers(streamId, 200, false);
                    out.data(streamId, head.path(), true);
                })) {
            client(pool, HttpClient.builder().maxConnectionsPerDestination(1));
            HttpRequest upload = HttpRequest.newBuilder(fake.uri("/early"))
                    .POST(RequestBody.of(new byte[1024 * 1024]))
                    .build();
            assertEquals("/early", client.send(upload).asString());
            HttpResponse next =
                    client.sendAsync(HttpRequest.get(fake.uri("/next"))).get(10, TimeUnit.SECONDS);
            assertEquals("/next", next.asString());
            assertEquals(1, fake.accepted.get());
        }
    }

    @Test
    void aLargeHeadGoesInContinuationFramesAndTrailersArrive(ByteBufferPool pool) throws Exception {
        try (FakeH2Server fake = new FakeH2Server(new Http2Settings(), (connection, streamId, head, out) -> {
            out.headers(streamId, 200, false);
            out.data(
                    streamId,
                    Integer.toString(head.fields().get("x-big").orElse("").length()),
                    false);
            out.trailers(streamId, new HttpFields().add("x-checksum", "abc"));
        })) {
            client(pool, HttpClient.builder());
            String big = "v".repeat(40_000); // over two 16 KiB frames: HEADERS and CONTINUATION
            HttpResponse response = client.send(HttpRequest.newBuilder(fake.uri("/head"))
                    .header("X-Big", big)
                    .build());
            assertEquals("40000", response.asString());
            assertEquals("abc", response.trailers().get("x-checksum").orElseThrow());
        }
    }

    @Test
    void aProtocolErrorFailsTheConnectionsRequestsAndANewConnectionServesTheNext(ByteBufferPool pool) throws Exception {
        try (FakeH2Server fake = new FakeH2Server(new Http2Settings(), (connection, streamId, head, out) -> {
            if (connection == 0) {
                out.headers(streamId + 2, 200, true); // a stream the client never opened
            } else {
                out.headers(streamId, 200, false);
                out.data(streamId, "fresh", true);
            }
        })) {
            client(pool, HttpClient.builder());
            assertTrue(assertFailsWith(fake.uri("/bad"), "PROTOCOL_ERROR") instanceof BadResponseException);
            assertEquals(
                    "fresh", client.send(HttpRequest.get(fake.uri("/good"))).asString());
            assertEquals(2, fake.accepted.get());
        }
    }

    @Test
    void aSettingsChangeThatOverflowsAStreamWindowIsAFlowControlError(ByteBufferPool pool) throws Exception {
        // RFC 9113 6.9.2: a new SETTINGS_INITIAL_WINDOW_SIZE that pushes an open stream's window past 2^31-1 is a
        // connection error of type FLOW_CONTROL_ERROR.
        try (FakeH2Server fake = new FakeH2Server(new Http2Settings(), (connection, streamId, head, out) -> {
            if (connection == 0) {
                out.windowUpdate(streamId, Integer.MAX_VALUE - Http2Settings.DEFAULT_INITIAL_WINDOW_SIZE);
                out.settings(new Http2Settings()
                        .set(Http2Settings.INITIAL_WINDOW_SIZE, Http2Settings.DEFAULT_INITIAL_WINDOW_SIZE + 1));
            } else {
                out.headers(streamId, 200, false);
                out.data(streamId, "fresh", true);
            }
        })) {
            client(pool, HttpClient.builder());
            assertFailsWith(fake.uri("/bad"), "FLOW_CONTROL_ERROR");
            InteropLoad.await(() -> !fake.goAways.isEmpty(), "the client's GOAWAY");
            assertEquals("0 FLOW_CONTROL_ERROR", fake.goAways.peek(), "a client processes no server-initiated stream");
            assertEquals(
                    "fresh", client.send(HttpRequest.get(fake.uri("/good"))).asString());
        }
    }

    @Test
    void aSilentServerTimesOutTheRequest(ByteBufferPool pool) throws Exception {
        try (FakeH2Server fake = new FakeH2Server(new Http2Settings(), (connection, streamId, head, out) -> {})) {
            client(pool, HttpClient.builder().idleTimeout(Duration.ofMillis(500)));
            ExecutionException failed = assertThrows(
                    ExecutionException.class,
                    () -> client.sendAsync(HttpRequest.get(fake.uri("/never"))).get(10, TimeUnit.SECONDS));
            assertTrue(failed.getCause() instanceof java.net.SocketTimeoutException, failed.toString());
        }
    }

    @Test
    void streamsNeverExceedTheFakeServersLimit(ByteBufferPool pool) throws Exception {
        AtomicInteger open = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        try (FakeH2Server fake = new FakeH2Server(
                new Http2Settings().set(Http2Settings.MAX_CONCURRENT_STREAMS, 1), (connection, streamId, head, out) -> {
                    most.accumulateAndGet(open.incrementAndGet(), Math::max);
                    out.headers(streamId, 200, false);
                    open.decrementAndGet();
                    out.data(streamId, "one at a time", true);
                })) {
            client(pool, HttpClient.builder().maxConnectionsPerDestination(1));
            List<CompletableFuture<HttpResponse>> responses = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                responses.add(client.sendAsync(HttpRequest.get(fake.uri("/" + i))));
            }
            for (CompletableFuture<HttpResponse> response : responses) {
                assertEquals("one at a time", response.get(20, TimeUnit.SECONDS).asString());
            }
            assertEquals(1, most.get());
            assertEquals(1, fake.accepted.get());
        }
    }

    // Repeated: the preface once went out after a SETTINGS ACK in about one connection in three; and the client once
    // dropped a read wake-up that TLS delivered on another thread before the reader had left, so that about one
    // connection in 20 on a loaded machine never read the response (see Http2ConnectionWakeUpTest).
    @RepeatedTest(10)
    void negotiatesH2ByAlpnOverTls(ByteBufferPool pool) throws Exception {
        TestCertificates certificates = TestCertificates.ec();
        server = Server.builder()
                .https("127.0.0.1", 0, tls -> tls.keyStore(certificates.keyStore(), TestCertificates.PASSWORD))
                .route("GET /hello", (req, res) -> res.send("Hello over " + req.scheme() + " " + req.version()))
                .route("POST /count", (req, res) -> {
                    try (InputStream in = req.inputStream()) {
                        res.send(Long.toString(in.transferTo(OutputStream.nullOutputStream())));
                    }
                })
                .build()
                .start();
        client(pool, HttpClient.builder().sslContext(certificates.clientContext()));
        String base = "https://localhost:" + server.port();
        HttpResponse response = client.send(HttpRequest.get(base + "/hello"));
        assertEquals(HttpVersion.HTTP_2, response.version());
        assertEquals("Hello over https HTTP/2.0", response.asString());
        HttpRequest post = HttpRequest.newBuilder(base + "/count")
                .POST(RequestBody.of(new byte[BIG]))
                .build();
        assertEquals(Integer.toString(BIG), client.send(post).asString());
        assertEquals(1, stats().opened());
    }

    @Test
    void withoutHttp2TheClientOffersOnlyHttp11OverTls(ByteBufferPool pool) throws Exception {
        TestCertificates certificates = TestCertificates.ec();
        server = Server.builder()
                .https("127.0.0.1", 0, tls -> tls.keyStore(certificates.keyStore(), TestCertificates.PASSWORD))
                .route("GET /hello", (req, res) -> res.send("Hello over " + req.version()))
                .build()
                .start();
        client = HttpClient.builder()
                .sslContext(certificates.clientContext())
                .bufferPool(pool)
                .build();
        HttpResponse response = client.send(HttpRequest.get("https://localhost:" + server.port() + "/hello"));
        assertEquals("Hello over HTTP/1.1", response.asString());
    }

    @Test
    void closingAResponseEarlyResetsOnlyItsStream(ByteBufferPool pool) throws Exception {
        startServer(Http2Config.builder().build());
        client(pool, HttpClient.builder().maxConnectionsPerDestination(1));
        HttpResponse response = client.send(HttpRequest.get(uri("/big")));
        byte[] some = new byte[100];
        assertEquals(100, response.body().readNBytes(some, 0, 100));
        response.close();
        assertEquals(
                "Hello over HTTP/2.0",
                client.send(HttpRequest.get(uri("/hello"))).asString());
        assertEquals(1, stats().opened());
    }
}
