package dev.quarry.bench.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The TLS set-ups the tls scenario runs: Jetty over the JDK's TLS, Netty over the JDK's and over BoringSSL, each
 * serving the plaintext endpoint over HTTP/1.1 and over HTTP/2 as ALPN chose, with the self-signed EC P-256
 * certificate the scenario makes with keytool (trusted here, host name checked against 127.0.0.1).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
class TlsPeersTest {
    private static final String PASSWORD = "bench-secret";

    /** A TLS set-up of the scenario. */
    enum Setup {
        JETTY(Peer.JETTY, PeerOptions.TlsProvider.JDK),
        NETTY_JDK(Peer.NETTY, PeerOptions.TlsProvider.JDK),
        NETTY_OPENSSL(Peer.NETTY, PeerOptions.TlsProvider.OPENSSL);

        final Peer peer;
        final PeerOptions.TlsProvider provider;

        Setup(Peer peer, PeerOptions.TlsProvider provider) {
            this.peer = peer;
            this.provider = provider;
        }
    }

    private Path keystore;
    private SSLContext trusting;

    @BeforeAll
    void makeKeystore(@TempDir Path dir) throws Exception {
        keystore = dir.resolve("bench.p12");
        // The same command as quarry-bench/scripts/tls.sh.
        Process keytool = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "keytool")
                                .toString(),
                        "-genkeypair",
                        "-alias",
                        "bench",
                        "-keyalg",
                        "EC",
                        "-groupname",
                        "secp256r1",
                        "-sigalg",
                        "SHA256withECDSA",
                        "-dname",
                        "CN=localhost",
                        "-ext",
                        "SAN=dns:localhost,ip:127.0.0.1",
                        "-validity",
                        "2",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        keystore.toString(),
                        "-storepass",
                        PASSWORD,
                        "-keypass",
                        PASSWORD)
                .redirectErrorStream(true)
                .start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(keytool.waitFor(30, TimeUnit.SECONDS), "keytool did not finish");
        assertEquals(0, keytool.exitValue(), output);

        KeyStore trusted = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            trusted.load(in, PASSWORD.toCharArray());
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        trusting = SSLContext.getInstance("TLS");
        trusting.init(null, trust.getTrustManagers(), null);
    }

    private PeerOptions tlsOptions(PeerOptions.TlsProvider provider) {
        return PeerOptions.loopback(0).withTls(new PeerOptions.Tls(keystore, PASSWORD, provider));
    }

    @ParameterizedTest
    @EnumSource(Setup.class)
    void servesPlaintextOverHttp11AndHttp2ChosenByAlpn(Setup setup) throws Exception {
        try (PeerServer server = setup.peer.start(tlsOptions(setup.provider))) {
            URI uri = URI.create("https://127.0.0.1:" + server.port() + Plaintext.PATH);
            for (HttpClient.Version version : List.of(HttpClient.Version.HTTP_1_1, HttpClient.Version.HTTP_2)) {
                try (HttpClient client = HttpClient.newBuilder()
                        .sslContext(trusting)
                        .version(version)
                        .connectTimeout(Duration.ofSeconds(5))
                        .build()) {
                    for (int i = 0; i < 2; i++) {
                        HttpResponse<String> response = client.send(
                                HttpRequest.newBuilder(uri)
                                        .timeout(Duration.ofSeconds(10))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());

                        String what = setup + " " + version + " request " + i;
                        assertEquals(200, response.statusCode(), what);
                        assertEquals(version, response.version(), what);
                        assertEquals(Plaintext.BODY, response.body(), what);
                        assertEquals(
                                setup.peer.serverHeader(),
                                response.headers().firstValue("server").orElse(""),
                                what);
                    }
                }
            }
            assertTrue(server.protocols().startsWith("TLS (" + setup.provider.id()), server.protocols());
        }
    }

    @Test
    void idleTlsClientOpensConnectionsThatAnswerAndStayOpen() throws Exception {
        try (PeerServer server = Peer.JETTY.start(tlsOptions(PeerOptions.TlsProvider.JDK))) {
            ByteArrayOutputStream output = new ByteArrayOutputStream();
            List<SSLSocket> open = IdleTlsClient.openAll(
                    new InetSocketAddress("127.0.0.1", server.port()),
                    20,
                    TimeUnit.SECONDS.toNanos(30),
                    new PrintStream(output, true, StandardCharsets.UTF_8));
            try {
                String report = output.toString(StandardCharsets.UTF_8);
                assertEquals(20, open.size(), report);
                assertTrue(report.startsWith("READY established=20 failed=0 pending=0"), report);
                for (SSLSocket socket : open) {
                    assertTrue(socket.isConnected() && !socket.isClosed());
                    assertEquals("http/1.1", socket.getApplicationProtocol());
                }
            } finally {
                for (SSLSocket socket : open) {
                    socket.close();
                }
            }
        }
    }

    @Test
    void refusesTlsForAPeerWithoutATlsSetUp() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> Peer.VERTX.start(tlsOptions(PeerOptions.TlsProvider.JDK)).close());

        assertTrue(e.getMessage().contains("vertx") && e.getMessage().contains("TLS"), e.getMessage());
    }

    @Test
    void refusesOpenSslForJetty() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> Peer.JETTY
                        .start(tlsOptions(PeerOptions.TlsProvider.OPENSSL))
                        .close());

        assertTrue(e.getMessage().contains("--tls-provider jdk"), e.getMessage());
    }
}
