package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.hpack.HpackDecoder;
import dev.quarry.http.hpack.HpackException;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Handler;
import dev.quarry.server.test.Echo;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An h2c upgrade ({@code Upgrade: h2c}, RFC 7540 3.2; RFC 9113 dropped it, Quarry keeps it) on a request that also
 * carries {@code Expect: 100-continue}. RFC 7540 3.2 has the server receive the whole request body before it switches,
 * or refuse the upgrade; Quarry refuses it for a request with content, and answers that request over HTTP/1.1: a 100
 * when the handler reads, then the final response, on a connection that stays HTTP/1.1. Never a hang, never a 100
 * after the 101, never body bytes read as HTTP/2 frames. A bodiless request is upgraded, with no 100 at all.
 */
class H2cUpgradeExpectContinueTest extends ServerTestBase {
    /** SETTINGS_MAX_CONCURRENT_STREAMS = 100, base64url without padding (RFC 7540 3.2.1). */
    private static final String HTTP2_SETTINGS = "AAMAAABk";

    private static final String UPGRADE_FIELDS = "Expect: 100-continue\r\nUpgrade: h2c\r\nHTTP2-Settings: "
            + HTTP2_SETTINGS + "\r\nConnection: Upgrade, HTTP2-Settings\r\n";

    private static final byte[] CLIENT_PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EMPTY_SETTINGS = {0, 0, 0, 4, 0, 0, 0, 0, 0};
    private static final int DATA = 0;
    private static final int HEADERS = 1;
    private static final int GOAWAY = 7;
    private static final int END_STREAM = 0x1;

    private void startEcho() throws IOException {
        startEcho(false);
    }

    /** Echoes with a blocking handler (reads through the input stream) or an asynchronous one (reads on demand). */
    private void startEcho(boolean async) throws IOException {
        if (async) {
            AsyncHandler echo = Echo.async();
            start(builder -> builder.handler(echo));
        } else {
            Handler echo = Echo.blocking();
            start(builder -> builder.handler(echo));
        }
    }

    /** @return the head of an upgrading POST with {@code Expect: 100-continue} and the given framing field */
    private static String head(String framing) {
        return "POST /upload HTTP/1.1\r\nHost: localhost\r\n" + framing + "\r\n" + UPGRADE_FIELDS + "\r\n";
    }

    private static String framingField(boolean chunked) {
        return chunked ? "Transfer-Encoding: chunked" : "Content-Length: 5";
    }

    private static String body(boolean chunked) {
        return chunked ? "5\r\nhello\r\n0\r\n\r\n" : "hello";
    }

    @ParameterizedTest(name = "chunked={0}, async={1}")
    @CsvSource({"false, false", "true, false", "false, true", "true, true"})
    void aClientThatWaitsForThe100GetsItThenAnHttp11Answer(boolean chunked, boolean async) throws IOException {
        startEcho(async);
        RawClient client = connect();
        client.send(head(framingField(chunked)));
        RawResponse interim = client.readResponse();
        assertEquals(100, interim.status(), () -> "the 100 comes before the body is sent: " + interim);
        client.send(body(chunked));
        assertAnsweredOverHttp11(client.readResponse());
        assertConnectionStaysHttp11(client);
    }

    @ParameterizedTest(name = "chunked={0}")
    @ValueSource(booleans = {false, true})
    void aClientThatSendsTheBodyWithoutWaitingGetsAnHttp11Answer(boolean chunked) throws IOException {
        startEcho();
        RawClient client = connect();
        client.send(head(framingField(chunked)) + body(chunked));
        // A 100 may still come (the server need not know that the body is there already), but never a 101.
        RawResponse response = client.readResponse();
        if (response.status() == 100) {
            response = client.readResponse();
        }
        assertAnsweredOverHttp11(response);
        assertConnectionStaysHttp11(client);
    }

    @Test
    void aBodilessUpgradeWithTheExpectationSwitchesWithoutA100() throws Exception {
        startEcho();
        RawClient client = connect();
        client.send("POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n" + UPGRADE_FIELDS + "\r\n");
        RawResponse switching = client.readResponse();
        assertEquals(101, switching.status(), () -> "nothing before the 101: " + switching);
        client.send(CLIENT_PREFACE);
        client.send(EMPTY_SETTINGS);
        Stream1 stream = readStream1(client);
        assertEquals(List.of(200), stream.statuses(), "one final status on stream 1, no 100 after the 101");
        Map<String, String> echoed = Echo.parse(new String(stream.body(), StandardCharsets.UTF_8));
        assertEquals("HTTP/2.0", echoed.get("version"), echoed::toString);
        assertEquals("0", echoed.get("bodyLength"), echoed::toString);
    }

    private static void assertAnsweredOverHttp11(RawResponse response) {
        assertEquals(200, response.status(), response::toString);
        assertEquals("HTTP/1.1", response.version(), response::toString);
        Map<String, String> echoed = Echo.parse(response);
        assertEquals("HTTP/1.1", echoed.get("version"), echoed::toString);
        assertEquals("hello", echoed.get("body"), "the whole body reached the handler over HTTP/1.1");
        assertFalse(response.header("Upgrade").isPresent(), response::toString);
    }

    /** The refused upgrade left the connection HTTP/1.1: the next request on it is answered so. */
    private static void assertConnectionStaysHttp11(RawClient client) throws IOException {
        RawResponse next =
                client.send("GET /next HTTP/1.1\r\nHost: localhost\r\n\r\n").readResponse();
        assertEquals(200, next.status(), next::toString);
        assertEquals("HTTP/1.1", Echo.parse(next).get("version"), next::toString);
    }

    /** Stream 1 of an upgraded connection: the {@code :status} of each HEADERS frame, and the DATA. */
    private record Stream1(List<Integer> statuses, byte[] body) {}

    /** Reads HTTP/2 frames until stream 1 ends; fails on GOAWAY (the server took something for a bad frame). */
    private static Stream1 readStream1(RawClient client) throws IOException, HpackException {
        HpackDecoder decoder = new HpackDecoder();
        List<Integer> statuses = new ArrayList<>();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            byte[] header = client.readBytes(9);
            int length = (header[0] & 0xFF) << 16 | (header[1] & 0xFF) << 8 | (header[2] & 0xFF);
            int type = header[3] & 0xFF;
            int flags = header[4] & 0xFF;
            int streamId =
                    (header[5] & 0x7F) << 24 | (header[6] & 0xFF) << 16 | (header[7] & 0xFF) << 8 | (header[8] & 0xFF);
            byte[] payload = client.readBytes(length);
            assertNotEquals(GOAWAY, type, () -> "GOAWAY: " + new String(payload, StandardCharsets.ISO_8859_1));
            if (streamId != 1) {
                continue; // SETTINGS, their ACK, WINDOW_UPDATE
            }
            if (type == HEADERS) {
                decoder.decode(ByteBuffer.wrap(payload), (name, value) -> {
                    if (name.equals(":status")) {
                        statuses.add(Integer.parseInt(value));
                    }
                });
            } else if (type == DATA) {
                body.write(payload);
            }
            assertTrue(type == HEADERS || type == DATA, "a frame of type " + type + " on stream 1");
            if ((flags & END_STREAM) != 0) {
                return new Stream1(statuses, body.toByteArray());
            }
        }
    }
}
