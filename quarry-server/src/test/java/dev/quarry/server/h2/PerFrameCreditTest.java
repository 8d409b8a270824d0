package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.server.AsyncHandler;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A client that gives back exactly the credit of each DATA frame it receives (a WINDOW_UPDATE on the stream and one on
 * the connection per frame), while several streams share the connection window, downloads large bodies under the
 * default flood limits. The server avoids the silly window: it never cuts a DATA frame smaller than 1 KiB out of a
 * window that is bound to reopen, so the client's credits never become the tiny WINDOW_UPDATEs that count toward the
 * control-frame limit (they once shrank to one byte each, and the client was sent GOAWAY ENHANCE_YOUR_CALM).
 */
class PerFrameCreditTest extends Http2ServerTestSupport {
    /** The smallest DATA frame a body may be cut into, its last one excepted. */
    private static final int SMALL_FRAME = 1024;

    private static final int STREAMS = 4;
    private static final int BODY = 3 * 1024 * 1024;
    private static final Duration DOWNLOAD_TIMEOUT = Duration.ofSeconds(60);

    @Test
    void concurrentDownloadsCreditedFrameByFrameCompleteWithoutSmallFramesOrGoAway() throws Exception {
        byte[] body = randomBytes(BODY, 11);
        // The whole body in one write: every DATA frame boundary is the flusher's choice, none the handler's.
        start(builder -> builder.handler(
                AsyncHandler.nonBlocking((req, res, cb) -> res.write(true, ByteBuffer.wrap(body), cb))));
        Http2TestClient client = connect(); // default windows, credit returned per DATA frame, as it arrives

        List<Integer> streams = new ArrayList<>();
        for (int i = 0; i < STREAMS; i++) {
            streams.add(client.get("/download/" + i));
        }
        for (int stream : streams) {
            Http2TestClient.Response response = client.awaitResponse(stream, DOWNLOAD_TIMEOUT);
            assertEquals(200, response.status());
            assertEquals(BODY, response.body().length, "body length on stream " + stream);
            assertEquals(sha256(body), sha256(response.body()), "body on stream " + stream);
        }

        List<FrameEvent> events = client.events();
        assertTrue(
                events.stream().noneMatch(e -> e instanceof FrameEvent.GoAway),
                () -> "GOAWAY: "
                        + events.stream()
                                .filter(e -> e instanceof FrameEvent.GoAway)
                                .toList());
        for (int stream : streams) {
            List<FrameEvent.Data> frames = events.stream()
                    .filter(e -> e instanceof FrameEvent.Data d && d.streamId() == stream)
                    .map(e -> (FrameEvent.Data) e)
                    .toList();
            List<Integer> small = new ArrayList<>();
            for (int i = 0; i < frames.size() - 1; i++) {
                if (frames.get(i).data().length < SMALL_FRAME) {
                    small.add(frames.get(i).data().length);
                }
            }
            assertEquals(
                    List.of(),
                    small,
                    "DATA frames under " + SMALL_FRAME + " bytes before the last one, of " + frames.size()
                            + " on stream " + stream);
        }
    }

    @Test
    void aFragmentOfAWindowThatIsBoundToReopenWaitsButTheLastPieceGoesAsSoonAsItFits() throws Exception {
        byte[] body = randomBytes(65_535 + 500, 12);
        start(builder -> builder.handler(
                AsyncHandler.nonBlocking((req, res, cb) -> res.write(true, ByteBuffer.wrap(body), cb))));
        Http2TestClient client = connect().autoWindowUpdate(false);
        int stream = client.get("/download");
        awaitCondition(
                () -> received(client, stream) == 65_535,
                () -> "received " + received(client, stream) + " of the initial windows");

        // 300 octets of credit, with 65,535 in flight: more credit is bound to come, so 300 octets are not worth a
        // frame (two pings: DATA released by the credit would arrive before the second one's answer).
        client.sendWindowUpdate(0, 300);
        client.sendWindowUpdate(stream, 300);
        client.ping(TIMEOUT);
        client.ping(TIMEOUT);
        assertEquals(65_535, received(client, stream), "a 300-octet fragment was sent");

        // 500 octets of credit: the 500 that are left fit, and go at once, however small, with END_STREAM.
        client.sendWindowUpdate(0, 200);
        client.sendWindowUpdate(stream, 200);
        Http2TestClient.Response response = client.awaitResponse(stream, TIMEOUT);
        assertEquals(sha256(body), sha256(response.body()));
        List<FrameEvent.Data> frames = client.events().stream()
                .filter(e -> e instanceof FrameEvent.Data d && d.streamId() == stream)
                .map(e -> (FrameEvent.Data) e)
                .toList();
        FrameEvent.Data last = frames.getLast();
        assertTrue(last.endStream() && last.data().length == 500, () -> "the last piece: " + frames);
    }

    @Test
    void aWindowConfiguredTinyIsUsedAsItIsWithoutDeadlock() throws Exception {
        byte[] body = randomBytes(8_000, 13);
        start(builder -> builder.handler(
                AsyncHandler.nonBlocking((req, res, cb) -> res.write(true, ByteBuffer.wrap(body), cb))));
        // 100 octets per stream, credited frame by frame: nothing more will ever be open at once.
        Http2TestClient client = connect(new Http2Settings().set(Http2Settings.INITIAL_WINDOW_SIZE, 100));
        int stream = client.get("/download");
        Http2TestClient.Response response = client.awaitResponse(stream, TIMEOUT);
        assertEquals(sha256(body), sha256(response.body()));
    }

    private static long received(Http2TestClient client, int stream) {
        return client.events().stream()
                .filter(e -> e instanceof FrameEvent.Data d && d.streamId() == stream)
                .mapToLong(e -> ((FrameEvent.Data) e).data().length)
                .sum();
    }
}
