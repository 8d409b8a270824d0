package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Http2Config;
import dev.quarry.server.h2.TestHandlers.Shape;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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
    /**
     * These clients credit every frame, but on a loaded machine a credit can take longer than the default wait after
     * which a held fragment goes anyway (CreditWhenWindowUsedUpTest): here the server waits longer than any test.
     */
    private static final Http2Config WAITING_FOR_CREDIT =
            new Limits().smallFrameWait(Duration.ofMinutes(5)).build();

    @Test
    void concurrentDownloadsCreditedFrameByFrameCompleteWithoutSmallFramesOrGoAway() throws Exception {
        byte[] body = randomBytes(BODY, 11);
        // The whole body in one write: every DATA frame boundary is the flusher's choice, none the handler's.
        start(builder -> builder.http2Config(WAITING_FOR_CREDIT)
                .handler(AsyncHandler.nonBlocking((req, res, cb) -> res.write(true, ByteBuffer.wrap(body), cb))));
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

        assertNoGoAwayAndNoSmallFrameButTheLast(client, streams);
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void downloadsWrittenIn64KiBSlicesCreditedFrameByFrameCompleteWithoutSmallFramesOrGoAway(Shape shape)
            throws Exception {
        start(builder -> builder.http2Config(WAITING_FOR_CREDIT).handler(TestHandlers.download(shape)));
        Http2TestClient client = connect();

        List<Integer> streams = new ArrayList<>();
        for (int i = 0; i < STREAMS; i++) {
            streams.add(client.get("/download?size=" + BODY + "&seed=" + i));
        }
        for (int i = 0; i < STREAMS; i++) {
            Http2TestClient.Response response = client.awaitResponse(streams.get(i), DOWNLOAD_TIMEOUT);
            assertEquals(200, response.status());
            assertEquals(sha256(randomBytes(BODY, i)), sha256(response.body()), "body on stream " + streams.get(i));
        }
        assertNoGoAwayAndNoSmallFrameButTheLast(client, streams);
    }

    /**
     * Every frame but the last of each stream is at least {@link #SMALL_FRAME}: the flusher cuts no small frame out of a
     * window, and leaves no small tail of a write behind a frame (the last frame of a blocking handler's response is an
     * empty one with END_STREAM, sent when its output stream closes).
     */
    private static void assertNoGoAwayAndNoSmallFrameButTheLast(Http2TestClient client, List<Integer> streams) {
        List<FrameEvent> events = client.events();
        assertTrue(
                events.stream().noneMatch(e -> e instanceof FrameEvent.GoAway),
                () -> "GOAWAY: "
                        + events.stream()
                                .filter(e -> e instanceof FrameEvent.GoAway)
                                .toList());
        for (int stream : streams) {
            List<Integer> lengths = events.stream()
                    .filter(e -> e instanceof FrameEvent.Data d && d.streamId() == stream)
                    .map(e -> ((FrameEvent.Data) e).data().length)
                    .toList();
            assertTrue(
                    lengths.subList(0, lengths.size() - 1).stream().allMatch(length -> length >= SMALL_FRAME),
                    () -> "DATA frames under " + SMALL_FRAME + " octets before the last one on stream " + stream + ": "
                            + lengths);
        }
    }

    @Test
    void aFragmentOfAWindowThatIsBoundToReopenWaitsButTheLastPieceGoesAsSoonAsItFits() throws Exception {
        byte[] body = randomBytes(65_535 + 500, 12);
        // Two writes: 65,535 octets, exactly the client's initial windows, then the last 500.
        start(builder -> builder.http2Config(WAITING_FOR_CREDIT)
                .handler(AsyncHandler.nonBlocking((req, res, cb) -> res.write(
                        false,
                        ByteBuffer.wrap(body, 0, 65_535),
                        Callback.from(
                                InvocationType.NON_BLOCKING,
                                () -> res.write(true, ByteBuffer.wrap(body, 65_535, 500), cb),
                                cb::failed)))));
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
    void aWriteIsNotCutSoAsToLeaveASmallTailWhenMoreCreditIsDue() throws Exception {
        byte[] body = randomBytes(65_535 + 500, 14);
        start(builder -> builder.http2Config(WAITING_FOR_CREDIT)
                .handler(AsyncHandler.nonBlocking((req, res, cb) -> res.write(true, ByteBuffer.wrap(body), cb))));
        Http2TestClient client = connect().autoWindowUpdate(false);
        int stream = client.get("/download");
        // The windows would take all but the last 500 octets: the server leaves a tail worth a frame instead.
        awaitCondition(
                () -> received(client, stream) >= 65_535 - SMALL_FRAME,
                () -> "received " + received(client, stream) + " of the initial windows");
        client.ping(TIMEOUT);
        client.ping(TIMEOUT);
        long received = received(client, stream);
        assertTrue(
                received <= 65_535 && body.length - received >= SMALL_FRAME,
                () -> "received " + received + " of " + body.length + " octets");

        client.sendWindowUpdate(0, body.length);
        client.sendWindowUpdate(stream, body.length);
        Http2TestClient.Response response = client.awaitResponse(stream, TIMEOUT);
        assertEquals(sha256(body), sha256(response.body()));
        assertNoGoAwayAndNoSmallFrameButTheLast(client, List.of(stream));
        assertTrue(
                client.events().stream()
                        .filter(e -> e instanceof FrameEvent.Data d && d.streamId() == stream)
                        .allMatch(e -> ((FrameEvent.Data) e).data().length >= SMALL_FRAME),
                "the tail left behind is worth a frame of its own");
    }

    @Test
    void aWindowConfiguredTinyIsUsedAsItIsWithoutDeadlock() throws Exception {
        byte[] body = randomBytes(8_000, 13);
        start(builder -> builder.http2Config(WAITING_FOR_CREDIT)
                .handler(AsyncHandler.nonBlocking((req, res, cb) -> res.write(true, ByteBuffer.wrap(body), cb))));
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
