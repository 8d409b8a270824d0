package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.HttpFields;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.server.Content;
import dev.quarry.server.ServerStatus;
import dev.quarry.server.h2.TestHandlers.Shape;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The memory that unread HTTP/2 request content holds is bounded by bytes held, not by frames or streams: per
 * connection by its receive window, whose credit returns only as handlers consume, and per server by a budget beyond
 * which bodies are turned away (REFUSED_STREAM for new streams, ENHANCE_YOUR_CALM for DATA that would overrun it) while
 * requests without a body are still served.
 */
class HeldContentTest extends Http2ServerTestSupport {
    private static final int CONNECTION_WINDOW = 65_535;
    private static final Pattern HELD = Pattern.compile("(?m)^quarry_http2_held_content_bytes (\\S+)$");

    private final HeldRequests held = new HeldRequests();

    @Test
    void thousandsOfTinyDataFramesOnManyStreamsHoldNoMoreThanTheConnectionWindow() throws Exception {
        int streams = 16;
        int streamWindow = 16 * 1024; // the streams' windows add up to four times the connection's
        start(builder -> builder.handler(held)
                .http2Config(new Limits()
                        .connectionWindow(CONNECTION_WINDOW)
                        .initialStreamWindow(streamWindow)
                        .build()));
        Http2TestClient client = connect();
        long buffersBefore = pool.statistics(true).outstanding();
        int[] ids = new int[streams];
        List<HeldRequests.Held> requests = new ArrayList<>();
        for (int i = 0; i < streams; i++) {
            ids[i] = client.nextStreamId();
            client.sendHeaders(ids[i], "POST", "http", client.authority(), "/upload/" + i, new HttpFields(), false);
            requests.add(held.take(TIMEOUT)); // handlers that hold their request and read nothing
        }

        // One-byte DATA frames, round robin, as long as the server gives the client credit to send them.
        long sent = 0;
        long streamLimit = (long) streams * streamWindow;
        while (sent < streamLimit) {
            long credit = CONNECTION_WINDOW + connectionCredit(client) - sent;
            if (credit == 0) {
                client.ping(TIMEOUT); // any WINDOW_UPDATE the server sent for what it read has arrived by now
                if (CONNECTION_WINDOW + connectionCredit(client) - sent == 0) {
                    break;
                }
                continue;
            }
            int frames = (int) Math.min(Math.min(credit, 1024), streamLimit - sent);
            ByteBuffer batch = ByteBuffer.allocate(frames * 10);
            for (int i = 0; i < frames; i++) {
                int stream = ids[(int) ((sent + i) % streams)];
                batch.put(new byte[] {0, 0, 1, 0x0, 0}).putInt(stream).put((byte) i);
            }
            client.send(batch.flip());
            sent += frames;
        }
        client.ping(TIMEOUT);

        // Credit only comes back as handlers consume: nothing was consumed, so the connection window is all they got.
        assertEquals(CONNECTION_WINDOW, sent, "one-byte frames the server accepted");
        assertEquals(0, connectionCredit(client), "connection credit returned for content nobody read");
        long heldBytes = heldContent();
        assertTrue(
                heldBytes >= CONNECTION_WINDOW && heldBytes <= 2L * CONNECTION_WINDOW,
                "memory held for " + sent + " unread bytes in one-byte frames: " + heldBytes);
        long buffers = pool.statistics(true).outstanding() - buffersBefore;
        assertTrue(buffers <= 2, "pooled direct buffers held by tiny frames: " + buffers);

        // The handlers end without reading: the content is released, its memory and its credit given back.
        for (HeldRequests.Held request : requests) {
            request.answer("done");
        }
        for (int id : ids) {
            assertEquals("done", client.awaitResponse(id).bodyAsString());
        }
        awaitCondition(() -> heldContent() == 0, () -> "still held: " + heldContent());
        awaitCondition(
                () -> connectionCredit(client) >= CONNECTION_WINDOW / 2,
                () -> "connection credit after release: " + connectionCredit(client));
    }

    @Test
    void connectionCreditReturnsWhenTheHandlerConsumesNotWhenDataArrives() throws Exception {
        start(builder -> builder.handler(held)
                .http2Config(new Limits()
                        .connectionWindow(CONNECTION_WINDOW)
                        .initialStreamWindow(CONNECTION_WINDOW)
                        .build()));
        Http2TestClient client = connect();
        int stream = client.nextStreamId();
        client.sendHeaders(stream, "POST", "http", client.authority(), "/upload", new HttpFields(), false);
        HeldRequests.Held request = held.take(TIMEOUT);
        byte[] body = randomBytes(48 * 1024, 1); // beyond half the window: credit on arrival would send an update
        client.sendData(stream, body, false);
        client.ping(TIMEOUT);
        assertEquals(0, connectionCredit(client), "connection credit before the handler read anything");

        long read = 0;
        while (read < body.length) {
            Content.Chunk chunk = request.request().read();
            if (chunk == null) {
                client.ping(TIMEOUT); // all of it was sent before this PING: by its answer, all of it was read
                continue;
            }
            read += chunk.remaining();
            chunk.release();
        }

        // In one WINDOW_UPDATE once half of the window was consumed, as for a stream.
        awaitCondition(
                () -> connectionCredit(client) >= CONNECTION_WINDOW / 2,
                () -> "connection credit after the handler consumed " + body.length + " bytes: "
                        + connectionCredit(client));
        client.sendData(stream, new byte[0], true);
        request.answer("read " + read);
        assertEquals("read " + body.length, client.awaitResponse(stream).bodyAsString());
    }

