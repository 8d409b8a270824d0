package dev.quarry.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.TestCertificates;
import org.junit.jupiter.api.Test;

/** The HTTPS listeners' certificates on the status page and in the Prometheus exposition. */
class TlsMetricsTest extends ServerTestBase {

    @Test
    void eachCertificateInUseHasItsExpiryAndEachHttpsConnectorItsReloads() throws Exception {
        TestCertificates certificates = TestCertificates.ec();
        start(builder -> builder.https(
                        "127.0.0.1", 0, tls -> tls.pem(certificates.certificatePem(), certificates.keyPem()))
                .route("GET /", (request, response) -> response.send("ok")));
        String connector = server.connectors().get(1).config().name();

        ExpositionParser.Exposition metrics = ExpositionParser.parse(server.metrics());

        assertEquals(certificates.certificate().getNotAfter().getTime() / 1000, (long) metrics.value(
                "quarry_tls_certificate_expiry_timestamp_seconds", "connector", connector, "certificate", "localhost"));
        assertEquals(0, metrics.value("quarry_tls_certificate_reloads_total", "connector", connector));
        assertEquals(0, metrics.value("quarry_tls_certificate_reload_failures_total", "connector", connector));
        assertEquals("counter", metrics.types().get("quarry_tls_certificate_reloads_total"));
    }

    @Test
    void theStatusPageShowsTheCertificatesOfEachHttpsListener() throws Exception {
        TestCertificates certificates = TestCertificates.ec();
        start(builder -> builder.https(
                        "127.0.0.1", 0, tls -> tls.pem(certificates.certificatePem(), certificates.keyPem()))
                .route("GET /", (request, response) -> response.send("ok")));
        ServerStatus status = server.status();
        String until = certificates
                .certificate()
                .getNotAfter()
                .toInstant()
                .atZone(java.time.ZoneOffset.UTC)
                .toLocalDate()
                .toString();
        String html = StatusHandler.html(status);
        assertTrue(html.contains("tls certificates"), html);
        assertTrue(html.contains("localhost (EC, until " + until + ")"), html);
        assertTrue(status.toJson().contains("\"localhost (EC, until " + until + ")\""), status::toJson);
    }

    @Test
    void aServerWithoutHttpsHasNoTlsFamilies() throws Exception {
        start(builder -> builder.route("GET /", (request, response) -> response.send("ok")));
        assertFalse(server.metrics().contains("quarry_tls_"));
    }
}
