package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.http.hpack.HeaderField;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.Transport;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A request head must arrive within the header timeout once it has begun, however its bytes trickle in: each byte
 * restarts the idle timeout, so without a bound of its own a client sending one byte every few seconds (slowloris)
 * kept a connection, and its descriptor, for ever. HTTP/1.1 answers 408 and closes; HTTP/2 closes a connection whose
 * header block (HEADERS and CONTINUATION frames) stalls with GOAWAY.
 */
class HeaderTimeoutTest extends ServerTestBase {
    private static final Duration HEADER_TIMEOUT = Duration.ofMillis(600);
    /** Far beyond the header timeout: only the header timeout can end these heads. */
    private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);

    private static final AsyncHandler OK = AsyncHandler.nonBlocking((request, response, callback) ->
            response.write(true, ByteBuffer.wrap("ok".getBytes(StandardCharsets.US_ASCII)), callback));

    private void startWithHeaderTimeout(Transport transport) throws IOException {
        start(
                transport,
                builder -> builder.handler(OK).headerTimeout(HEADER_TIMEOUT).idleTimeout(IDLE_TIMEOUT));
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aHeadTricklingInByteByByteIsAnswered408AtTheHeaderTimeout(Transport transport) throws Exception {
        startWithHeaderTimeout(transport);
        RawClient client = connect().timeout(WAIT);
        byte[] head = "GET / HTTP/1.1\r\nHost: test\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII);
        AtomicBoolean stop = new AtomicBoolean();
        // A byte every 50 ms, far faster than the idle timeout, for far longer than the header timeout.
        CompletableFuture<Void> trickle = CompletableFuture.runAsync(() -> {
            try {
                for (int i = 0; i < 400 && !stop.get(); i++) {
                    client.send(new byte[] {head[Math.min(i, head.length - 1)]});
                    TimeUnit.MILLISECONDS.sleep(50); // the attack's pace, not a wait for the server
                }
            } catch (IOException | InterruptedException closed) {
                // the server closed the connection: what the test expects
            }
        });
        long start = System.nanoTime();
        try {
            RawResponse response = client.readResponse();

            assertEquals(408, response.status(), response::toString);
            assertTrue(response.connectionClose(), response::toString);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(took.compareTo(HEADER_TIMEOUT) >= 0, "answered before the header timeout: " + took);
            client.awaitClosed();
        } finally {
            stop.set(true);
            trickle.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aHeadThatStopsHalfWayIsAnswered408(Transport transport) throws Exception {
        startWithHeaderTimeout(transport);
        RawClient client = connect().timeout(WAIT);

        RawResponse response = client.send("GET / HTTP/1.1\r\nHost: te").readResponse();

        assertEquals(408, response.status(), response::toString);
        client.awaitClosed();
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aHeadSplitAcrossReadsThatCompletesInTimeIsServedAndTheConnectionKept(Transport transport) throws Exception {
        startWithHeaderTimeout(transport);
        RawClient client = connect().timeout(WAIT);

        client.send("GET / HTTP/1.1\r\nHo");
        await(
                "the first part read",
                () -> server.connectors().get(0).endPoints().stream().anyMatch(endPoint -> endPoint.bytesIn() > 0));
        RawResponse first = client.send("st: test\r\n\r\n").readResponse();
        RawResponse second = client.send("GET / HTTP/1.1\r\nHost: test\r\n\r\n").readResponse();

        assertEquals(200, first.status(), first::toString);
        assertEquals(200, second.status(), second::toString);
    }

    @Test
    void anHttp2HeaderBlockThatNeverEndsClosesTheConnectionWithGoAway() throws Exception {
        startWithHeaderTimeout(Transport.TCP);
        Http2TestClient client = track(new ClosingClient(Http2TestClient.connect(transport.address(server))))
                .client();
        client.awaitSettings(WAIT);
        int stream = client.nextStreamId();
        byte[] block = client.encodeHeaderBlock(List.of(
                new HeaderField(":method", "GET"),
                new HeaderField(":scheme", "http"),
                new HeaderField(":authority", "test"),
                new HeaderField(":path", "/")));
        // HEADERS without END_HEADERS, and no CONTINUATION ever: the connection can carry nothing else meanwhile.
        client.sendFrame(0x1, 0x1, stream, block);

        FrameEvent.GoAway goAway = client.awaitGoAway(WAIT);

        assertEquals(ErrorCode.ENHANCE_YOUR_CALM, goAway.error(), goAway::toString);
        assertTrue(goAway.debug().contains("header block not complete"), goAway.debug());
    }

    /** Closes a frame-level client after the test. */
    private record ClosingClient(Http2TestClient client) implements AutoCloseable {
        @Override
        public void close() {
            client.close();
        }
    }
}
