package dev.quarry.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.io.ServerConnector;
import dev.quarry.server.Server;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.KeyStore;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --https-port}: HTTPS beside the plain port, h2 and HTTP/1.1 by ALPN, with the user's certificate or, when
 * none is given, a development certificate for localhost made on first use and kept.
 */
class HttpsOptionsTest {
    @TempDir
    Path dir;

    private Server server;

    @BeforeEach
    void devCertificateInTheTestsDirectory() {
        System.setProperty("quarry.devCert", dir.resolve("dev-cert.p12").toString());
    }

    @AfterEach
    void stop() throws Exception {
        System.clearProperty("quarry.devCert");
        if (server != null) {
            server.stop();
        }
    }

    private Server serve(String... args) throws Exception {
        Options options = Options.parse(List.of(args), ServeCommand.OPTIONS, ServeCommand.FLAGS);
        server = ServeCommand.build(options).start();
        return server;
    }

    private int httpsPort() {
        return server.connectors().stream()
                .filter(connector -> connector.describe().startsWith("tls"))
                .mapToInt(ServerConnector::localPort)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no https connector: " + server.connectors()));
    }

    @Test
    void withoutACertificateADevelopmentOneIsMadeAndH2IsServedOverTls() throws Exception {
        Path site = Files.createDirectories(dir.resolve("site"));
        Files.writeString(site.resolve("index.html"), "<p>over TLS</p>");
        serve(site.toString(), "--port", "0", "--host", "127.0.0.1", "--https-port", "0", "--jmx", "off");

        Path certificate = DevCertificate.location();
        assertTrue(Files.isRegularFile(certificate), "made on first use: " + certificate);
        try (HttpClient client = HttpClient.newBuilder()
                .sslContext(trusting(certificate))
                .version(HttpClient.Version.HTTP_2)
                .build()) {
            HttpResponse<String> response = client.send(
                    HttpRequest.newBuilder(URI.create("https://localhost:" + httpsPort() + "/"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());

            assertEquals(200, response.statusCode());
            assertEquals(HttpClient.Version.HTTP_2, response.version(), "h2 by ALPN");
            assertEquals("<p>over TLS</p>", response.body());
        }

        // Kept: the next start uses the same certificate rather than making another.
        FileTime made = Files.getLastModifiedTime(certificate);
        server.stop();
        serve(site.toString(), "--port", "0", "--host", "127.0.0.1", "--https-port", "0", "--jmx", "off");
        assertEquals(made, Files.getLastModifiedTime(certificate));
    }

    @Test
    void certificateOptionsAreCheckedTogether() {
        assertThrows(
                Options.UsageException.class,
                () -> serve("--port", "0", "--cert", "a.pem", "--key", "k.pem"),
                "a certificate without --https-port");
        assertThrows(
                Options.UsageException.class,
                () -> serve("--port", "0", "--https-port", "0", "--cert", "a.pem"),
                "--cert without --key");
        assertThrows(
                Options.UsageException.class,
                () -> serve("--port", "0", "--https-port", "0", "--cert", "a.pem", "--key", "k.pem", "--keystore", "s"),
                "both kinds");
        Options.UsageException missing = assertThrows(
                Options.UsageException.class,
                () -> serve(
                        "--port",
                        "0",
                        "--https-port",
                        "0",
                        "--keystore",
                        dir.resolve("none.p12").toString()));
        assertTrue(missing.getMessage().contains("none.p12"), missing.getMessage());
    }

    @Test
    void repeatedCertificatesAreChosenBySni() throws Exception {
        Path first = pemCertificate("first.test");
        Path second = pemCertificate("second.test");
        serve(
                "--port",
                "0",
                "--host",
                "127.0.0.1",
                "--https-port",
                "0",
                "--jmx",
                "off",
                "--cert",
                first.resolve("cert.pem").toString(),
                "--key",
                first.resolve("key.pem").toString(),
                "--cert",
                second.resolve("cert.pem").toString(),
                "--key",
                second.resolve("key.pem").toString());
        assertEquals("CN=second.test", presented("second.test"));
        assertEquals("CN=first.test", presented("other.test"), "the first certificate is the default");
    }

    @Test
    void requireSniRefusesUnknownNames() throws Exception {
        Path first = pemCertificate("first.test");
        serve(
                "--port",
                "0",
                "--host",
                "127.0.0.1",
                "--https-port",
                "0",
                "--jmx",
                "off",
                "--require-sni",
                "--cert",
                first.resolve("cert.pem").toString(),
                "--key",
                first.resolve("key.pem").toString());
        assertEquals("CN=first.test", presented("first.test"));
        assertThrows(javax.net.ssl.SSLHandshakeException.class, () -> presented("other.test"));
    }

    @Test
    void redirectHttpsAnswersPlainRequestsWith308() throws Exception {
        serve("--port", "0", "--host", "127.0.0.1", "--https-port", "0", "--jmx", "off", "--redirect-https");
        int plain = server.connectors().stream()
                .filter(connector -> !connector.describe().startsWith("tls"))
                .mapToInt(ServerConnector::localPort)
                .findFirst()
                .orElseThrow();
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> response = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + plain + "/hello?x=1"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(308, response.statusCode());
            assertEquals(
                    "https://127.0.0.1:" + httpsPort() + "/hello?x=1",
                    response.headers().firstValue("Location").orElseThrow());
        }
    }

    @Test
    void theNewTlsOptionsAreChecked() {
        Options.UsageException alone =
                assertThrows(Options.UsageException.class, () -> serve("--port", "0", "--redirect-https"));
        assertTrue(alone.getMessage().contains("--https-port"), alone.getMessage());
        Options.UsageException unpaired = assertThrows(
                Options.UsageException.class,
                () -> serve(
                        "--port", "0", "--https-port", "0", "--cert", "a.pem", "--key", "a.key", "--cert", "b.pem"));
        assertTrue(unpaired.getMessage().contains("2 --cert, 1 --key"), unpaired.getMessage());
    }

    /** @return the subject of the certificate the HTTPS port presents for a server name */
    private String presented(String serverName) throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new javax.net.ssl.TrustManager[] {new TrustingAll()}, null);
        try (javax.net.ssl.SSLSocket socket =
                (javax.net.ssl.SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", httpsPort())) {
            socket.setSoTimeout(20_000);
            javax.net.ssl.SSLParameters parameters = socket.getSSLParameters();
            parameters.setServerNames(List.of(new javax.net.ssl.SNIHostName(serverName)));
            socket.setSSLParameters(parameters);
            socket.startHandshake();
            return ((java.security.cert.X509Certificate) socket.getSession().getPeerCertificates()[0])
                    .getSubjectX500Principal()
                    .getName();
        }
    }

