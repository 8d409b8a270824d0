package dev.quarry.http.h2test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.HttpFields;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.hpack.HeaderField;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Http2TestClient} against {@link EchoServer}: both made of the frame parser and generator only, over TCP and a
 * Unix-domain socket, which proves that client, parser and generator interoperate, and that the client reports what a
 * server's error handling sends.
 */
class Http2TestClientTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    static Path directory;

    private EchoServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    static Stream<String> transports() {
        return Stream.of("tcp", "unix");
    }

    private Http2TestClient connect(String transport) {
        server = transport.equals("tcp") ? EchoServer.tcp() : EchoServer.unix(directory);
        Http2TestClient client = Http2TestClient.connect(server.address());
        client.awaitSettings(TIMEOUT);
        client.awaitSettingsAck(TIMEOUT);
        return client;
    }

    @ParameterizedTest
    @MethodSource("transports")
    void aGetGetsItsResponse(String transport) {
        try (Http2TestClient client = connect(transport)) {
            int stream = client.get("/hello?x=1");
            Http2TestClient.Response response = client.awaitResponse(stream);
            assertEquals(200, response.status());
            assertEquals("GET /hello?x=1", response.bodyAsString());
            assertEquals("/hello?x=1", response.headers().get("x-path").orElseThrow());
            assertTrue(response.trailers().isEmpty());
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void aPostWithABodyAndTrailersIsEchoed(String transport) {
        try (Http2TestClient client = connect(transport)) {
            int stream = client.nextStreamId();
            client.sendHeaders(
                    stream,
                    "POST",
                    "http",
                    client.authority(),
                    "/upload",
                    new HttpFields().add("x-trailers", "yes"),
                    false);
            client.sendData(stream, "part one,".getBytes(StandardCharsets.UTF_8), false);
            client.sendData(stream, "part two".getBytes(StandardCharsets.UTF_8), false);
            client.sendTrailers(stream, new HttpFields().add("x-checksum", "abc"));
            Http2TestClient.Response response = client.awaitResponse(stream);
            assertEquals("POST /upload part one,part two", response.bodyAsString());
            assertEquals("1", response.headers().get("x-request-trailers").orElseThrow());
            assertEquals(
                    Integer.toString(response.body().length),
                    response.trailers().get("x-length").orElseThrow());
        }
    }

    @Test
    void aLargeBodyCrossesManyFramesBothWays() {
        try (Http2TestClient client = connect("tcp")) {
            byte[] body = new byte[200_000];
            new Random(3).nextBytes(body);
            int stream = client.request("PUT", "/big", new HttpFields(), body);
            Http2TestClient.Response response = client.awaitResponse(stream);
            byte[] expected = ("PUT /big ").getBytes(StandardCharsets.UTF_8);
            assertEquals(expected.length + body.length, response.body().length);
            assertArrayEquals(
                    body, java.util.Arrays.copyOfRange(response.body(), expected.length, response.body().length));
            long dataFrames = client.events().stream()
                    .filter(FrameEvent.Data.class::isInstance)
                    .count();
            assertTrue(dataFrames >= 13, "DATA frames of at most 16384 octets: " + dataFrames);
        }
    }

    @Test
    void manyConcurrentStreamsOnOneConnection() {
        try (Http2TestClient client = connect("tcp")) {
            int[] streams = new int[50];
            for (int i = 0; i < streams.length; i++) {
                streams[i] = client.get("/s/" + i);
            }
            for (int i = streams.length - 1; i >= 0; i--) {
                assertEquals("GET /s/" + i, client.awaitResponse(streams[i]).bodyAsString());
            }
        }
    }

    @Test
    void pingIsAnswered() {
        try (Http2TestClient client = connect("tcp")) {
            Duration roundTrip = client.ping(TIMEOUT);
            assertTrue(roundTrip.compareTo(TIMEOUT) < 0);
        }
    }

    @Test
    void aMalformedRequestIsReset() {
        try (Http2TestClient client = connect("tcp")) {
            int stream = client.nextStreamId();
            client.sendHeaderBlock(
                    stream,
                    List.of(
                            new HeaderField(":method", "GET"),
                            new HeaderField(":scheme", "http"),
                            new HeaderField(":path", "/"),
                            new HeaderField("X-Upper", "1")),
                    true,
                    1000);
            FrameEvent.RstStream reset = client.awaitRstStream(stream, TIMEOUT);
            assertEquals(ErrorCode.PROTOCOL_ERROR, reset.error());
            // The connection goes on.
            assertEquals(200, client.awaitResponse(client.get("/after")).status());
        }
    }

    @Test
    void aHeaderBlockInOneOctetFragmentsIsReassembled() {
        try (Http2TestClient client = connect("tcp")) {
            int stream = client.nextStreamId();
            client.sendHeaderBlock(
                    stream,
                    List.of(
                            new HeaderField(":method", "GET"),
                            new HeaderField(":scheme", "http"),
                            new HeaderField(":path", "/tiny")),
                    true,
                    1);
            assertEquals("GET /tiny", client.awaitResponse(stream).bodyAsString());
        }
    }

    @Test
    void aConnectionErrorGetsGoAwayAndTheConnectionCloses() {
        try (Http2TestClient client = connect("tcp")) {
            client.sendFrame(0x6, 0, 1, new byte[8]); // PING on a stream
            FrameEvent.GoAway goAway = client.awaitGoAway(TIMEOUT);
            assertEquals(ErrorCode.PROTOCOL_ERROR, goAway.error());
            assertTrue(goAway.debug().contains("PING"), goAway.debug());
            // The server ends its output after the GOAWAY instead of resetting the connection.
            assertEquals("end of input", client.awaitClosed(TIMEOUT).how());
        }
    }

    @Test
    void theAckOfTheServersSettingsNeverOvertakesTheClientPreface() {
        server = EchoServer.tcp();
        try (Http2TestClient client = Http2TestClient.open(server.address(), 16_384)) {
            // The server's SETTINGS is there before the client said anything: an ACK sent now would be a bad preface.
            client.awaitSettings(TIMEOUT);
            client.sendPreface();
            client.sendSettings(new Http2Settings());
            client.awaitSettingsAck(TIMEOUT);
            assertEquals(200, client.awaitResponse(client.get("/after-preface")).status());
            assertTrue(server.errors().isEmpty(), () -> "server saw: " + server.errors());
        }
    }

    @Test
    void sendsAfterTheConnectionEndedAreRecordedNotThrown() {
        Http2TestClient client = connect("tcp");
        client.close();
        client.sendPing(1, false);
        client.get("/too-late");
        assertTrue(client.writeFailure().isPresent(), "the failed write is reported");
        AssertionError error = assertThrows(AssertionError.class, () -> client.ping(Duration.ofMillis(50)));
        assertTrue(error.getMessage().contains("writing failed"), error.getMessage());
    }

    @Test
    void aFlowControlledSendStopsAtTheStreamWindow() {
        // The echo server returns connection credit only: the stream's initial window of 65535 is all there is.
        try (Http2TestClient client = connect("tcp")) {
            int stream = client.nextStreamId();
            client.sendHeaders(stream, "POST", "http", client.authority(), "/window", new HttpFields(), false);
            AssertionError error = assertThrows(
                    AssertionError.class,
                    () -> client.sendDataFlowControlled(stream, new byte[70_000], true, Duration.ofMillis(200)));
            assertTrue(error.getMessage().contains("no flow-control credit for stream " + stream), error.getMessage());
            assertEquals(0, client.streamSendWindow(stream));
            // The server returns connection credit for each DATA frame it read: the connection window refills.
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (client.connectionSendWindow() != 65_535) {
                assertTrue(System.nanoTime() < deadline, () -> "connection window " + client.connectionSendWindow());
                client.await(FrameEvent.WindowUpdate.class, u -> u.streamId() == 0, TIMEOUT);
            }
            assertEquals(0, client.streamSendWindow(stream));
        }
    }

    @Test
    void aWrongPrefaceGetsGoAway() {
        server = EchoServer.tcp();
        try (Http2TestClient client = Http2TestClient.open(server.address(), 16_384)) {
            client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            client.awaitSettings(TIMEOUT);
            assertEquals(ErrorCode.PROTOCOL_ERROR, client.awaitGoAway(TIMEOUT).error());
            client.awaitClosed(TIMEOUT);
        }
    }

    @Test
    void theClientAppliesTheServersMaxFrameSizeAndAcknowledgesItsSettings() {
        server = EchoServer.tcp();
        Http2Settings settings = new Http2Settings().set(Http2Settings.MAX_FRAME_SIZE, 32_768);
        try (Http2TestClient client = Http2TestClient.connect(server.address(), settings)) {
            client.awaitSettingsAck(TIMEOUT);
            int stream = client.request("POST", "/x", new HttpFields(), new byte[40_000]);
            assertEquals(
                    "POST /x ".length() + 40_000, client.awaitResponse(stream).body().length);
            long big = client.events().stream()
                    .filter(e -> e instanceof FrameEvent.Data data && data.data().length > 16_384)
                    .count();
            assertTrue(big > 0, "the server used the larger frames the client allowed");
        }
    }

    @Test
    void anAwaitThatTimesOutSaysWhatArrived() {
        try (Http2TestClient client = connect("tcp")) {
            AssertionError error = assertThrows(AssertionError.class, () -> client.awaitGoAway(Duration.ofMillis(50)));
            assertTrue(error.getMessage().contains("GoAway"), error.getMessage());
            assertTrue(error.getMessage().contains("received"), error.getMessage());
        }
    }
}
