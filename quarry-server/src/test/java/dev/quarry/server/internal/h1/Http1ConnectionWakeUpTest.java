package dev.quarry.server.internal.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.test.WakesAtOnceEndPoint;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * How an HTTP/1.1 connection copes with a read wake-up that comes on another thread while the thread that registered
 * the fill interest is still inside {@code process()}. A TLS endpoint does exactly that when it already holds bytes for
 * the reader (decrypted, or whole records): it wakes the reader at once, on another thread. The two threads once
 * processed the connection together (the wake-up was counted, not deferred): both used the parser and the buffers, and
 * the first to leave cleared the second's claim to be processing (so that a close could release the buffers it
 * parsed). Now the thread still inside goes round once more and serves the wake-up itself.
 */
@ExtendWith(LeakTrackingPoolExtension.class)
class Http1ConnectionWakeUpTest {
    private static final String FIRST = "GET /first HTTP/1.1\r\nHost: localhost\r\n\r\n";
    private static final String SECOND = "GET /second HTTP/1.1\r\nHost: localhost\r\n\r\n";

    @Test
    void aWakeUpBeforeTheProcessingThreadLeftIsServedByThatThreadNotAlongsideIt(ByteBufferPool pool) {
        WakesAtOnceEndPoint endPoint = new WakesAtOnceEndPoint(
                new InetSocketAddress("127.0.0.1", 8443), new InetSocketAddress("127.0.0.1", 40000));
        List<String> handled = new CopyOnWriteArrayList<>();
        AsyncHandler handler = AsyncHandler.nonBlocking((request, response, callback) -> {
            Thread registering = endPoint.registering;
            boolean alongside = registering != null && registering != Thread.currentThread();
            handled.add(request.path() + (alongside ? " while another thread was processing" : ""));
            response.write(true, ByteBuffer.wrap(request.path().getBytes(StandardCharsets.US_ASCII)), callback);
        });
        Http1Connection connection = TestHttp1Connections.of(pool, handler, endPoint);
        endPoint.arrive(FIRST);
        // The next request arrives as the connection asks for more, and the reader is woken on another thread before
        // that request returns.
        endPoint.onFirstInterest(ascii(SECOND));

        connection.onFillable(); // as the selector would: the first request is readable

        assertEquals(List.of("/first", "/second"), handled);
        String written = new String(endPoint.written(), StandardCharsets.US_ASCII);
        assertTrue(
                written.indexOf("/first") >= 0 && written.indexOf("/first") < written.indexOf("/second"),
                () -> "both responses, in order: " + written);
        assertEquals(2, endPoint.interests, "the connection asks for more once it has read everything");
        assertTrue(endPoint.isFillInterested(), "the connection waits for the next request");
        endPoint.pendingInterest.failed(new ClosedChannelException()); // the client leaves: buffers go back
    }

    private static ByteBuffer ascii(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }
}
