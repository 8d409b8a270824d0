package dev.quarry.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.ServerBuilder;
import dev.quarry.server.TlsConfig;
import dev.quarry.server.test.LogCapture;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.TestCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/**
 * Certificates replaced while the server runs: by the API, by JMX, and by the file watcher. New handshakes get the new
 * certificate, connections already made keep theirs and keep working, and files that cannot be used leave the
 * certificate in use in place.
 */
class CertificateReloadTest extends ServerTestBase {
    private static TestCertificates first;
    private static TestCertificates second;

    private Path certificate;
    private Path key;

    private static synchronized void generate() {
        if (first == null) {
            first = TestCertificates.create("EC", "first.test", "first.test");
            second = TestCertificates.create("EC", "second.test", "second.test");
        }
    }

    private int startWithFiles(Consumer<TlsConfig.Builder> more) throws IOException {
        return startWithFiles(builder -> {}, more);
    }

    private int startWithFiles(Consumer<ServerBuilder> settings, Consumer<TlsConfig.Builder> more) throws IOException {
        generate();
        certificate = tempDir.resolve("cert.pem");
        key = tempDir.resolve("key.pem");
        install(first);
        start(builder -> {
            builder.https("127.0.0.1", 0, tls -> {
                        tls.pem(certificate, key);
                        more.accept(tls);
                    })
                    .route("GET /", (request, response) -> response.send("ok"));
            settings.accept(builder);
        });
        return server.connectors().get(1).localPort();
    }

    /** Writes a certificate and its key where the server reads them, as a deployment tool would (not atomically). */
    private void install(TestCertificates certificates) throws IOException {
        Files.copy(certificates.certificatePem(), certificate, StandardCopyOption.REPLACE_EXISTING);
        Files.copy(certificates.keyPem(), key, StandardCopyOption.REPLACE_EXISTING);
    }

    private X509Certificate presented(int port) throws IOException {
        return TlsClients.peerCertificate(port, Optional.empty(), WAIT);
    }

    /** Sends a request on an open connection and reads the whole answer (the request asks to close). */
    private static String get(SSLSocket socket) throws IOException {
        socket.getOutputStream()
                .write("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        InputStream in = socket.getInputStream();
        return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }

    @Test
    void aReloadServesTheNewCertificateToNewConnectionsAndLeavesOpenOnesAlone() throws Exception {
        int port = startWithFiles(tls -> {});
        try (SSLSocket before = TlsClients.connect(port, Optional.empty(), WAIT)) {
            assertEquals(first.certificate(), before.getSession().getPeerCertificates()[0]);

            install(second);
            server.reloadCertificates();

            assertEquals(second.certificate(), presented(port), "a new connection gets the new certificate");
            String answer = get(before);
            assertTrue(answer.startsWith("HTTP/1.1 200 ") && answer.endsWith("ok"), answer);
            assertEquals(first.certificate(), before.getSession().getPeerCertificates()[0]);
        }
        java.util.Map<?, ?> tls =
                (java.util.Map<?, ?>) server.status().sections().get("tls certificates");
        java.util.Map<?, ?> listener =
                (java.util.Map<?, ?>) tls.values().iterator().next();
        assertEquals(1L, listener.get("reloads"), tls::toString);
        assertTrue(listener.get("certificates").toString().startsWith("second.test (EC, until "), tls::toString);

        String metrics = server.metrics();
        String connector = server.connectors().get(1).config().name();
        assertTrue(
                metrics.contains("quarry_tls_certificate_expiry_timestamp_seconds{connector=\"" + connector
                        + "\",certificate=\"second.test\"} "
                        + second.certificate().getNotAfter().getTime() / 1000 + "\n"),
                metrics);
        assertTrue(
                metrics.contains("quarry_tls_certificate_reloads_total{connector=\"" + connector + "\"} 1\n"), metrics);
    }

    @Test
    void aRestartServesWhatTheFilesHoldNow() throws Exception {
        startWithFiles(tls -> {});
        install(second);
        server.reloadCertificates();
        server.stop();
        server.start();
        assertEquals(second.certificate(), presented(server.connectors().get(1).localPort()));
    }

    @Test
    void aReloadOfUnusableFilesKeepsTheCertificateInUse() throws Exception {
        int port = startWithFiles(tls -> {});
        Files.writeString(
                certificate, "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n");
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, server::reloadCertificates);
        assertTrue(refused.getMessage().contains(certificate.toString()), refused::getMessage);
        assertEquals(first.certificate(), presented(port));

        // A key that is not the certificate's (one file replaced, the other not yet) is refused too.
        Files.copy(second.certificatePem(), certificate, StandardCopyOption.REPLACE_EXISTING);
        refused = assertThrows(IllegalArgumentException.class, server::reloadCertificates);
        assertTrue(refused.getMessage().contains("does not belong"), refused::getMessage);
        assertEquals(first.certificate(), presented(port));
    }

    @Test
    void theWatcherReloadsWhenTheFilesChange() throws Exception {
        int port = startWithFiles(tls -> tls.watch(Duration.ofMillis(20)));
        try (SSLSocket before = TlsClients.connect(port, Optional.empty(), WAIT)) {
            install(second);
            await("the watcher to reload the certificate", () -> {
                try {
                    return presented(port).equals(second.certificate());
                } catch (IOException x) {
                    return false;
                }
            });
            String answer = get(before);
            assertTrue(answer.endsWith("ok"), answer);
        }
    }

    @Test
    void theWatcherWarnsAboutUnusableFilesAndKeepsTheCertificate() throws Exception {
        try (LogCapture log = LogCapture.of("dev.quarry.server")) {
            int port = startWithFiles(tls -> tls.watch(Duration.ofMillis(20)));
            Files.writeString(key, "not a key");
            await("a warning about the key", () -> !log.warnings().isEmpty(), log::describe);
            String warning = log.warnings().getFirst().getMessage();
            assertTrue(warning.contains("keeping those in use") && warning.contains(key.toString()), warning);
            assertEquals(first.certificate(), presented(port));

            // Fixed files are picked up at the next look.
            install(second);
            await("the watcher to reload the certificate", () -> {
                try {
                    return presented(port).equals(second.certificate());
                } catch (IOException x) {
                    return false;
                }
            });
        }
    }

    @Test
    void jmxShowsTheCertificatesAndReloadsThem() throws Exception {
        int port = startWithFiles(builder -> builder.jmx(true), tls -> {});
        MBeanServer beans = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("dev.quarry:server=test,type=Tls,index=1");
        assertEquals(
                java.util.List.of("first.test"), java.util.List.of((String[]) beans.getAttribute(name, "ServerNames")));
        install(second);
        beans.invoke(name, "reload", new Object[0], new String[0]);
        assertEquals(second.certificate(), presented(port));
        assertEquals(1L, beans.getAttribute(name, "Reloads"));
        String[] certificates = (String[]) beans.getAttribute(name, "Certificates");
        String until = second.certificate()
                .getNotAfter()
                .toInstant()
                .atZone(java.time.ZoneOffset.UTC)
                .toLocalDate()
                .toString();
        assertEquals("second.test (EC, until " + until + ")", certificates[0]);
    }
}