    @Test
    void bodiesBeyondTheServerBudgetAreTurnedAwayWhileOtherRequestsAreServed() throws Exception {
        int body = 64 * 1024;
        start(builder -> builder.handler(held)
                .route("GET /health", TestHandlers.hello(Shape.ASYNC))
                .http2Config(new Limits()
                        .initialStreamWindow(body)
                        .maxHeldContent(2L * body) // two unread bodies spend it
                        .build()));
        // Two clients upload and their handlers do not read: the budget is spent.
        Http2TestClient first = connect();
        HeldRequests.Held firstRequest = upload(first, body);
        Http2TestClient second = connect();
        int secondStream = second.nextStreamId();
        int overrunStream = second.nextStreamId();
        HeldRequests.Held secondRequest = openUpload(second, secondStream);
        openUpload(second, overrunStream); // opened while there was room
        sendInSmallFrames(second, secondStream, body);
        second.ping(TIMEOUT);
        assertEquals(2L * body, heldContent());

        // A DATA frame that would overrun the budget resets its stream; the connection goes on.
        second.sendData(overrunStream, new byte[1024], false);
        assertEquals(
                ErrorCode.ENHANCE_YOUR_CALM,
                second.awaitRstStream(overrunStream, TIMEOUT).error());
        // A new stream with a body is refused before any processing: the client may retry it.
        Http2TestClient third = connect();
        int refused = third.nextStreamId();
        third.sendHeaders(refused, "POST", "http", third.authority(), "/upload", new HttpFields(), false);
        assertEquals(
                ErrorCode.REFUSED_STREAM, third.awaitRstStream(refused, TIMEOUT).error());
        // Requests without a body are served all the same, on every connection.
        assertEquals(
                "ASYNC hello over HTTP/2.0",
                third.awaitResponse(third.get("/health")).bodyAsString());
        assertEquals(
                "ASYNC hello over HTTP/2.0",
                second.awaitResponse(second.get("/health")).bodyAsString());
        String metrics = server.metrics();
        assertTrue(metrics.contains("quarry_http2_streams_over_budget_total{action=\"refused\"} 1"), metrics);
        assertTrue(metrics.contains("quarry_http2_streams_over_budget_total{action=\"reset\"} 1"), metrics);
        assertTrue(metrics.contains("quarry_limit_http2_max_held_content_bytes " + 2 * body), metrics);
        Map<String, Object> buffers = server.status().section("buffers");
        assertEquals(2L * body / 1024, buffers.get("h2 held content KiB"), buffers::toString);
        assertEquals(1L, buffers.get("h2 streams refused"), buffers::toString);
        assertEquals(1L, buffers.get("h2 streams reset"), buffers::toString);
        assertEquals(
                2L * body / 1024,
                ((Map<?, ?>) buffers.get(ServerStatus.LIMITS)).get("h2 max held content KiB"),
                buffers::toString);

        // Once a handler is done with its content, bodies are welcome again.
        firstRequest.answer("first");
        awaitCondition(() -> heldContent() <= body, () -> "held: " + heldContent());
        HeldRequests.Held third2 = upload(third, 1024);
        third2.answer("third");
        secondRequest.answer("second");
        awaitCondition(() -> heldContent() == 0, () -> "held: " + heldContent());
        assertEquals(0, held.size());
    }

    /** Opens a POST stream and sends {@code length} bytes in 1 KiB frames; the handler holds it, reading nothing. */
    private HeldRequests.Held upload(Http2TestClient client, int length) throws InterruptedException {
        int stream = client.nextStreamId();
        HeldRequests.Held request = openUpload(client, stream);
        sendInSmallFrames(client, stream, length);
        client.ping(TIMEOUT);
        return request;
    }

    private HeldRequests.Held openUpload(Http2TestClient client, int stream) throws InterruptedException {
        client.sendHeaders(stream, "POST", "http", client.authority(), "/upload", new HttpFields(), false);
        return held.take(TIMEOUT);
    }

    /** Frames small enough to be copied: the memory they hold is exactly their length. */
    private static void sendInSmallFrames(Http2TestClient client, int stream, int length) {
        for (int at = 0; at < length; at += 1024) {
            client.sendData(stream, new byte[Math.min(1024, length - at)], false);
        }
    }

    /** @return the connection-level credit the server returned (WINDOW_UPDATE on stream 0) beyond its preface */
    private long connectionCredit(Http2TestClient client) {
        return client.events().stream()
                        .filter(e -> e instanceof FrameEvent.WindowUpdate u && u.streamId() == 0)
                        .mapToLong(e -> ((FrameEvent.WindowUpdate) e).increment())
                        .sum()
                - Math.max(0, CONNECTION_WINDOW - 65_535);
    }

    private long heldContent() {
        Matcher matcher = HELD.matcher(server.metrics());
        assertTrue(matcher.find(), "no quarry_http2_held_content_bytes sample");
        return (long) Double.parseDouble(matcher.group(1));
    }
}