    /** Accepts any server certificate: the tests look at which one they got. */
    private static final class TrustingAll implements javax.net.ssl.X509TrustManager {
        @Override
        public void checkClientTrusted(java.security.cert.X509Certificate[] chain, String authType) {}

        @Override
        public void checkServerTrusted(java.security.cert.X509Certificate[] chain, String authType) {}

        @Override
        public java.security.cert.X509Certificate[] getAcceptedIssuers() {
            return new java.security.cert.X509Certificate[0];
        }
    }

    /** Makes a self-signed EC certificate for a host with keytool; @return a directory with cert.pem and key.pem */
    private Path pemCertificate(String host) throws Exception {
        Path directory = Files.createDirectories(dir.resolve(host));
        Path store = directory.resolve("store.p12");
        Process keytool = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "keytool")
                                .toString(),
                        "-genkeypair",
                        "-alias",
                        "server",
                        "-keyalg",
                        "EC",
                        "-groupname",
                        "secp256r1",
                        "-dname",
                        "CN=" + host,
                        "-ext",
                        "SAN=dns:" + host,
                        "-validity",
                        "2",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        store.toString(),
                        "-storepass",
                        "secret")
                .redirectErrorStream(true)
                .start();
        String output = new String(keytool.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(keytool.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) && keytool.exitValue() == 0, output);
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, "secret".toCharArray());
        }
        Files.writeString(
                directory.resolve("cert.pem"),
                pem("CERTIFICATE", keys.getCertificate("server").getEncoded()));
        Files.writeString(
                directory.resolve("key.pem"),
                pem("PRIVATE KEY", keys.getKey("server", "secret".toCharArray()).getEncoded()));
        return directory;
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + java.util.Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    /** @return a client context that trusts the certificate in the development keystore */
    private static SSLContext trusting(Path keystore) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, DevCertificate.PASSWORD.toCharArray());
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }
}
