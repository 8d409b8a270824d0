package dev.quarry.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.handlers.Throttle;
import dev.quarry.server.handlers.ThrottleHandler;
import dev.quarry.server.handlers.ThrottleLimits;
import dev.quarry.server.test.LogCapture;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.TestCertificates;
import dev.quarry.server.test.Transport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A listener with {@link ServerBuilder#proxyProtocol(boolean)}: the client address of the PROXY protocol header is
 * what requests, per-client throttling and the access log see; a listener without it never reads one.
 */
class ProxyProtocolTest extends ServerTestBase {
    private static final String GET = "GET /who HTTP/1.1\r\nHost: test\r\n\r\n";
    private static final String CLIENT_V1 = "PROXY TCP4 192.0.2.7 198.51.100.1 56324 443\r\n";

    /** Answers the remote address the request reports, as host:port (or the socket path). */
    private static final Handler WHO = (request, response) -> response.send(describe(request.remoteAddress()));

    private static String describe(SocketAddress address) {
        return address instanceof InetSocketAddress inet
                ? inet.getAddress().getHostAddress() + ":" + inet.getPort()
                : address.toString();
    }

    /** A v2 PROXY header with a TCP4 block and no TLV. */
    private static byte[] v2Tcp4(int[] source, int sourcePort) {
        byte[] header = new byte[16 + 12];
        byte[] signature = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
        System.arraycopy(signature, 0, header, 0, 12);
        header[12] = 0x21;
        header[13] = 0x11;
        header[15] = 12;
        for (int i = 0; i < 4; i++) {
            header[16 + i] = (byte) source[i];
            header[20 + i] = (byte) (i == 0 ? 10 : 1);
        }
        header[24] = (byte) (sourcePort >>> 8);
        header[25] = (byte) sourcePort;
        header[27] = 80;
        return header;
    }

    private static byte[] concat(byte[] a, String b) {
        byte[] tail = b.getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[a.length + tail.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(tail, 0, out, a.length, tail.length);
        return out;
    }

    @ParameterizedTest
    @EnumSource(
            value = Transport.class,
            names = {"TCP", "UNIX"}) // the header is sent in clear
    void theRequestReportsTheClientOfAV1Header(Transport transport) throws Exception {
        start(transport, builder -> builder.proxyProtocol(true).route("GET /who", WHO));
        RawResponse response = connect().send(CLIENT_V1 + GET).readResponse();
        assertEquals(200, response.status(), response::toString);
        assertEquals("192.0.2.7:56324", response.text());
    }

    @ParameterizedTest
    @EnumSource(
            value = Transport.class,
            names = {"TCP", "UNIX"}) // the header is sent in clear
    void theRequestReportsTheClientOfAV2HeaderOnEveryRequestOfTheConnection(Transport transport) throws Exception {
        start(transport, builder -> builder.proxyProtocol(true).route("GET /who", WHO));
        RawClient client = connect().send(concat(v2Tcp4(new int[] {203, 0, 113, 9}, 40000), GET));
        assertEquals("203.0.113.9:40000", client.readResponse().text());
        assertEquals("203.0.113.9:40000", client.send(GET).readResponse().text(), "the second request too");
    }

    @Test
    void aConnectionWithoutHeaderKeepsItsOwnAddress() throws Exception {
        start(Transport.TCP, builder -> builder.proxyProtocol(true).route("GET /who", WHO));
        RawClient client = connect();
        assertEquals(
                describe(client.localAddress()), client.send(GET).readResponse().text());
    }

    @Test
    void theOptionNeedsAListenerToApplyTo() {
        IllegalStateException x =
                assertThrows(IllegalStateException.class, () -> Server.builder().proxyProtocol(true));
        assertTrue(x.getMessage().contains("call http(...), https(...) or unix(...) first"), x.getMessage());
    }

    @Test
    void aListenerWithoutTheOptionNeverReadsAHeader() throws Exception {
        start(Transport.TCP, builder -> builder.route("GET /who", WHO));
        RawResponse response = connect().send(CLIENT_V1 + GET).readResponse();
        assertEquals(400, response.status(), "the header is a malformed request line there: " + response);
    }

    @Test
    void garbageInTheHeaderClosesTheConnectionWithADebugLine() throws Exception {
        try (LogCapture log = LogCapture.of("dev.quarry")) {
            start(Transport.TCP, builder -> builder.proxyProtocol(true).route("GET /who", WHO));
            RawClient client = connect().send("PROXY TCP4 999.0.0.1 198.51.100.1 1 2\r\n" + GET);
            client.awaitClosed(); // without an answer: it throws if anything arrives first
            await(
                    "the debug line",
                    () -> !log.matching(r -> r.getLevel() == Level.FINE
                                    && r.getMessage().contains("'999.0.0.1' is not a dotted-quad IPv4 address"))
                            .isEmpty(),
                    log::describe);
            assertEquals(java.util.List.of(), log.warnings(), log::describe);
            assertServedNormally(CLIENT_V1 + GET);
            java.util.Map<?, ?> connector = (java.util.Map<?, ?>)
                    ((java.util.List<?>) server.status().sections().get("connectors")).get(0);
            assertEquals(1L, connector.get("proxy headers rejected"), connector::toString);
            assertEquals(1L, connector.get("proxy headers"), connector::toString);
            assertTrue(
                    server.metrics()
                            .contains("quarry_proxy_headers_total{connector=\"test-0\",result=\"rejected\"} 1\n"),
                    server::metrics);
        }
    }

    @Test
    void perClientThrottlingCountsTheHeadersClient() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Throttle throttle =
                Throttle.of(ThrottleLimits.builder().maxRequestsPerClient(1).build());
        Handler slow = (request, response) -> {
            release.await(20, TimeUnit.SECONDS);
            response.send(describe(request.remoteAddress()));
        };
        start(
                Transport.UNIX,
                builder -> builder.proxyProtocol(true)
                        .manage(throttle)
                        .route("GET /who", new ThrottleHandler(throttle, slow)));
        RawClient first = connect().send(CLIENT_V1 + GET);
        await("the first request admitted", () -> throttle.statistics().activeRequests() == 1, throttle::toString);
        RawResponse second =
                connect().send(CLIENT_V1.replace("56324", "56325") + GET).readResponse();
        assertEquals(429, second.status(), "the same client, through another proxy connection: " + second);
        RawClient other = connect().send("PROXY TCP4 192.0.2.8 198.51.100.1 56326 443\r\n" + GET);
        await("another client admitted", () -> throttle.statistics().activeRequests() == 2, throttle::toString);
        release.countDown();
        assertEquals("192.0.2.7:56324", first.readResponse().text());
        assertEquals("192.0.2.8:56326", other.readResponse().text());
    }

    @Test
    void theAccessLogWritesTheHeadersClient() throws Exception {
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        AccessLog log = AccessLog.toStream(output, AccessLog.Format.COMBINED);
        start(
                Transport.TCP,
                builder -> builder.proxyProtocol(true).accessLog(log).route("GET /who", WHO));
        assertEquals(200, connect().send(CLIENT_V1 + GET).readResponse().status());
        await("the line written", () -> log.written() >= 1, log::toString);
        String line = output.toString(StandardCharsets.UTF_8);
        assertTrue(line.startsWith("192.0.2.7 - - ["), line);
    }

    @Test
    void overHttpsTheHeaderComesBeforeTheHandshake() throws Exception {
        TestCertificates certificates = TestCertificates.ec();
        start(
                Transport.TCP,
                builder -> builder.https(
                                "127.0.0.1", 0, tls -> tls.keyStore(certificates.keyStore(), TestCertificates.PASSWORD))
                        .proxyProtocol(true)
                        .route("GET /who", WHO));
        int port = server.connectors().get(1).localPort();
        assertEquals(
                "https (h2, http/1.1) on 127.0.0.1:" + port + " (PROXY protocol)",
                Server.describe(server.connectors().get(1)));
        assertFalse(Server.describe(server.connectors().get(0)).contains("PROXY"), "only the listener added last");
        try (Socket plain = new Socket("127.0.0.1", port)) {
            plain.getOutputStream().write(v2Tcp4(new int[] {198, 51, 100, 23}, 1234));
            try (SSLSocket tls = (SSLSocket)
                    certificates.clientContext().getSocketFactory().createSocket(plain, "localhost", port, false)) {
                tls.setSoTimeout((int) WAIT.toMillis());
                OutputStream out = tls.getOutputStream();
                out.write("GET /who HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = tls.getInputStream();
                String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
                assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
                assertTrue(answer.endsWith("198.51.100.23:1234"), answer);
                assertFalse(answer.contains("127.0.0.1"), answer);
            }
        }
    }

    @Test
    void overHttpsTheClientHelloMayArriveWithTheHeader() throws Exception {
        TestCertificates certificates = TestCertificates.ec();
        start(
                Transport.TCP,
                builder -> builder.https(
                                "127.0.0.1", 0, tls -> tls.keyStore(certificates.keyStore(), TestCertificates.PASSWORD))
                        .proxyProtocol(true)
                        .route("GET /who", WHO));
        int port = server.connectors().get(1).localPort();
        byte[] header = v2Tcp4(new int[] {198, 51, 100, 24}, 4321);
        try (ServerSocket relay = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Thread relaying = Thread.ofVirtual().start(() -> relayOnce(relay, port, header));
            try (SSLSocket tls = (SSLSocket)
                    certificates.clientContext().getSocketFactory().createSocket("127.0.0.1", relay.getLocalPort())) {
                tls.setSoTimeout((int) WAIT.toMillis());
                tls.getOutputStream()
                        .write("GET /who HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                                .getBytes(StandardCharsets.US_ASCII));
                String answer = new String(tls.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
                assertTrue(answer.endsWith("198.51.100.24:4321"), answer);
            }
            assertTrue(relaying.join(WAIT), "the relay ended");
        }
    }

    /**
     * Relays one connection to the server as a proxy in TCP mode would, with the header and the client's first bytes
     * (its TLS ClientHello) in one write: one segment, which the server reads in one go.
     */
    private static void relayOnce(ServerSocket relay, int port, byte[] header) {
        try (Socket client = relay.accept();
                Socket upstream = new Socket("127.0.0.1", port)) {
            byte[] first = new byte[16 * 1024];
            int count = client.getInputStream().read(first);
            byte[] both = new byte[header.length + count];
            System.arraycopy(header, 0, both, 0, header.length);
            System.arraycopy(first, 0, both, header.length, count);
            upstream.getOutputStream().write(both);
            Thread back = Thread.ofVirtual().start(() -> {
                try {
                    upstream.getInputStream().transferTo(client.getOutputStream());
                    client.shutdownOutput();
                } catch (IOException x) {
                    // the client closed first: nothing left to relay
                }
            });
            try {
                client.getInputStream().transferTo(upstream.getOutputStream());
            } catch (IOException x) {
                // the server closed first
            }
            back.join(WAIT);
        } catch (IOException | InterruptedException x) {
            throw new AssertionError("relay failed", x);
        }
    }
}
