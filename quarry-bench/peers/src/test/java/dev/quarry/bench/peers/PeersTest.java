package dev.quarry.bench.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every peer serves the TechEmpower plaintext endpoint correctly over HTTP/1.1 (one request, pipelined requests,
 * 404 elsewhere) and over h2c (prior knowledge and Upgrade), as the load scenarios assume, Netty's epoll variant and
 * Vert.x (on the same native transport) included: the build bundles the native library for linux-x86_64.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
class PeersTest {
    private final Map<Peer, PeerServer> servers = new EnumMap<>(Peer.class);

    @BeforeAll
    void startPeers() throws Exception {
        for (Peer peer : Peer.values()) {
            servers.put(peer, peer.start(PeerOptions.loopback(0)));
        }
    }

    @AfterAll
    void stopPeers() {
        servers.values().forEach(PeerServer::close);
    }

    private int port(Peer peer) {
        return servers.get(peer).port();
    }

    @ParameterizedTest
    @EnumSource(Peer.class)
    void answersPlaintextWithTheTechEmpowerHeaders(Peer peer) throws Exception {
        try (Http1Exchange exchange = new Http1Exchange(port(peer))) {
            exchange.send(Http1Exchange.get(Plaintext.PATH));
            Http1Exchange.Response response = exchange.read(1).get(0);

            assertEquals(200, response.status());
            assertEquals(Plaintext.BODY, response.body());
            assertEquals("13", response.headers().get("content-length"));
            assertEquals(Plaintext.CONTENT_TYPE, response.headers().get("content-type"));
            assertEquals(peer.serverHeader(), response.headers().get("server"));
            ZonedDateTime date =
                    ZonedDateTime.parse(response.headers().get("date"), DateTimeFormatter.RFC_1123_DATE_TIME);
            assertTrue(
                    Duration.between(date, ZonedDateTime.now()).abs().toMinutes() < 2,
                    "Date header is not the current time: " + date);
        }
    }

    @ParameterizedTest
    @EnumSource(Peer.class)
    void answersSixteenPipelinedRequestsInOrderOnOneConnection(Peer peer) throws Exception {
        String[] requests = new String[16];
        for (int i = 0; i < requests.length; i++) {
            // The last one asks for a missing page, so that a response out of order would show.
            requests[i] = Http1Exchange.get(i == requests.length - 1 ? "/missing" : Plaintext.PATH);
        }
        try (Http1Exchange exchange = new Http1Exchange(port(peer))) {
            for (int round = 0; round < 3; round++) {
                exchange.send(requests);
                List<Http1Exchange.Response> responses = exchange.read(requests.length);

                for (int i = 0; i < requests.length - 1; i++) {
                    assertEquals(200, responses.get(i).status(), "response " + i + " of round " + round);
                    assertEquals(Plaintext.BODY, responses.get(i).body());
                }
                assertEquals(404, responses.get(requests.length - 1).status());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Peer.class)
    void answersNotFoundForAnotherPath(Peer peer) throws Exception {
        try (Http1Exchange exchange = new Http1Exchange(port(peer))) {
            exchange.send(Http1Exchange.get("/plaintext/more"));

            assertEquals(404, exchange.read(1).get(0).status());
        }
    }

    @ParameterizedTest
    @EnumSource(Peer.class)
    void answersOverH2cWithPriorKnowledgeOnTheSamePort(Peer peer) throws Exception {
        H2cPriorKnowledgeProbe.Result result = H2cPriorKnowledgeProbe.get(port(peer), Plaintext.PATH);

        assertEquals(0x88, result.firstHeaderByte(), ":status 200 (HPACK static index 8) comes first");
        assertEquals(Plaintext.BODY, result.body());
    }

    @ParameterizedTest
    @EnumSource(Peer.class)
    void upgradesToH2cWhenAsked(Peer peer) throws Exception {
        try (HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_2)
                .connectTimeout(Duration.ofSeconds(5))
                .build()) {
            URI uri = URI.create("http://127.0.0.1:" + port(peer) + Plaintext.PATH);
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> response = client.send(
                        HttpRequest.newBuilder(uri)
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());

                assertEquals(200, response.statusCode());
                assertEquals(HttpClient.Version.HTTP_2, response.version(), "request " + i);
                assertEquals(Plaintext.BODY, response.body());
                assertEquals(
                        peer.serverHeader(),
                        response.headers().firstValue("server").orElse(""));
            }
        }
    }

    @Test
    void jettyVirtualThreadPeerRunsItsBlockingHandlerOnVirtualThreads() throws Exception {
        JettyPeer jetty = (JettyPeer) servers.get(Peer.JETTY_VT);
        long before = jetty.blockingRequests();
        try (Http1Exchange exchange = new Http1Exchange(port(Peer.JETTY_VT))) {
            exchange.send(Http1Exchange.get(Plaintext.PATH), Http1Exchange.get(Plaintext.PATH));
            exchange.read(2);
        }
        H2cPriorKnowledgeProbe.get(port(Peer.JETTY_VT), Plaintext.PATH);

        assertEquals(before + 3, jetty.blockingRequests(), "two HTTP/1.1 requests and one h2c request");
        assertEquals(0, jetty.platformThreadRequests(), "requests handled on a platform thread");
    }

    @Test
    void idleClientOpensConnectionsThatStayOpen() throws Exception {
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        IdleClient client = new IdleClient(
                new InetSocketAddress("127.0.0.1", port(Peer.JETTY)),
                100,
                10,
                30,
                1,
                new PrintStream(output, true, StandardCharsets.UTF_8));

        int established = client.run();

        assertEquals(100, established, output.toString(StandardCharsets.UTF_8));
        String report = output.toString(StandardCharsets.UTF_8);
        assertTrue(report.contains("READY established=100 failed=0 pending=0"), report);
        assertTrue(report.contains("DONE established=100 closed-by-server=0"), report);
    }

    @Test
    void idleClientOpensH2cConnectionsThatStayOpen() throws Exception {
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        IdleClient client = new IdleClient(
                new InetSocketAddress("127.0.0.1", port(Peer.JETTY)),
                50,
                10,
                30,
                1,
                true,
                new PrintStream(output, true, StandardCharsets.UTF_8));

        int established = client.run();

        String report = output.toString(StandardCharsets.UTF_8);
        assertEquals(50, established, report);
        assertTrue(report.contains("READY established=50 failed=0 pending=0"), report);
        assertTrue(report.contains("DONE established=50 closed-by-server=0"), report);
    }
}
