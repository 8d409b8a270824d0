package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.server.Server;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The client against a real Quarry server over loopback, and against a raw fake for what a real server never does. */
@ExtendWith(LeakTrackingPoolExtension.class)
class HttpClientTest {
    private static final int BIG = 8 * 1024 * 1024;

    private final CountDownLatch release = new CountDownLatch(1);
    private Server server;
    private HttpClient client;

    @TempDir
    Path tempDir;

    @BeforeEach
    void startServer() throws Exception {
        server = Server.builder()
                .http("127.0.0.1", 0)
                .idleTimeout(Duration.ofSeconds(30))
                .route("GET /hello", (req, res) -> res.send("Hello"))
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
                .route("GET /chunked", (req, res) -> {
                    try (OutputStream out = res.outputStream()) {
                        for (int i = 0; i < 5; i++) {
                            out.write(("part" + i + ";").getBytes(StandardCharsets.UTF_8));
                            out.flush();
                        }
                    }
                })
                .route("GET /big", (req, res) -> {
                    res.header("Content-Length", Integer.toString(BIG));
                    byte[] block = new byte[64 * 1024];
                    for (int i = 0; i < block.length; i++) {
                        block[i] = (byte) i;
                    }
                    try (OutputStream out = res.outputStream()) {
                        for (int i = 0; i < BIG / block.length; i++) {
                            out.write(block);
                        }
                    }
                })
                .route("GET /slow", (req, res) -> {
                    release.await(10, TimeUnit.SECONDS);
                    res.send("slow");
                })
                .build()
                .start();
    }

    @AfterEach
    void stop() throws Exception {
        release.countDown();
        if (client != null) {
            client.close();
        }
        server.stop();
    }

    private HttpClient client(ByteBufferPool pool, HttpClient.Builder builder) {
        client = builder.bufferPool(pool).build();
        return client;
    }

