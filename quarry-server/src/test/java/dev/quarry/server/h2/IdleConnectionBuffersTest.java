package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quarry.core.buffer.LeakTrackingByteBufferPool;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.server.h2.TestHandlers.Shape;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * An idle HTTP/2 connection holds no pooled buffer: the input buffer and the frame buffer go back to the pool once a
 * response is written and nothing more arrives (a server with thousands of idle connections would otherwise keep a
 * frame buffer for each), and the connection takes them again for the next request.
 */
class IdleConnectionBuffersTest extends Http2ServerTestSupport {

    @Test
    void anIdleConnectionHoldsNoBufferAndServesTheNextRequest(LeakTrackingByteBufferPool pool) throws IOException {
        start(builder -> builder.handler(TestHandlers.hello(Shape.ASYNC)));
        Http2TestClient client = connect();

        assertEquals(200, client.awaitResponse(client.get("/")).status());
        awaitNoBufferHeld(pool);

        assertEquals(200, client.awaitResponse(client.get("/")).status(), "the next request, after the idle time");
        awaitNoBufferHeld(pool);
    }

    @Test
    void aBlockingHandlersIdleConnectionHoldsNoBuffer(LeakTrackingByteBufferPool pool) throws IOException {
        start(builder -> builder.handler(TestHandlers.hello(Shape.BLOCKING)));
        Http2TestClient client = connect();

        assertEquals(200, client.awaitResponse(client.get("/")).status());
        awaitNoBufferHeld(pool);

        assertEquals(200, client.awaitResponse(client.get("/")).status(), "the next request, after the idle time");
        awaitNoBufferHeld(pool);
    }

    /** The connection is open and idle: no buffer of the pool may be outstanding. */
    private static void awaitNoBufferHeld(LeakTrackingByteBufferPool pool) {
        awaitCondition(() -> pool.leaks().isEmpty(), () -> "buffers held by the idle connection: " + pool.leaks());
    }
}
