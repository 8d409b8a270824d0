package dev.quarry.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.TlsConfig;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.TestCertificates;
import java.io.IOException;
import java.security.cert.X509Certificate;
import java.util.Optional;
import java.util.function.Consumer;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/**
 * Several certificates on one HTTPS port, chosen by the host name the client sends (SNI): exact names before
 * wildcards, a default for clients that send none or an unknown one, and no default when SNI is required.
 */
class SniTest extends ServerTestBase {
    private static TestCertificates fallback;
    private static TestCertificates wildcard;
    private static TestCertificates exact;
    private static TestCertificates commonNameOnly;

    private static synchronized void generate() {
        if (fallback == null) {
            fallback = TestCertificates.create("EC", "default.test", "default.test", "www.default.test");
            wildcard = TestCertificates.create("EC", "wildcard", "*.example.com");
            exact = TestCertificates.create("RSA", "www.example.com", "www.example.com");
            commonNameOnly = TestCertificates.create("EC", "legacy.test");
        }
    }

    private int startWithCertificates(Consumer<TlsConfig.Builder> more) throws IOException {
        generate();
        start(builder -> builder.https("127.0.0.1", 0, tls -> {
                    tls.pem(fallback.certificatePem(), fallback.keyPem())
                            .keyStore(wildcard.keyStore(), TestCertificates.PASSWORD)
                            .pem(exact.certificatePem(), exact.keyPem())
                            .pem(commonNameOnly.certificatePem(), commonNameOnly.keyPem());
                    more.accept(tls);
                })
                .route("GET /", (request, response) -> response.send("ok")));
        return server.connectors().get(1).localPort();
    }

    private X509Certificate presented(int port, String serverName) throws IOException {
        return TlsClients.peerCertificate(port, Optional.ofNullable(serverName), WAIT);
    }

    @Test
    void anExactNameBeatsAWildcard() throws Exception {
        int port = startWithCertificates(tls -> {});
        assertEquals(exact.certificate(), presented(port, "www.example.com"));
        assertEquals(exact.certificate(), presented(port, "WWW.Example.COM"), "names compare case-insensitively");
    }

    @Test
    void aWildcardMatchesOneLabel() throws Exception {
        int port = startWithCertificates(tls -> {});
        assertEquals(wildcard.certificate(), presented(port, "api.example.com"));
        assertEquals(fallback.certificate(), presented(port, "a.b.example.com"), "two labels: not the wildcard");
        assertEquals(fallback.certificate(), presented(port, "example.com"), "no label: not the wildcard");
    }

    @Test
    void theNameIsChosenBeforeTheKeyType() throws Exception {
        int port = startWithCertificates(tls -> {});
        // www.example.com has an RSA certificate of its own; the wildcard and the default are EC. A client that prefers
        // ECDSA but verifies RSA too still gets the certificate with exactly its name...
        assertEquals(
                exact.certificate(),
                presented(port, "www.example.com", "ecdsa_secp256r1_sha256", "rsa_pss_rsae_sha256"));
        // ...and one that verifies ECDSA only gets the most specific certificate it can use: the wildcard.
        assertEquals(wildcard.certificate(), presented(port, "www.example.com", "ecdsa_secp256r1_sha256"));
    }

    private X509Certificate presented(int port, String serverName, String... signatureSchemes) throws IOException {
        try (javax.net.ssl.SSLSocket socket = (javax.net.ssl.SSLSocket)
                TlsClients.trustingAll().getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.setSoTimeout((int) WAIT.toMillis());
            javax.net.ssl.SSLParameters parameters = socket.getSSLParameters();
            parameters.setServerNames(java.util.List.of(new javax.net.ssl.SNIHostName(serverName)));
            parameters.setSignatureSchemes(signatureSchemes);
            socket.setSSLParameters(parameters);
            socket.startHandshake();
            return (X509Certificate) socket.getSession().getPeerCertificates()[0];
        }
    }

    @Test
    void everyNameOfACertificateSelectsIt() throws Exception {
        int port = startWithCertificates(tls -> {});
        assertEquals(fallback.certificate(), presented(port, "www.default.test"));
    }

    @Test
    void aCertificateWithoutSubjectAlternativeNamesIsFoundByItsCommonName() throws Exception {
        int port = startWithCertificates(tls -> {});
        assertEquals(commonNameOnly.certificate(), presented(port, "legacy.test"));
    }

    @Test
    void aClientWithoutSniOrWithAnUnknownNameGetsTheFirstCertificate() throws Exception {
        int port = startWithCertificates(tls -> {});
        assertEquals(fallback.certificate(), presented(port, null));
        assertEquals(fallback.certificate(), presented(port, "unknown.test"));
    }

    @Test
    void requiredSniRefusesAnUnknownNameWithUnrecognizedName() throws Exception {
        int port = startWithCertificates(tls -> tls.requireSni(true));
        SSLHandshakeException refused =
                assertThrows(SSLHandshakeException.class, () -> presented(port, "unknown.test"));
        assertTrue(refused.getMessage().contains("unrecognized_name"), refused::toString);
        assertEquals(wildcard.certificate(), presented(port, "api.example.com"), "known names are still served");
    }

    @Test
    void requiredSniRefusesAClientThatSendsNoName() throws Exception {
        int port = startWithCertificates(tls -> tls.requireSni(true));
        SSLHandshakeException refused = assertThrows(SSLHandshakeException.class, () -> presented(port, null));
        assertTrue(refused.getMessage().contains("handshake_failure"), refused::toString);
        assertEquals(fallback.certificate(), presented(port, "default.test"));
    }

    @Test
    void theConfigurationListsTheNames() throws Exception {
        generate();
        TlsConfig config = TlsConfig.builder()
                .pem(fallback.certificatePem(), fallback.keyPem())
                .keyStore(wildcard.keyStore(), TestCertificates.PASSWORD)
                .build();
        assertEquals(java.util.List.of("default.test", "www.default.test", "*.example.com"), config.serverNames());
    }

    @Test
    void aKeyThatIsNotTheCertificatesIsRefusedAtOnce() {
        generate();
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> TlsConfig.builder().pem(fallback.certificatePem(), wildcard.keyPem()));
        assertTrue(refused.getMessage().contains("does not belong to the certificate"), refused::getMessage);
    }
}
