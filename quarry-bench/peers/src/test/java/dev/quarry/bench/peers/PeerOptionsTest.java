package dev.quarry.bench.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PeerOptionsTest {
    @Test
    void parsesPortHostAndIdleTimeoutInAnyOrder() {
        PeerOptions options = PeerOptions.parse("--idle-timeout", "60", "--port", "9000", "--host", "localhost");

        assertEquals(new PeerOptions("localhost", 9000, Duration.ofSeconds(60)), options);
    }

    @Test
    void parsesTheTlsKeystoreItsPasswordAndProvider() {
        PeerOptions options = PeerOptions.parse(
                "--tls-keystore", "/tmp/k.p12", "--port", "8443", "--tls-password", "pw", "--tls-provider", "openssl");

        assertEquals(new PeerOptions.Tls(Path.of("/tmp/k.p12"), "pw", PeerOptions.TlsProvider.OPENSSL), options.tls());
        assertTrue(options.secure());
        assertFalse(options.toString().contains("pw"), options.toString());
    }

    @Test
    void isCleartextWithoutAKeystoreAndTheJdkProviderByDefault() {
        assertFalse(PeerOptions.parse("--port", "1").secure());
        assertEquals(
                PeerOptions.TlsProvider.JDK,
                PeerOptions.parse("--tls-keystore", "k.p12").tls().provider());
    }

    @Test
    void rejectsTlsOptionsWithoutAKeystoreAndAnUnknownProvider() {
        IllegalArgumentException noKeystore =
                assertThrows(IllegalArgumentException.class, () -> PeerOptions.parse("--tls-password", "pw"));
        assertTrue(noKeystore.getMessage().contains("--tls-keystore"), noKeystore.getMessage());
        IllegalArgumentException provider = assertThrows(
                IllegalArgumentException.class,
                () -> PeerOptions.parse("--tls-keystore", "k.p12", "--tls-provider", "gnutls"));
        assertTrue(provider.getMessage().contains("'gnutls'"), provider.getMessage());
    }

    @Test
    void defaultsToLoopbackWithAFiveMinuteIdleTimeout() {
        PeerOptions options = PeerOptions.parse();

        assertEquals("127.0.0.1", options.host());
        assertEquals(Duration.ofMinutes(5), options.idleTimeout());
    }

    @Test
    void namesTheOptionWhoseValueIsNotANumber() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> PeerOptions.parse("--port", "http"));

        assertTrue(e.getMessage().contains("--port") && e.getMessage().contains("'http'"), e.getMessage());
    }

    @Test
    void rejectsAnUnknownOption() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> PeerOptions.parse("--threads", "4"));

        assertTrue(e.getMessage().contains("--threads"), e.getMessage());
    }

    @Test
    void rejectsAPortOutOfRange() {
        assertThrows(IllegalArgumentException.class, () -> PeerOptions.parse("--port", "70000"));
    }

    @Test
    void findsAPeerByItsCommandLineName() {
        assertEquals(Peer.NETTY_EPOLL, Peer.of("netty-epoll"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Peer.of("tomcat"));
        assertTrue(e.getMessage().contains("tomcat") && e.getMessage().contains("jetty"), e.getMessage());
    }
}
