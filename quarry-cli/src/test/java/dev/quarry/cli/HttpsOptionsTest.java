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
