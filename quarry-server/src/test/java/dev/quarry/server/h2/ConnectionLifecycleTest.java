package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.LeakTrackingByteBufferPool;
import dev.quarry.http.HttpFields;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.server.h2.TestHandlers.Shape;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How an HTTP/2 connection ends when the client goes away, checked while the server still runs (stopping it would
 * release what a live connection forgot): every buffer goes back, and a handler waiting for content learns.
 */
class ConnectionLifecycleTest extends Http2ServerTestSupport {

    private void awaitNoOpenConnections() {
        awaitCondition(
                () -> server.connectors().get(0).openConnections() == 0,
                () -> "open connections: " + server.connectors().get(0).openConnections());
    }

    @Test
    void theInputBufferGoesBackWhenTheClientCloses(LeakTrackingByteBufferPool pool) throws IOException {
        start(builder -> builder.handler(TestHandlers.hello(Shape.ASYNC)));
        Http2TestClient client = connect();
        assertEquals(200, client.awaitResponse(client.get("/")).status());
        client.close();
        awaitNoOpenConnections();
        assertTrue(pool.awaitNoLeaks(TIMEOUT), () -> "leaked: " + pool.leaks());
    }

    @Test
    void aHandlerWaitingForContentFailsWhenTheClientCloses(LeakTrackingByteBufferPool pool) throws Exception {
        CountDownLatch reading = new CountDownLatch(1);
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        start(builder -> builder.handler(TestHandlers.blocking((req, res) -> {
            try (InputStream in = req.inputStream()) {
                byte[] first = in.readNBytes(10);
                assertEquals(10, first.length);
                reading.countDown();
                in.readAllBytes(); // the rest never comes
                outcome.complete(null);
            } catch (IOException x) {
                outcome.complete(x);
                throw x;
            }
        })));
        Http2TestClient client = connect();
        int stream = client.nextStreamId();
        client.sendHeaders(stream, "POST", "http", client.authority(), "/upload", new HttpFields(), false);
        client.sendData(stream, new byte[100], false);
        assertTrue(reading.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the handler started reading");
        client.close();
        Throwable failure = outcome.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(failure instanceof IOException, "the blocked read failed: " + failure);
        awaitNoOpenConnections();
        assertTrue(pool.awaitNoLeaks(TIMEOUT), () -> "leaked: " + pool.leaks());
    }
}
