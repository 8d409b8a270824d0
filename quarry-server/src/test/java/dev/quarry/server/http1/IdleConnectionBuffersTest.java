package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quarry.server.AsyncHandler;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.ServerTestBase;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * An idle keep-alive connection holds no pooled buffer (over TLS neither the engine's network and application buffers:
 * see the subclass), and the next request on it is served as the first was.
 */
class IdleConnectionBuffersTest extends ServerTestBase {
    private static final String GET = "GET / HTTP/1.1\r\nHost: test\r\n\r\n";
    private static final AsyncHandler OK = (request, response, callback) ->
            response.write(true, ByteBuffer.wrap("ok".getBytes(StandardCharsets.US_ASCII)), callback);

    @Test
    void anIdleConnectionHoldsNoBufferAndServesTheNextRequest() throws Exception {
        start(builder -> builder.handler(OK));
        RawClient client = connect();

        assertEquals(200, client.send(GET).readResponse().status());
        awaitNoBufferHeld();

        assertEquals(200, client.send(GET).readResponse().status(), "the next request, after the idle time");
        awaitNoBufferHeld();
    }

    /** The connection is open and idle: no buffer of the pool may be outstanding. */
    private void awaitNoBufferHeld() {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!pool.leaks().isEmpty()) {
            if (System.nanoTime() - deadline > 0) {
                fail("buffers held by the idle connection after " + WAIT + ": " + pool.leaks());
            }
            LockSupport.parkNanos(1_000_000); // a poll interval, not a wait for the condition
        }
    }
}