    private String uri(String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    private DestinationStatistics stats() {
        return client.statistics().get(0);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    @Test
    void getReturnsStatusHeadersAndBody(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        HttpResponse response = client.send(HttpRequest.get(uri("/hello")));
        assertEquals(200, response.status());
        assertTrue(response.headers().get("Content-Length").isPresent());
        assertEquals("Hello", response.asString());
    }

    @Test
    void postSendsTheBody(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        HttpRequest request = HttpRequest.newBuilder(uri("/echo"))
                .POST(RequestBody.of("ping pong"))
                .header("Content-Type", "text/plain")
                .build();
        assertEquals("ping pong", client.send(request).asString());
    }

    @Test
    void sendAsyncCompletesWithTheResponse(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        CompletableFuture<String> body = client.sendAsync(HttpRequest.get(uri("/hello")))
                .thenApply(response -> {
                    try {
                        return response.asString(); // blocking here is fine: not a selector thread
                    } catch (IOException x) {
                        throw new RuntimeException(x);
                    }
                });
        assertEquals("Hello", body.get(10, TimeUnit.SECONDS));
    }

    @Test
    void chunkedResponseIsDecoded(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        HttpResponse response = client.send(HttpRequest.get(uri("/chunked")));
        assertEquals("chunked", response.headers().get("Transfer-Encoding").orElseThrow());
        assertEquals("part0;part1;part2;part3;part4;", response.asString());
    }

    @Test
    void keepAliveReusesOneConnection(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        for (int i = 0; i < 10; i++) {
            assertEquals("Hello", client.send(HttpRequest.get(uri("/hello"))).asString());
        }
        assertEquals(1, stats().opened(), client.toString());
    }

    @Test
    void connectionCloseIsHonoured(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        for (int i = 0; i < 3; i++) {
            HttpRequest request = HttpRequest.newBuilder(uri("/hello"))
                    .header("Connection", "close")
                    .build();
            assertEquals("Hello", client.send(request).asString());
        }
        assertEquals(3, stats().opened());
        await(() -> stats().open() == 0, "the closed connections to leave");
    }

    @Test
    void maxUsageRetiresConnections(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder().maxUsagePerConnection(2));
        for (int i = 0; i < 6; i++) {
            assertEquals("Hello", client.send(HttpRequest.get(uri("/hello"))).asString());
        }
        assertEquals(3, stats().opened(), client.toString());
    }

    @Test
    void largeBodiesStreamBothWays(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        // Upload 8 MiB from a stream of unknown length: chunked, one pooled buffer at a time.
        InputStream upload = new InputStream() {
            private long left = BIG;

            @Override
            public int read() {
                return left-- > 0 ? 'x' : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (left == 0) {
                    return -1;
                }
                int n = (int) Math.min(len, left);
                java.util.Arrays.fill(b, off, off + n, (byte) 'x');
                left -= n;
                return n;
            }
        };
        HttpRequest post = HttpRequest.newBuilder(uri("/count"))
                .POST(RequestBody.ofStream(upload))
                .build();
        assertEquals(Integer.toString(BIG), client.send(post).asString());

        // Download 8 MiB through the streamed body, checking every byte.
        try (HttpResponse response = client.send(HttpRequest.get(uri("/big")))) {
            InputStream in = response.body();
            byte[] buffer = new byte[10_000];
            long total = 0;
            int n;
            while ((n = in.read(buffer)) >= 0) {
                for (int i = 0; i < n; i++) {
                    if (buffer[i] != (byte) ((total + i) % (64 * 1024))) {
                        throw new AssertionError("byte " + (total + i) + " differs");
                    }
                }
                total += n;
            }
            assertEquals(BIG, total);
        }
        // And to a file, then the file back up.
        Path file = client.send(HttpRequest.get(uri("/big"))).toFile(tempDir.resolve("big.bin"));
        assertEquals(BIG, Files.size(file));
        HttpRequest put = HttpRequest.newBuilder(uri("/count"))
                .POST(RequestBody.ofFile(file))
                .build();
        assertEquals(Integer.toString(BIG), client.send(put).asString());
        assertEquals(1, stats().opened(), client.toString());
    }

    @Test
    void concurrentRequestsNeverOpenMoreThanMaxConnections(ByteBufferPool pool) throws Exception {
        int max = 4;
        client(pool, HttpClient.builder().maxConnectionsPerDestination(max));
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < 32; t++) {
            threads.add(Thread.ofVirtual().start(() -> {
                for (int i = 0; i < 20; i++) {
                    try {
                        String body = client.send(HttpRequest.newBuilder(uri("/echo"))
                                        .POST(RequestBody.of("n" + i))
                                        .build())
                                .asString();
                        if (!body.equals("n" + i)) {
                            failures.add(new AssertionError("got " + body));
                        }
                    } catch (Throwable x) {
                        failures.add(x);
                    }
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertEquals(List.of(), failures);
        DestinationStatistics stats = stats();
        assertTrue(stats.maxOpen() <= max, stats.toString());
        assertTrue(stats.opened() <= max, stats.toString());
        assertEquals(640, stats.exchanges());
        assertTrue(client.toString().contains("maxOpen="), client.toString());
    }

    @Test
    void queueFullFailsAtOnce(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder().maxConnectionsPerDestination(1).maxQueuedRequestsPerDestination(1));
        CompletableFuture<HttpResponse> first = client.sendAsync(HttpRequest.get(uri("/slow")));
        await(() -> stats().inUse() == 1 && stats().queued() == 0, "the first request to take the connection");
        CompletableFuture<HttpResponse> second = client.sendAsync(HttpRequest.get(uri("/slow")));
        ExecutionException full = assertThrows(
                ExecutionException.class,
                () -> client.sendAsync(HttpRequest.get(uri("/slow"))).get(5, TimeUnit.SECONDS));
        assertInstanceOf(RejectedExecutionException.class, full.getCause());
        assertTrue(
                full.getCause().getMessage().contains("queue"), full.getCause().getMessage());
        release.countDown();
        assertEquals("slow", first.get(10, TimeUnit.SECONDS).asString());
        assertEquals("slow", second.get(10, TimeUnit.SECONDS).asString());
        assertEquals(1, stats().rejected());
    }

    @Test
    void requestTimeoutFailsTheExchange(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        HttpRequest request = HttpRequest.newBuilder(uri("/slow"))
                .timeout(Duration.ofMillis(200))
                .build();
        SocketTimeoutException timeout = assertThrows(SocketTimeoutException.class, () -> client.send(request));
        assertTrue(timeout.getMessage().contains("timed out"), timeout.getMessage());
        release.countDown();
        assertEquals("Hello", client.send(HttpRequest.get(uri("/hello"))).asString());
    }

    @Test
    void idleTimeoutFailsAnExchangeWithoutTraffic(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder().idleTimeout(Duration.ofMillis(200)));
        SocketTimeoutException timeout =
                assertThrows(SocketTimeoutException.class, () -> client.send(HttpRequest.get(uri("/slow"))));
        assertTrue(timeout.getMessage().contains("idle"), timeout.getMessage());
    }

    @Test
    void idleConnectionsLeaveThePoolWhenTheServerClosesThem(ByteBufferPool pool) throws Exception {
        server.stop();
        server = Server.builder()
                .http("127.0.0.1", 0)
                .idleTimeout(Duration.ofMillis(200))
                .route("GET /hello", (req, res) -> res.send("Hello"))
                .build()
                .start();
        client(pool, HttpClient.builder());
        assertEquals("Hello", client.send(HttpRequest.get(uri("/hello"))).asString());
        await(() -> stats().open() == 0 && stats().connections() == 0, "the server to close the idle connection");
        assertEquals("Hello", client.send(HttpRequest.get(uri("/hello"))).asString());
        assertEquals(2, stats().opened());
    }

    @Test
    void refusedConnectFailsWithConnectException(ByteBufferPool pool) throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        client(pool, HttpClient.builder());
        assertThrows(ConnectException.class, () -> client.send(HttpRequest.get("http://127.0.0.1:" + port + "/")));
    }

    @Test
    void staleConnectionIsRetriedOnceOnANewOne(ByteBufferPool pool) throws Exception {
        // Connection 0 answers one request, then reads the next and closes without answering (the race of a server
        // closing a keep-alive connection just as the client reuses it); connection 1 answers normally.
        try (FakeServer fake = new FakeServer((index, socket, in, out) -> {
            while (FakeServer.readHead(in) != null) {
                FakeServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
                if (index == 0 && FakeServer.readHead(in) != null) {
                    return; // closes
                }
            }
        })) {
            client(pool, HttpClient.builder());
            assertEquals("ok", client.send(HttpRequest.get(fake.uri("/a"))).asString());
            assertEquals("ok", client.send(HttpRequest.get(fake.uri("/b"))).asString());
            assertEquals(1, stats().retries(), client.toString());
            assertEquals(2, fake.accepted.get());
        }
    }

    @Test
    void nonIdempotentRequestAlreadySentIsNotRetried(ByteBufferPool pool) throws Exception {
        // Whichever connection the POST goes out on (the first, if it is back in the pool already, or a new one), the
        // server reads its head and closes without answering.
        try (FakeServer fake = new FakeServer((index, socket, in, out) -> {
            FakeServer.readHead(in);
            if (index == 0) {
                FakeServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
                FakeServer.readHead(in); // then close without answering
            }
        })) {
            client(pool, HttpClient.builder());
            assertEquals("ok", client.send(HttpRequest.get(fake.uri("/a"))).asString());
            HttpRequest post = HttpRequest.newBuilder(fake.uri("/b"))
                    .POST(RequestBody.of(""))
                    .build();
            IOException failure = assertThrows(IOException.class, () -> client.send(post));
            assertTrue(failure.getMessage().contains("closed"), failure.getMessage());
            assertEquals(0, stats().retries());
        }
    }

    @Test
    void malformedResponseFailsThatRequestAndThePoolStaysHealthy(ByteBufferPool pool) throws Exception {
        try (FakeServer fake = new FakeServer((index, socket, in, out) -> {
            while (FakeServer.readHead(in) != null) {
                if (index == 0) {
                    FakeServer.write(out, "HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\nok");
                    FakeServer.readHead(in);
                    return;
                }
                FakeServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
            }
        })) {
            client(pool, HttpClient.builder());
            BadResponseException bad =
                    assertThrows(BadResponseException.class, () -> client.send(HttpRequest.get(fake.uri("/"))));
            assertTrue(bad.getMessage().contains("invalid status line"), bad.getMessage());
            for (int i = 0; i < 3; i++) {
                assertEquals("ok", client.send(HttpRequest.get(fake.uri("/"))).asString());
            }
            assertEquals(2, stats().opened(), client.toString());
        }
    }

    @Test
    void conflictingContentLengthIsRejected(ByteBufferPool pool) throws Exception {
        try (FakeServer fake = new FakeServer((index, socket, in, out) -> {
            FakeServer.readHead(in);
            FakeServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok!");
            FakeServer.readHead(in);
        })) {
            client(pool, HttpClient.builder());
            BadResponseException bad =
                    assertThrows(BadResponseException.class, () -> client.send(HttpRequest.get(fake.uri("/"))));
            assertTrue(bad.getMessage().contains("Content-Length"), bad.getMessage());
        }
    }

    @Test
    void truncatedBodyFailsTheReader(ByteBufferPool pool) throws Exception {
        try (FakeServer fake = new FakeServer((index, socket, in, out) -> {
            FakeServer.readHead(in);
            FakeServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
        })) {
            client(pool, HttpClient.builder());
            HttpResponse response = client.send(HttpRequest.get(fake.uri("/")));
            IOException failure = assertThrows(IOException.class, response::asString);
            assertTrue(failure.getMessage().contains("before the response was complete"), failure.getMessage());
        }
    }

    @Test
    void closeDelimitedBodyEndsWithTheConnection(ByteBufferPool pool) throws Exception {
        try (FakeServer fake = new FakeServer((index, socket, in, out) -> {
            FakeServer.readHead(in);
            FakeServer.write(out, "HTTP/1.1 200 OK\r\n\r\nuntil the end");
        })) {
            client(pool, HttpClient.builder());
            assertEquals(
                    "until the end", client.send(HttpRequest.get(fake.uri("/"))).asString());
            await(() -> stats().open() == 0, "the connection to close");
        }
    }

    @Test
    void closingAnUnreadResponseClosesItsConnection(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        try (HttpResponse response = client.send(HttpRequest.get(uri("/big")))) {
            assertEquals(200, response.status());
            assertEquals(0, response.body().read(new byte[100], 0, 0));
        }
        await(() -> stats().open() == 0, "the connection to close");
        assertEquals("Hello", client.send(HttpRequest.get(uri("/hello"))).asString());
    }

    @Test
    void headResponseHasNoBody(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        HttpResponse response =
                client.send(HttpRequest.newBuilder(uri("/hello")).HEAD().build());
        assertEquals(200, response.status());
        assertArrayEquals(new byte[0], response.asBytes());
        assertEquals("Hello", client.send(HttpRequest.get(uri("/hello"))).asString());
        assertEquals(1, stats().opened());
    }

    @Test
    void invalidHeaderValuesAreRefused() {
        assertThrows(
                IllegalArgumentException.class,
                () -> HttpRequest.newBuilder("http://localhost/").header("X", "a\r\nInjected: yes"));
        assertThrows(IllegalArgumentException.class, () -> HttpRequest.newBuilder("ftp://localhost/"));
    }

    @Test
    void closingTheClientReleasesAResponseTheApplicationNeverRead(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        HttpResponse unread = client.send(HttpRequest.get(uri("/hello")));
        assertEquals(200, unread.status());
        assertEquals("Hello", client.send(HttpRequest.get(uri("/hello"))).asString());
        client.close(); // the leak-tracking pool checks that the content's buffer came back
    }

    @Test
    void closingAResponseBeforeReadingItReleasesItsBuffer(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        for (int i = 0; i < 20; i++) {
            client.send(HttpRequest.get(uri("/hello"))).close();
        }
        client.close();
    }

    @Test
    void talksToAServerOnAUnixDomainSocket(ByteBufferPool pool) throws Exception {
        Path socket = tempDir.resolve("quarry.sock");
        Server unix = Server.builder()
                .unix(socket)
                .route("GET /where", (req, res) -> res.send("Host " + req.authority()))
                .build()
                .start();
        try {
            client(pool, HttpClient.builder().unixDomainSocket(socket));
            for (int i = 0; i < 3; i++) {
                assertEquals(
                        "Host example.test",
                        client.send(HttpRequest.get("http://example.test/where"))
                                .asString());
            }
            assertEquals(1, stats().opened(), "one connection over the socket carries every exchange");
        } finally {
            unix.stop();
        }
    }
}
