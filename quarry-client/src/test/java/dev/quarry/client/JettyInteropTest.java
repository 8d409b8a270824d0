package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.http.HttpVersion;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The client against Jetty 12 over loopback, on HTTP/1.1, h2c by prior knowledge and h2c by upgrade (one connector
 * speaks all three): exchanges, bodies, every pool kind under concurrent load with the server counting what it sees,
 * the server closing idle connections, redirects and timeouts.
 */
@ExtendWith(LeakTrackingPoolExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JettyInteropTest {
    /** What Jetty allows per HTTP/2 connection: small, so that the client's queue must wait for streams. */
    private static final int MAX_STREAMS = 4;
    /** The churn connector's idle timeout: Jetty closes the client's pooled connections after this. */
    private static final long CHURN_IDLE_MILLIS = 300;

    private static final int IDS = 4096;

    private static Server jetty;
    private static ServerConnector connector;
    private static ServerConnector churnConnector;
    private static final ConnectionCounter connections = new ConnectionCounter();
    private static final ConnectionCounter churnConnections = new ConnectionCounter();
    private static final TestHandler handler = new TestHandler();

    private HttpClient client;

    enum Protocol {
        HTTP_1_1(HttpVersion.HTTP_1_1),
        H2C(HttpVersion.HTTP_2),
        H2C_UPGRADE(HttpVersion.HTTP_2);

        final HttpVersion version;

        Protocol(HttpVersion version) {
            this.version = version;
        }

        HttpClient.Builder configure(HttpClient.Builder builder) {
            return switch (this) {
                case HTTP_1_1 -> builder;
                case H2C -> builder.http2(true);
                case H2C_UPGRADE -> builder.http2(true).h2cUpgrade(true);
            };
        }

        /** @return how many exchanges one connection may carry at once towards this Jetty */
        int streamsPerConnection() {
            return this == HTTP_1_1 ? 1 : MAX_STREAMS;
        }
    }

    @BeforeAll
    static void startJetty() throws Exception {
        jetty = new Server();
        connector = connector(30_000, connections);
        churnConnector = connector(CHURN_IDLE_MILLIS, churnConnections);
        jetty.addConnector(connector);
        jetty.addConnector(churnConnector);
        jetty.setHandler(handler);
        jetty.start();
    }

    private static ServerConnector connector(long idleMillis, ConnectionCounter counter) {
        HttpConfiguration config = new HttpConfiguration();
        // One connector speaks HTTP/1.1, h2c by prior knowledge (the HTTP/1.1 connection sees the preface) and the
        // h2c upgrade.
        HTTP2CServerConnectionFactory h2c = new HTTP2CServerConnectionFactory(config);
        h2c.setMaxConcurrentStreams(MAX_STREAMS);
        ServerConnector connector = new ServerConnector(jetty, new HttpConnectionFactory(config), h2c);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        connector.setIdleTimeout(idleMillis);
        connector.addBean(counter);
        return connector;
    }

    @AfterAll
    static void stopJetty() throws Exception {
        if (jetty != null) {
            jetty.stop();
        }
    }

    @BeforeEach
    void reset() throws InterruptedException {
        // The previous test's connections close asynchronously on Jetty's side: count from zero.
        InteropLoad.await(() -> connections.open.get() == 0, "Jetty to see the previous connections closed");
        InteropLoad.await(() -> churnConnections.open.get() == 0, "the churn connector's connections to close");
        connections.reset();
        churnConnections.reset();
        handler.reset();
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        handler.releaseParked();
    }

    private HttpClient client(ByteBufferPool pool, Protocol protocol, HttpClient.Builder builder) {
        client = protocol.configure(builder).bufferPool(pool).build();
        return client;
    }

    private static String uri(String path) {
        return "http://127.0.0.1:" + connector.getLocalPort() + path;
    }

    private static String churnUri(String path) {
        return "http://127.0.0.1:" + churnConnector.getLocalPort() + path;
    }

    private DestinationStatistics stats() {
        return client.statistics().get(0);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void getsAndPostsWithTheProtocolAsked(Protocol protocol, ByteBufferPool pool) throws Exception {
        client(pool, protocol, HttpClient.builder());
        for (int i = 0; i < 3; i++) {
            HttpResponse response = client.send(HttpRequest.get(uri("/hello")));
            assertEquals(200, response.status());
            assertEquals(protocol.version, response.version());
            assertEquals("Hello from Jetty", response.asString());
        }
        HttpRequest post = HttpRequest.newBuilder(uri("/echo"))
                .POST(RequestBody.of("ping pong"))
                .build();
        assertEquals("ping pong", client.send(post).asString());
        assertEquals(1, stats().opened(), client.toString());
        assertEquals(1, connections.opened.get(), "Jetty saw one connection");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void streamsAnEchoedBodyBothWays(Protocol protocol, ByteBufferPool pool) throws Exception {
        client(pool, protocol, HttpClient.builder());
        long length = 4L * 1024 * 1024;
        HttpRequest known = HttpRequest.newBuilder(uri("/echo"))
                .POST(RequestBody.ofStream(InteropLoad.generated(length), length))
                .build();
        try (HttpResponse response = client.send(known)) {
            assertEquals(length, InteropLoad.readGenerated(response.body()));
        }
        HttpRequest chunked = HttpRequest.newBuilder(uri("/echo"))
                .POST(RequestBody.ofStream(InteropLoad.generated(length)))
                .build();
        try (HttpResponse response = client.send(chunked)) {
            assertEquals(length, InteropLoad.readGenerated(response.body()));
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void concurrentLoadLosesNothingAndStaysWithinTheLimits(Protocol protocol, ByteBufferPool pool) throws Exception {
        int maxConnections = 3;
        client(pool, protocol, HttpClient.builder().maxConnectionsPerDestination(maxConnections));
        int workers = 64;
        int perWorker = 8;
        int answered = InteropLoad.run(
                client,
                workers,
                perWorker,
                id -> HttpRequest.newBuilder(uri("/id?id=" + id))
                        .timeout(Duration.ofSeconds(20))
                        .build());
        assertEquals(workers * perWorker, answered);
        handler.assertEachIdSeenOnce(workers * perWorker);
        DestinationStatistics stats = stats();
        assertTrue(connections.max.get() <= maxConnections, "Jetty saw " + connections + "; " + stats);
        assertTrue(stats.maxOpen() <= maxConnections, stats.toString());
        assertTrue(
                handler.maxPerConnection.get() <= protocol.streamsPerConnection(),
                "Jetty saw " + handler.maxPerConnection + " exchanges at once on one connection");
        assertTrue(
                handler.maxInFlight.get() <= maxConnections * protocol.streamsPerConnection(),
                "Jetty saw " + handler.maxInFlight + " exchanges at once");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = Protocol.class,
            names = {"H2C", "H2C_UPGRADE"})
    void oneConnectionNeverCarriesMoreStreamsThanJettyAllows(Protocol protocol, ByteBufferPool pool) throws Exception {
        client(pool, protocol, HttpClient.builder().maxConnectionsPerDestination(1));
        int answered = InteropLoad.run(client, 64, 4, id -> HttpRequest.get(uri("/id?id=" + id)));
        assertEquals(256, answered);
        handler.assertEachIdSeenOnce(256);
        assertEquals(1, connections.opened.get(), "one connection carried everything");
        int max = handler.maxInFlight.get();
        assertTrue(max <= MAX_STREAMS, "Jetty saw " + max + " streams at once, allowed " + MAX_STREAMS);
        // Each answer is held a few milliseconds while 64 requests wait: the connection carried several at once.
        assertTrue(max > 1, "the client never multiplexed: at most " + max + " stream at once");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void connectionsThatJettyClosesWhenIdleAreReplaced(Protocol protocol, ByteBufferPool pool) throws Exception {
        client(pool, protocol, HttpClient.builder());
        int rounds = 3;
        for (int round = 0; round < rounds; round++) {
            assertEquals(
                    "Hello from Jetty",
                    client.send(HttpRequest.get(churnUri("/hello"))).asString());
            InteropLoad.await(
                    () -> stats().open() == 0 && stats().connections() == 0,
                    "Jetty to close the idle connection after " + CHURN_IDLE_MILLIS + " ms");
        }
        assertEquals(rounds, stats().opened(), client.toString());
        assertEquals(rounds, churnConnections.opened.get());

        // Bursts of concurrent requests, each after Jetty closed the whole pool: the pool refills every time.
        int maxConnections = 4;
        client.close();
        client(pool, protocol, HttpClient.builder().maxConnectionsPerDestination(maxConnections));
        for (int burst = 0; burst < rounds; burst++) {
            InteropLoad.run(client, burst * 64, 16, 4, id -> HttpRequest.get(churnUri("/id?id=" + id)));
            InteropLoad.await(() -> stats().open() == 0, "Jetty to close every idle connection");
        }
        handler.assertEachIdSeenOnce(rounds * 64);
        assertTrue(stats().maxOpen() <= maxConnections, stats().toString());
        assertTrue(churnConnections.max.get() <= maxConnections, churnConnections.toString());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void followsJettysRedirects(Protocol protocol, ByteBufferPool pool) throws Exception {
        client(pool, protocol, HttpClient.builder());
        HttpResponse followed = client.send(HttpRequest.get(uri("/redirect?to=/hello")));
        assertEquals(200, followed.status());
        assertEquals("Hello from Jetty", followed.asString());
        assertEquals("/hello", followed.request().uri().getPath());

        HttpResponse chain = client.send(HttpRequest.get(uri("/redirect?hops=3")));
        assertEquals("Hello from Jetty", chain.asString());

        // 303 turns a POST into a GET.
        HttpRequest post = HttpRequest.newBuilder(uri("/redirect?to=/method&status=303"))
                .POST(RequestBody.of("dropped"))
                .build();
        assertEquals("GET", client.send(post).asString());

        HttpResponse asIs = client.send(HttpRequest.newBuilder(uri("/redirect?to=/hello"))
                .followRedirects(false)
                .build());
        assertEquals(302, asIs.status());
        assertTrue(asIs.headers().get("Location").orElseThrow().endsWith("/hello"));
        asIs.close();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void requestTimeoutFailsTheExchangeAndThePoolGoesOn(Protocol protocol, ByteBufferPool pool) throws Exception {
        client(pool, protocol, HttpClient.builder());
        HttpRequest slow = HttpRequest.newBuilder(uri("/slow"))
                .timeout(Duration.ofMillis(300))
                .build();
        SocketTimeoutException timeout = assertThrows(SocketTimeoutException.class, () -> client.send(slow));
        assertTrue(timeout.getMessage().contains("timed out"), timeout.getMessage());
        assertEquals(
                "Hello from Jetty", client.send(HttpRequest.get(uri("/hello"))).asString());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void idleTimeoutFailsAnExchangeJettyNeverAnswers(Protocol protocol, ByteBufferPool pool) throws Exception {
        client(pool, protocol, HttpClient.builder().idleTimeout(Duration.ofMillis(300)));
        SocketTimeoutException timeout =
                assertThrows(SocketTimeoutException.class, () -> client.send(HttpRequest.get(uri("/slow"))));
        assertTrue(timeout.getMessage().contains("idle"), timeout.getMessage());
    }

    /** Counts Jetty's connections on one connector: open now, the most open at once, opened in all. */
    static final class ConnectionCounter implements Connection.Listener {
        final AtomicInteger open = new AtomicInteger();
        final AtomicInteger max = new AtomicInteger();
        final AtomicInteger opened = new AtomicInteger();

        @Override
        public void onOpened(Connection connection) {
            // An h2c connection replaces the HTTP/1.1 one on its socket (upgrade or preface): count sockets, not
            // protocol objects, so only the HTTP/1.1 connection, which every socket starts with, counts.
            if (connection instanceof org.eclipse.jetty.server.internal.HttpConnection) {
                opened.incrementAndGet();
                max.accumulateAndGet(open.incrementAndGet(), Math::max);
            }
        }

        @Override
        public void onClosed(Connection connection) {
            if (!(connection instanceof org.eclipse.jetty.server.internal.HttpConnection)) {
                return;
            }
            open.decrementAndGet();
        }

        void reset() {
            max.set(open.get());
            opened.set(0);
        }

        @Override
        public String toString() {
            return "connections{open=" + open + ", max=" + max + ", opened=" + opened + "}";
        }
    }

    /**
     * The routes: {@code /hello}, {@code /echo} (streams the request body back), {@code /method}, {@code /id?id=N}
     * (answers {@code id=N} a few milliseconds later, counting each id and the exchanges in flight per connection),
     * {@code /redirect}, and {@code /slow}, which never answers until the test ends. Never blocks a Jetty thread.
     */
    static final class TestHandler extends Handler.Abstract.NonBlocking {
        final AtomicIntegerArray seen = new AtomicIntegerArray(IDS);
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger maxInFlight = new AtomicInteger();
        final AtomicInteger maxPerConnection = new AtomicInteger();
        final Map<String, AtomicInteger> perConnection = new ConcurrentHashMap<>();
        final ConcurrentLinkedQueue<Callback> parked = new ConcurrentLinkedQueue<>();

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            String path = Request.getPathInContext(request);
            var query = Request.extractQueryParameters(request);
            switch (path) {
                case "/hello" -> Content.Sink.write(response, true, "Hello from Jetty", callback);
                case "/method" -> Content.Sink.write(response, true, request.getMethod(), callback);
                case "/echo" -> Content.copy(request, response, callback);
                case "/id" -> answerLater(request, response, callback, query.getValue("id"));
                case "/redirect" -> {
                    int hops = Integer.parseInt(query.getValue("hops") == null ? "0" : query.getValue("hops"));
                    String to = hops > 1 ? "/redirect?hops=" + (hops - 1) : query.getValue("to");
                    int status = Integer.parseInt(query.getValue("status") == null ? "302" : query.getValue("status"));
                    response.setStatus(status);
                    response.getHeaders().put(HttpHeader.LOCATION, to == null ? "/hello" : to);
                    Content.Sink.write(response, true, "", callback);
                }
                case "/slow" -> parked.add(callback);
                default -> {
                    return false;
                }
            }
            return true;
        }

        private void answerLater(Request request, Response response, Callback callback, String id) {
            seen.incrementAndGet(Integer.parseInt(id));
            maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            AtomicInteger onConnection = perConnection.computeIfAbsent(
                    request.getConnectionMetaData().getId(), key -> new AtomicInteger());
            maxPerConnection.accumulateAndGet(onConnection.incrementAndGet(), Math::max);
            // Held a little (on Jetty's scheduler, no thread waits) so that exchanges overlap.
            request.getComponents()
                    .getScheduler()
                    .schedule(
                            () -> {
                                onConnection.decrementAndGet();
                                inFlight.decrementAndGet();
                                Content.Sink.write(response, true, "id=" + id, callback);
                            },
                            5,
                            TimeUnit.MILLISECONDS);
        }

        void assertEachIdSeenOnce(int ids) {
            for (int id = 0; id < ids; id++) {
                assertEquals(1, seen.get(id), "times Jetty saw request " + id);
            }
            for (int id = ids; id < IDS; id++) {
                assertEquals(0, seen.get(id), "times Jetty saw request " + id + ", never sent");
            }
        }

        void reset() {
            for (int i = 0; i < IDS; i++) {
                seen.set(i, 0);
            }
            inFlight.set(0);
            maxInFlight.set(0);
            maxPerConnection.set(0);
            perConnection.clear();
        }

        void releaseParked() {
            for (Callback callback; (callback = parked.poll()) != null; ) {
                callback.failed(new java.util.concurrent.CancellationException("the test ended"));
            }
        }
    }
}
