package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.server.Server;
import dev.quarry.server.test.TestCertificates;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Requests through an HTTP proxy: https by a CONNECT tunnel, http forwarded in absolute-form. */
@ExtendWith(LeakTrackingPoolExtension.class)
class ProxyTest {
    private static final String AUTHORIZATION = "Basic dXNlcjpzZWNyZXQ="; // user:secret

    private Server server;
    private HttpClient client;
    private TestProxy proxy;

    @BeforeEach
    void startServer() throws Exception {
        TestCertificates certificates = TestCertificates.ec();
        server = Server.builder()
                .http("127.0.0.1", 0)
                .https("127.0.0.1", 0, tls -> tls.keyStore(certificates.keyStore(), TestCertificates.PASSWORD))
                .route("GET /hello", (req, res) -> res.send("Hello over " + req.scheme() + " " + req.version()))
                .route("POST /echo", (req, res) -> res.send(req.bodyAsString()))
                .build()
                .start();
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        server.stop();
    }

    private int httpPort() {
        return server.connectors().get(0).localPort();
    }

    private int httpsPort() {
        return server.connectors().get(1).localPort();
    }

    private HttpClient client(ByteBufferPool pool, HttpProxy httpProxy) throws Exception {
        client = HttpClient.builder()
                .bufferPool(pool)
                .sslContext(TestCertificates.ec().clientContext())
                .proxy(httpProxy)
                .requestTimeout(Duration.ofSeconds(10))
                .build();
        return client;
    }

    @Test
    void httpsGoesThroughACONNECTTunnelWithTlsToTheOrigin(ByteBufferPool pool) throws Exception {
        proxy = new TestProxy(null);
        client(pool, HttpProxy.of("127.0.0.1", proxy.port()));
        String uri = "https://localhost:" + httpsPort() + "/hello";
        assertEquals(
                "Hello over https HTTP/1.1", client.send(HttpRequest.get(uri)).asString());
        HttpRequest post = HttpRequest.newBuilder("https://localhost:" + httpsPort() + "/echo")
                .POST(RequestBody.of("through the tunnel"))
                .build();
        assertEquals("through the tunnel", client.send(post).asString());
        // One tunnel, reused; the host is verified against the certificate as without a proxy.
        assertEquals(List.of("CONNECT localhost:" + httpsPort() + " HTTP/1.1"), List.copyOf(proxy.requests));
        assertEquals(1, client.statistics().get(0).opened(), client.toString());
    }

    @Test
    void httpGoesToTheProxyInAbsoluteForm(ByteBufferPool pool) throws Exception {
        proxy = new TestProxy(null);
        client(pool, HttpProxy.of("127.0.0.1", proxy.port()));
        String uri = "http://127.0.0.1:" + httpPort() + "/hello";
        assertEquals(
                "Hello over http HTTP/1.1", client.send(HttpRequest.get(uri)).asString());
        assertEquals(
                "Hello over http HTTP/1.1", client.send(HttpRequest.get(uri)).asString());
        assertEquals(List.of("GET " + uri + " HTTP/1.1", "GET " + uri + " HTTP/1.1"), List.copyOf(proxy.requests));
    }

    @Test
    void basicCredentialsGoToTheProxy(ByteBufferPool pool) throws Exception {
        proxy = new TestProxy(AUTHORIZATION);
        client(pool, HttpProxy.of("127.0.0.1", proxy.port()).basicAuth("user", "secret"));
        String https = "https://localhost:" + httpsPort() + "/hello";
        assertEquals(
                "Hello over https HTTP/1.1", client.send(HttpRequest.get(https)).asString());
        String http = "http://127.0.0.1:" + httpPort() + "/hello";
        assertEquals(
                "Hello over http HTTP/1.1", client.send(HttpRequest.get(http)).asString());
        assertEquals(
                List.of("CONNECT localhost:" + httpsPort() + " HTTP/1.1 +auth", "GET " + http + " HTTP/1.1 +auth"),
                List.copyOf(proxy.requests));
    }

