package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.HttpFields;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.server.ServerBuilder;
import dev.quarry.server.h2.TestHandlers.Shape;
import dev.quarry.server.test.Echo;
import dev.quarry.server.test.LogCapture;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The minimum request body rate over HTTP/2: a stream whose body trickles in is answered 408 and then reset with
 * NO_ERROR (the rest of its body is not wanted, and its slot is freed), counted as the client's error; the connection
 * and its other streams go on; a body at an honest pace is served.
 */
class MinBodyRateTest extends Http2ServerTestSupport {
    private static final long RATE = 1000;

    private void startEcho(Shape shape) throws Exception {
        start(builder -> route(builder, shape).minRequestBodyRate(RATE));
    }

    private static ServerBuilder route(ServerBuilder builder, Shape shape) {
        return shape == Shape.BLOCKING
                ? builder.route("POST /echo", Echo.blocking()).route("GET /hello", TestHandlers.hello(shape))
                : builder.route("POST /echo", Echo.async()).route("GET /hello", TestHandlers.hello(shape));
    }

    /** Sends {@code step} bytes of DATA every 100 ms, {@code size} in all (END_STREAM last), or until stopped. */
    private static CompletableFuture<Void> paced(
            Http2TestClient client, int stream, int size, int step, AtomicBoolean stop) {
        return CompletableFuture.runAsync(() -> {
            try {
                for (int sent = 0; sent < size && !stop.get(); sent += step) {
                    int length = Math.min(step, size - sent);
                    client.sendData(stream, new byte[length], sent + length == size);
                    TimeUnit.MILLISECONDS.sleep(100); // the client's pace, not a wait for the server
                }
            } catch (InterruptedException | RuntimeException closed) {
                // the connection ended: the test's assertions say whether that was expected
            }
        });
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void aBodySlowerThanTheMinimumRateIsAnswered408ThenTheStreamReset(Shape shape) throws Exception {
        try (LogCapture log = LogCapture.of("dev.quarry")) {
            startEcho(shape);
            Http2TestClient client = connect();
            int stream = client.nextStreamId();
            client.sendHeaders(stream, "POST", "http", client.authority(), "/echo", new HttpFields(), false);
            AtomicBoolean stop = new AtomicBoolean();
            CompletableFuture<Void> trickle = paced(client, stream, 100_000, 10, stop); // a tenth of the minimum
            try {
                Http2TestClient.Response response = client.awaitResponse(stream, TIMEOUT);

                assertEquals(408, response.status(), response::toString);
                assertTrue(response.bodyAsString().contains("slower than 1000 bytes/s"), response::toString);
                FrameEvent.RstStream reset = client.awaitRstStream(stream, TIMEOUT);
                assertEquals(ErrorCode.NO_ERROR, reset.error(), reset::toString);
            } finally {
                stop.set(true);
                trickle.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
            // The connection serves on.
            assertEquals(
                    200, client.awaitResponse(client.get("/hello"), TIMEOUT).status());
            long[] byClass = server.statistics().responsesByClass();
            assertEquals(1, byClass[3], () -> "one 4xx: " + Arrays.toString(byClass));
            assertEquals(0, byClass[4], () -> "no 5xx: " + Arrays.toString(byClass));
            assertEquals(List.of(), log.warnings(), log::describe);
        }
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void aBodyFasterThanTheMinimumRateIsServed(Shape shape) throws Exception {
        startEcho(shape);
        Http2TestClient client = connect();
        int stream = client.nextStreamId();
        client.sendHeaders(stream, "POST", "http", client.authority(), "/echo", new HttpFields(), false);
        // 10,000 B/s for two seconds, ten times the minimum, within the initial window.
        paced(client, stream, 20_000, 1000, new AtomicBoolean()).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        Http2TestClient.Response response = client.awaitResponse(stream, TIMEOUT);

        assertEquals(200, response.status(), response::toString);
        assertTrue(response.bodyAsString().contains("bodyLength: 20000"), response::toString);
    }
}
