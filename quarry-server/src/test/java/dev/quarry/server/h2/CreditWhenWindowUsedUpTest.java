package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.server.AsyncHandler;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A client that credits a window only once it is completely used (RFC 9113 allows it: when to send WINDOW_UPDATE is
 * the receiver's choice) downloads a body whose first write leaves less than 1 KiB of a window open, and more than
 * that to send. The server's silly-window rule holds such a fragment back while it waits for credit; that credit never
 * comes from this client, so the fragment must go anyway after a short wait. It once waited for the stream's idle
 * timeout (30 s).
 */
class CreditWhenWindowUsedUpTest extends Http2ServerTestSupport {
    /** Far below the stream idle timeout, far above the server's wait for credit. */
    private static final Duration FRAME_TIMEOUT = Duration.ofSeconds(5);

    @ParameterizedTest(name = "stream window {0}, writes of {1} and {2} octets")
    @CsvSource({
        // The stream window limits: 500 of its 3,000 octets are left after the first write, 5,000 octets to send.
        "3000, 2500, 5000",
        // One write: the first frame leaves a 1 KiB tail, and 524 octets of the window that the tail cannot use.
        "3000, 0, 3500",
        // The connection window limits (65,535 octets, never raised by this client): 500 octets left after the first.
        "1048576, 65035, 5000",
    })
    void aWindowLeftWithLessThanASmallFrameIsUsedWhenItsCreditDoesNotCome(int streamWindow, int first, int second)
            throws Exception {
        byte[] body = randomBytes(first + second, 21);
        start(builder -> builder.handler(AsyncHandler.nonBlocking((req, res, cb) -> {
            if (first == 0) {
                res.write(true, ByteBuffer.wrap(body), cb);
                return;
            }
            res.write(
                    false,
                    ByteBuffer.wrap(body, 0, first),
                    Callback.from(
                            InvocationType.NON_BLOCKING,
                            () -> res.write(true, ByteBuffer.wrap(body, first, second), cb),
                            cb::failed));
        })));
        Http2TestClient client = connect(new Http2Settings().set(Http2Settings.INITIAL_WINDOW_SIZE, streamWindow))
                .autoWindowUpdate(false);
        int stream = client.get("/download");

        ByteArrayOutputStream received = new ByteArrayOutputStream();
        long streamLeft = streamWindow;
        long connectionLeft = Http2Settings.DEFAULT_INITIAL_WINDOW_SIZE;
        while (true) {
            FrameEvent.Data data = client.await(FrameEvent.Data.class, d -> d.streamId() == stream, FRAME_TIMEOUT);
            received.write(data.data());
            if (data.endStream()) {
                break;
            }
            streamLeft -= data.flowControlledLength();
            connectionLeft -= data.flowControlledLength();
            // Credit a window back to its initial size only once it is completely used, never before.
            if (streamLeft == 0) {
                client.sendWindowUpdate(stream, streamWindow);
                streamLeft = streamWindow;
            }
            if (connectionLeft == 0) {
                client.sendWindowUpdate(0, Http2Settings.DEFAULT_INITIAL_WINDOW_SIZE);
                connectionLeft = Http2Settings.DEFAULT_INITIAL_WINDOW_SIZE;
            }
        }
        assertEquals(body.length, received.size(), "octets received");
        assertEquals(sha256(body), sha256(received.toByteArray()));
    }
}
