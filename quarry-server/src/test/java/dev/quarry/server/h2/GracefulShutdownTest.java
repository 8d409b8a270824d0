package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.HttpFields;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.server.h2.TestHandlers.Shape;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code Server.stop()} over HTTP/2: a GOAWAY with NO_ERROR whose last-stream-id is the last stream the server took,
 * in-flight streams (even one whose request body is still arriving) complete, streams above the last-stream-id are
 * ignored, and the connection closes once the in-flight streams are done.
 */
class GracefulShutdownTest extends Http2ServerTestSupport {

    @Test
    void stopSendsGoAwayAndLetsInFlightStreamsFinish() throws Exception {
        HeldRequests held = new HeldRequests();
        start(builder -> builder.shutdownTimeout(TIMEOUT)
                .route("POST /echo", TestHandlers.echo(Shape.BLOCKING))
                .handler(held));
        Http2TestClient client = connect();
        // In flight: an upload whose body is only half sent, and a request its handler holds.
        int upload = client.nextStreamId();
        client.sendHeaders(upload, "POST", "http", client.authority(), "/echo", new HttpFields(), false);
        client.sendData(upload, "first half, ".getBytes(StandardCharsets.UTF_8), false);
        int slow = client.get("/slow");
        HeldRequests.Held request = held.take(TIMEOUT);

        CompletableFuture<Void> stopping = CompletableFuture.runAsync(() -> {
            try {
                server.stop();
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
        });
        FrameEvent.GoAway goAway = client.awaitGoAway(TIMEOUT);
        assertEquals(ErrorCode.NO_ERROR, goAway.error());
        assertEquals(slow, goAway.lastStreamId(), "the last stream the server took");

        // A new stream above the last-stream-id is ignored; the connection still works for the others.
        int late = client.get("/late");
        client.ping(TIMEOUT);
        assertFalse(stopping.isDone(), "stop waits for the in-flight streams");

        client.sendData(upload, "second half".getBytes(StandardCharsets.UTF_8), true);
        assertEquals("first half, second half", client.awaitResponse(upload).bodyAsString());
        request.answer("slow done");
        assertEquals("slow done", client.awaitResponse(slow).bodyAsString());

        client.awaitClosed(TIMEOUT);
        stopping.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(0, held.size(), "the late request never reached a handler");
        assertTrue(
                client.events().stream().noneMatch(e -> e.streamId() == late && e instanceof FrameEvent.Headers),
                () -> "no answer on the ignored stream: " + client.events());
    }

    @Test
    void stopClosesAnIdleConnectionAtOnce() throws Exception {
        start(builder -> builder.handler(TestHandlers.hello(Shape.ASYNC)));
        Http2TestClient client = connect();
        assertEquals(200, client.awaitResponse(client.get("/")).status());
        long begin = System.nanoTime();
        server.stop();
        FrameEvent.GoAway goAway = client.awaitGoAway(TIMEOUT);
        assertEquals(ErrorCode.NO_ERROR, goAway.error());
        assertEquals(1, goAway.lastStreamId());
        client.awaitClosed(TIMEOUT);
        assertTrue(
                System.nanoTime() - begin < TIMEOUT.toNanos() / 2, "closed without waiting for the shutdown timeout");
    }
}