    @Test
    void aProxyRefusingTheTunnelFailsTheRequestWithItsStatus(ByteBufferPool pool) throws Exception {
        proxy = new TestProxy(AUTHORIZATION);
        client(pool, HttpProxy.of("127.0.0.1", proxy.port()));
        ProxyConnectException refused = assertThrows(
                ProxyConnectException.class,
                () -> client.send(HttpRequest.get("https://localhost:" + httpsPort() + "/hello")));
        assertEquals(407, refused.status());
        assertEquals(
                "proxy 127.0.0.1:" + proxy.port() + " refused CONNECT to localhost:" + httpsPort()
                        + ": 407 Proxy Authentication Required",
                refused.getMessage());
        // Forwarded http: the proxy's 407 is the response, as curl shows it.
        assertEquals(
                407,
                client.send(HttpRequest.get("http://127.0.0.1:" + httpPort() + "/hello"))
                        .status());
    }

    @Test
    void anUnreachableProxyIsNamedInTheFailure(ByteBufferPool pool) throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        client(pool, HttpProxy.of("127.0.0.1", closedPort));
        for (String uri :
                List.of("https://localhost:" + httpsPort() + "/hello", "http://127.0.0.1:" + httpPort() + "/hello")) {
            ConnectException failure =
                    assertThrows(ConnectException.class, () -> client.send(HttpRequest.get(uri)), uri);
            assertTrue(
                    failure.getMessage().startsWith("cannot connect to proxy 127.0.0.1:" + closedPort + " (for "),
                    failure.getMessage());
            assertInstanceOf(ConnectException.class, failure.getCause(), failure.toString());
        }
    }

    @Test
    void bypassedHostsAreReachedDirectly(ByteBufferPool pool) throws Exception {
        proxy = new TestProxy(null);
        client(pool, HttpProxy.of("127.0.0.1", proxy.port()).bypass("LOCALHOST", "*.example"));
        String uri = "https://localhost:" + httpsPort() + "/hello";
        assertEquals(
                "Hello over https HTTP/1.1", client.send(HttpRequest.get(uri)).asString());
        assertTrue(proxy.requests.isEmpty(), proxy.requests.toString());
    }

    @Test
    void theTunnelCarriesH2WhenTheOriginChoosesIt(ByteBufferPool pool) throws Exception {
        proxy = new TestProxy(null);
        client = HttpClient.builder()
                .bufferPool(pool)
                .sslContext(TestCertificates.ec().clientContext())
                .http2(true)
                .proxy("127.0.0.1", proxy.port())
                .requestTimeout(Duration.ofSeconds(10))
                .build();
        String uri = "https://localhost:" + httpsPort() + "/hello";
        assertEquals(
                "Hello over https HTTP/2.0", client.send(HttpRequest.get(uri)).asString());
        assertEquals(List.of("CONNECT localhost:" + httpsPort() + " HTTP/1.1"), List.copyOf(proxy.requests));
    }

    @Test
    void aProxyThatNeverAnswersTheCONNECTTimesOut(ByteBufferPool pool) throws Exception {
        try (FakeServer silent = new FakeServer((index, socket, in, out) -> {
            FakeServer.readHead(in);
            in.transferTo(java.io.OutputStream.nullOutputStream()); // until the client gives up
        })) {
            int port = java.net.URI.create(silent.uri("/")).getPort();
            client = HttpClient.builder()
                    .bufferPool(pool)
                    .sslContext(TestCertificates.ec().clientContext())
                    .proxy("127.0.0.1", port)
                    .connectTimeout(Duration.ofMillis(300))
                    .build();
            String uri = "https://localhost:" + httpsPort() + "/hello";
            java.net.SocketTimeoutException timeout =
                    assertThrows(java.net.SocketTimeoutException.class, () -> client.send(HttpRequest.get(uri)));
            assertTrue(timeout.getMessage().contains("timed out after 300 ms"), timeout.getMessage());
        }
    }

    @Test
    void aProxyAndAUnixSocketAreExclusive() {
        HttpClient.Builder builder =
                HttpClient.builder().proxy("127.0.0.1", 3128).unixDomainSocket(java.nio.file.Path.of("/tmp/x.sock"));
        assertThrows(IllegalStateException.class, builder::build);
    }
}
