package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.server.Server;
import dev.quarry.server.test.TestCertificates;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The client over TLS against a real Quarry https connector on loopback. */
@ExtendWith(LeakTrackingPoolExtension.class)
class HttpsClientTest {
    private Server server;
    private HttpClient client;

    @BeforeEach
    void startServer() throws Exception {
        TestCertificates certificates = TestCertificates.ec();
        server = Server.builder()
                .https("127.0.0.1", 0, tls -> tls.keyStore(certificates.keyStore(), TestCertificates.PASSWORD))
                .route("GET /hello", (req, res) -> res.send("Hello over " + req.scheme() + " " + req.version()))
                .route("POST /echo", (req, res) -> res.send(req.bodyAsString()))
                .route("GET /big", (req, res) -> {
                    try (OutputStream out = res.outputStream()) {
                        byte[] block = new byte[64 * 1024];
                        for (int i = 0; i < 64; i++) {
                            out.write(block);
                        }
                    }
                })
                .build()
                .start();
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        server.stop();
    }

    private HttpClient client(ByteBufferPool pool, HttpClient.Builder builder) {
        client = builder.bufferPool(pool).build();
        return client;
    }

    private String uri(String host, String path) {
        return "https://" + host + ":" + server.port() + path;
    }

    @Test
    void getsOverTlsWithTheCertificateTrustedAndTheHostVerified(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder().sslContext(TestCertificates.ec().clientContext()));
        HttpResponse response = client.send(HttpRequest.get(uri("localhost", "/hello")));
        assertEquals(200, response.status());
        assertEquals("Hello over https HTTP/1.1", response.asString());
    }

    @Test
    void reusesTlsConnectionsAndStreamsLargeContent(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder().sslContext(TestCertificates.ec().clientContext()));
        for (int i = 0; i < 5; i++) {
            assertEquals(
                    4 * 1024 * 1024,
                    client.send(HttpRequest.get(uri("localhost", "/big"))).asBytes().length);
            HttpRequest post = HttpRequest.newBuilder(uri("localhost", "/echo"))
                    .POST(RequestBody.of("body " + i))
                    .build();
            assertEquals("body " + i, client.send(post).asString());
        }
        assertEquals(1, client.statistics().get(0).opened(), "one TLS connection carries every exchange");
    }

    @Test
    void concurrentRequestsOpenSeveralTlsConnections(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder().sslContext(TestCertificates.ec().clientContext()));
        List<CompletableFuture<HttpResponse>> futures = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            futures.add(client.sendAsync(HttpRequest.get(uri("localhost", "/hello"))));
        }
        for (CompletableFuture<HttpResponse> future : futures) {
            assertEquals("Hello over https HTTP/1.1", future.get().asString());
        }
    }

    @Test
    void anUntrustedCertificateFailsTheRequestWithAHandshakeException(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder()); // the JDK's CA certificates: the self-signed test certificate is unknown
        SSLHandshakeException failure = assertThrows(
                SSLHandshakeException.class, () -> client.send(HttpRequest.get(uri("localhost", "/hello"))));
        assertTrue(
                failure.getMessage().contains("TLS handshake with https://localhost:" + server.port()),
                failure::getMessage);
        assertEquals(0, client.statistics().get(0).connections(), "the failed connection left the pool");
    }

    @Test
    void aCertificateThatDoesNotNameTheHostIsRefusedUnlessVerificationIsOff(ByteBufferPool pool) throws Exception {
        // The certificate names localhost and 127.0.0.1, not 127.0.0.2 (which Linux also routes to the loopback).
        TestCertificates certificates = TestCertificates.ec();
        Server elsewhere = Server.builder()
                .https("127.0.0.2", 0, tls -> tls.keyStore(certificates.keyStore(), TestCertificates.PASSWORD))
                .route("GET /hello", (req, res) -> res.send("Hello"))
                .build()
                .start();
        try {
            client(pool, HttpClient.builder().sslContext(certificates.clientContext()));
            String wrongHost = "https://127.0.0.2:" + elsewhere.port() + "/hello";
            SSLHandshakeException failure =
                    assertThrows(SSLHandshakeException.class, () -> client.send(HttpRequest.get(wrongHost)));
            assertTrue(failure.getMessage().contains("127.0.0.2"), failure::getMessage);
            client.close();

            client(
                    pool,
                    HttpClient.builder()
                            .sslContext(certificates.clientContext())
                            .verifyHostnames(false));
            assertEquals("Hello", client.send(HttpRequest.get(wrongHost)).asString());
        } finally {
            elsewhere.stop();
        }
    }

    @Test
    void aServerThatNeverAnswersTheHandshakeTimesOutAtTheConnectTimeout(ByteBufferPool pool) throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            CompletableFuture<Socket> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return silent.accept();
                } catch (Exception x) {
                    throw new IllegalStateException(x);
                }
            });
            client(
                    pool,
                    HttpClient.builder()
                            .sslContext(TestCertificates.ec().clientContext())
                            .connectTimeout(Duration.ofMillis(500)));
            SocketTimeoutException failure = assertThrows(
                    SocketTimeoutException.class,
                    () -> client.send(HttpRequest.get("https://localhost:" + silent.getLocalPort() + "/")));
            assertTrue(failure.getMessage().contains("timed out after 500 ms"), failure::getMessage);
            try (Socket socket = accepted.get()) {
                InputStream in = socket.getInputStream();
                socket.setSoTimeout(10_000);
                // The client sent its hello, then closed when its connect timeout expired.
                while (in.read() >= 0) {
                    // drain to the end of stream
                }
            }
        }
    }
}
