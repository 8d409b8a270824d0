package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpFields;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.http.hpack.HeaderField;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Http2Config;
import dev.quarry.server.h2.TestHandlers.Shape;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each HTTP/2 abuse limit of {@link Http2Config}, set small so that the tests are fast, against a client that crosses
 * it: the limit holds, the answer is the one RFC 9113 and common practice give (REFUSED_STREAM, ENHANCE_YOUR_CALM,
 * FRAME_SIZE_ERROR, 431, SETTINGS_TIMEOUT, a reset stream), and where the abuse concerns one stream the connection goes
 * on.
 */
class AbuseLimitsTest extends Http2ServerTestSupport {
    private final HeldRequests held = new HeldRequests();

    private void startHeld(Limits limits) throws Exception {
        start(builder -> builder.handler(held).http2Config(limits.build()));
    }

    @Test
    void theDefaultsAreSensible() {
        Http2Config defaults = Http2Config.DEFAULT;
        assertEquals(128, defaults.maxConcurrentStreams());
        assertEquals(200, defaults.maxResetsPerSecond());
        assertEquals(512, defaults.maxControlFramesPerSecond());
        assertEquals(32, defaults.maxContinuationFrames());
        assertTrue(defaults.maxHeaderBlockSize() >= defaults.maxHeaderListSize(), "only floods hit the block limit");
        assertEquals(Duration.ofSeconds(10), defaults.settingsAckTimeout());
        assertEquals(Duration.ofSeconds(30), defaults.streamIdleTimeout());
    }

    @Test
    void streamsBeyondTheConcurrencyLimitAreRefused() throws Exception {
        startHeld(new Limits().maxConcurrentStreams(2));
        Http2TestClient client = connect();
        Http2Settings advertised = ((FrameEvent.Settings) client.events().get(0)).settings();
        assertEquals(2, advertised.get(Http2Settings.MAX_CONCURRENT_STREAMS).orElseThrow());
        int first = client.get("/1");
        int second = client.get("/2");
        int third = client.get("/3");
        assertEquals(
                ErrorCode.REFUSED_STREAM, client.awaitRstStream(third, TIMEOUT).error());
        held.take(TIMEOUT).answer("one");
        held.take(TIMEOUT).answer("two");
        assertEquals("one", client.awaitResponse(first).bodyAsString());
        assertEquals("two", client.awaitResponse(second).bodyAsString());
        // Completed streams free their slots.
        int fourth = client.get("/4");
        held.take(TIMEOUT).answer("four");
        assertEquals("four", client.awaitResponse(fourth).bodyAsString());
        assertEquals(0, held.size(), "the refused stream never reached the handler");
    }

    @Test
    void streamsClosedOnTheWireFreeTheirSlotsBeforeTheirHandlersReturn() throws Exception {
        startHeld(new Limits().maxConcurrentStreams(2));
        Http2TestClient client = connect();
        int first = client.get("/1");
        int second = client.get("/2");
        HeldRequests.Held one = held.take(TIMEOUT);
        HeldRequests.Held two = held.take(TIMEOUT);
        one.answerAndLinger("one");
        two.answerAndLinger("two");
        assertEquals("one", client.awaitResponse(first).bodyAsString());
        assertEquals("two", client.awaitResponse(second).bodyAsString());
        // Both sides ended both streams: closed for the client (RFC 9113 5.1), which may open two more at once, though
        // their handlers have not returned yet.
        int third = client.get("/3");
        int fourth = client.get("/4");
        HeldRequests.Held three = held.take(TIMEOUT);
        HeldRequests.Held four = held.take(TIMEOUT);
        three.answerAndLinger("three");
        four.answerAndLinger("four");
        assertEquals("three", client.awaitResponse(third).bodyAsString());
        assertEquals("four", client.awaitResponse(fourth).bodyAsString());
        // Lingering handlers still hold their streams up to twice the limit: beyond that, a new one is refused.
        int fifth = client.get("/5");
        assertEquals(
                ErrorCode.REFUSED_STREAM, client.awaitRstStream(fifth, TIMEOUT).error());
        one.finish();
        two.finish();
        three.finish();
        four.finish();
        int sixth = client.get("/6");
        held.take(TIMEOUT).answer("six");
        assertEquals("six", client.awaitResponse(sixth).bodyAsString());
        assertEquals(0, held.size(), "the refused stream never reached the handler");
    }

    @Test
    void blockingHandlersKeepingEveryStreamSlotBusyAreNeverRefused() throws Exception {
        // Blocking handlers on one connection, the client opening a stream as soon as one ends: the responses of
        // several streams are written together, each handler returning once its own went out, so a stream the client
        // saw end may still be in the server's table when the next one opens.
        start(builder -> builder.handler(TestHandlers.hello(Shape.BLOCKING))
                .http2Config(new Limits().maxConcurrentStreams(8).build()));
        Http2TestClient client = connect();
        java.util.ArrayDeque<Integer> inFlight = new java.util.ArrayDeque<>();
        for (int i = 0; i < 8; i++) {
            inFlight.add(client.get("/" + i));
        }
        for (int i = 8; i < 400; i++) {
            assertEquals(
                    "BLOCKING hello over HTTP/2.0",
                    client.awaitResponse(inFlight.poll()).bodyAsString());
            inFlight.add(client.get("/" + i));
        }
        while (!inFlight.isEmpty()) {
            assertEquals(
                    "BLOCKING hello over HTTP/2.0",
                    client.awaitResponse(inFlight.poll()).bodyAsString());
        }
    }

    @Test
    void rapidResetClosesTheConnectionWithEnhanceYourCalm() throws Exception {
        startHeld(new Limits().maxResetsPerSecond(10));
        Http2TestClient client = connect();
        // CVE-2023-44487: open and cancel at once, never more than one stream open, so the concurrency limit is moot.
        for (int i = 0; i < 50; i++) {
            int stream = client.get("/reset/" + i);
            client.sendRstStream(stream, ErrorCode.CANCEL);
        }
        FrameEvent.GoAway goAway = awaitGoAwayAndClose(client);
        assertEquals(ErrorCode.ENHANCE_YOUR_CALM, goAway.error());
        assertTrue(goAway.debug().contains("rapid reset"), goAway.debug());
    }

    @Test
    void resetsTheClientProvokesCountLikeItsOwn() throws Exception {
        startHeld(new Limits().maxResetsPerSecond(10));
        Http2TestClient client = connect();
        // MadeYouReset (CVE-2025-8671): instead of RST_STREAM, a frame that makes the server reset the stream (a
        // WINDOW_UPDATE of 0 on an open stream is a stream error); the handler's work is started all the same.
        for (int i = 0; i < 50; i++) {
            int stream = client.get("/provoked/" + i);
            client.sendFrame(0x8, 0, stream, new byte[4]); // WINDOW_UPDATE, increment 0
        }
        FrameEvent.GoAway goAway = awaitGoAwayAndClose(client);
        assertEquals(ErrorCode.ENHANCE_YOUR_CALM, goAway.error(), goAway::toString);
        assertTrue(goAway.debug().contains("MadeYouReset"), goAway.debug());
    }

    @Test
    void tinyDataFramesToAHandlerThatDoesNotReadPinNoInputBuffers() throws Exception {
        startHeld(new Limits());
        Http2TestClient client = connect();
        int stream = client.nextStreamId();
        client.sendHeaders(stream, "POST", "http", client.authority(), "/upload", new HttpFields(), false);
        var request = held.take(TIMEOUT); // the handler holds the request and reads nothing
        long before = pool.statistics(true).outstanding();
        for (int i = 0; i < 50; i++) {
            client.sendData(stream, new byte[] {(byte) i}, false);
            client.ping(TIMEOUT); // the server has read that frame before the next one comes: one read each
        }

        long held = pool.statistics(true).outstanding() - before;

        // 50 bytes of content, copied out: not 50 input buffers of ~17 KB kept alive for one byte each.
        assertTrue(held <= 2, "pooled direct buffers held for 50 one-byte frames: " + held);
        client.sendData(stream, new byte[0], true);
        request.answer("done");
        assertEquals("done", client.awaitResponse(stream).bodyAsString());
    }

    @Test
    void resetsUnderTheLimitAreFine() throws Exception {
        startHeld(new Limits().maxResetsPerSecond(10));
        Http2TestClient client = connect();
        for (int i = 0; i < 5; i++) {
            int stream = client.get("/reset/" + i);
            held.take(TIMEOUT); // the stream is open: its reset counts
            client.sendRstStream(stream, ErrorCode.CANCEL);
        }
        int stream = client.get("/after");
        held.take(TIMEOUT).answer("still here");
        assertEquals("still here", client.awaitResponse(stream).bodyAsString());
    }

    /** A header block fragment, then CONTINUATION frames that never end it (CVE-2024-27316 and friends). */
    @Test
    void aContinuationFloodClosesTheConnectionWithEnhanceYourCalm() throws Exception {
        startHeld(new Limits().maxContinuationFrames(8));
        Http2TestClient client = connect();
        int stream = client.nextStreamId();
        byte[] block = client.encodeHeaderBlock(List.of(
                new HeaderField(":method", "GET"),
                new HeaderField(":scheme", "http"),
                new HeaderField(":authority", client.authority()),
                new HeaderField(":path", "/flood")));
        client.sendFrame(0x1, 0x1, stream, Arrays.copyOf(block, 4)); // HEADERS, END_STREAM, no END_HEADERS
        for (int i = 0; i < 100; i++) {
            client.sendFrame(0x9, 0, stream, new byte[0]); // empty CONTINUATION
        }
        FrameEvent.GoAway goAway = awaitGoAwayAndClose(client);
        assertEquals(ErrorCode.ENHANCE_YOUR_CALM, goAway.error());
        assertEquals(0, held.size());
    }

    @Test
    void aHeaderBlockOverTheBlockLimitClosesTheConnectionWithEnhanceYourCalm() throws Exception {
        startHeld(new Limits().maxHeaderListSize(4096).maxHeaderBlockSize(4096));
        Http2TestClient client = connect();
        List<HeaderField> fields = new ArrayList<>(List.of(
                new HeaderField(":method", "GET"),
                new HeaderField(":scheme", "http"),
                new HeaderField(":authority", client.authority()),
                new HeaderField(":path", "/big")));
        for (int i = 0; i < 40; i++) {
            fields.add(new HeaderField("x-field-" + i, "v".repeat(400)));
        }
        client.sendHeaderBlock(client.nextStreamId(), fields, true, 1000);
        FrameEvent.GoAway goAway = awaitGoAwayAndClose(client);
        assertEquals(ErrorCode.ENHANCE_YOUR_CALM, goAway.error());
    }

    /** Cheap frames that cost the server work or output, sent faster than the limit allows. */
    enum Flood {
        SETTINGS,
        PING,
        EMPTY_DATA,
        PRIORITY,
        /** Acknowledgements of PINGs the server never sent. */
        PING_ACK,
        /** Acknowledgements of SETTINGS beyond the one the server sent. */
        SETTINGS_ACK,
        /** Connection WINDOW_UPDATEs of one byte each: they would take 2^31 frames to overflow. */
        TINY_WINDOW_UPDATE,
        /** Large WINDOW_UPDATEs on a stream that is closed: never checked for overflow. */
        CLOSED_STREAM_WINDOW_UPDATE
    }

    private void send(Http2TestClient client, Flood flood, int stream, int i) {
        switch (flood) {
            case SETTINGS -> client.sendSettings(new Http2Settings());
            case PING -> client.sendPing(i, false);
            case EMPTY_DATA -> client.sendData(stream, new byte[0], false);
            case PRIORITY -> client.sendPriority(stream, 0, false, 16);
            case PING_ACK -> client.sendPing(i, true);
            case SETTINGS_ACK -> client.sendSettingsAck();
            case TINY_WINDOW_UPDATE -> client.sendWindowUpdate(0, 1);
            case CLOSED_STREAM_WINDOW_UPDATE -> client.sendWindowUpdate(stream, 1 << 30);
        }
    }

    private int openStreamFor(Http2TestClient client, Flood flood) throws Exception {
        if (flood == Flood.CLOSED_STREAM_WINDOW_UPDATE) {
            int stream = client.get("/closed");
            held.take(TIMEOUT).answer("done");
            client.awaitResponse(stream);
            return stream;
        }
        if (flood != Flood.EMPTY_DATA) {
            return 1;
        }
        int stream = client.nextStreamId();
        client.sendHeaders(stream, "POST", "http", client.authority(), "/upload", new HttpFields(), false);
        held.take(TIMEOUT); // the handler holds the request and reads nothing
        return stream;
    }

    @ParameterizedTest
    @EnumSource(Flood.class)
    void aFloodClosesTheConnectionWithEnhanceYourCalm(Flood flood) throws Exception {
        startHeld(new Limits().maxControlFramesPerSecond(20));
        Http2TestClient client = connect();
        int stream = openStreamFor(client, flood);
        for (int i = 0; i < 200; i++) {
            send(client, flood, stream, i);
        }
        FrameEvent.GoAway goAway = awaitGoAwayAndClose(client);
        assertEquals(ErrorCode.ENHANCE_YOUR_CALM, goAway.error(), goAway::toString);
        assertTrue(goAway.debug().startsWith("too many"), goAway.debug());
    }

    @ParameterizedTest
    @EnumSource(Flood.class)
    void aBurstUnderTheLimitIsServed(Flood flood) throws Exception {
        startHeld(new Limits().maxControlFramesPerSecond(20));
        Http2TestClient client = connect();
        int stream = openStreamFor(client, flood);
        for (int i = 0; i < 10; i++) {
            send(client, flood, stream, i);
        }
        client.ping(TIMEOUT);
        assertTrue(
                client.events().stream().noneMatch(FrameEvent.GoAway.class::isInstance),
                () -> "no GOAWAY: " + client.events());
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void aRequestBodyThatNeverArrivesIsAnswered408AndCountedAsTheClients(Shape shape) throws Exception {
        start(builder -> builder.http2Config(
                        new Limits().streamIdleTimeout(Duration.ofMillis(400)).build())
                .route(
                        "POST /echo",
                        shape == Shape.BLOCKING
                                ? TestHandlers.blocking((req, res) -> res.send(req.bodyAsString()))
                                : TestHandlers.echo(shape)));
        Http2TestClient client = connect();
        int stream = client.nextStreamId();
        // The head says a body follows; none ever comes, and the handler waits to read it.
        client.sendHeaders(stream, "POST", "http", client.authority(), "/echo", new HttpFields(), false);

        Http2TestClient.Response response = client.awaitResponse(stream, TIMEOUT);

        assertEquals(408, response.status(), response::toString);
        long[] byClass = server.statistics().responsesByClass();
        assertEquals(1, byClass[3], "one 4xx: " + Arrays.toString(byClass));
        assertEquals(0, byClass[4], "no 5xx: a client that sends nothing is not a server error");
    }

    @Test
    void aStreamWhoseWindowNeverOpensIsResetAfterTheStreamIdleTimeout() throws Exception {
        CompletableFuture<Throwable> write = new CompletableFuture<>();
        byte[] big = new byte[1024 * 1024];
        start(builder -> builder.http2Config(
                        new Limits().streamIdleTimeout(Duration.ofMillis(400)).build())
                .route("GET /small", TestHandlers.hello(Shape.ASYNC))
                .route(
                        "GET /big",
                        AsyncHandler.nonBlocking((req, res, cb) -> res.write(
                                true,
                                ByteBuffer.wrap(big),
                                Callback.from(
                                        InvocationType.NON_BLOCKING,
                                        () -> {
                                            write.complete(null);
                                            cb.succeeded();
                                        },
                                        x -> {
                                            write.complete(x);
                                            cb.failed(x);
                                        })))));
        Http2TestClient client = connect().autoWindowUpdate(false);
        int stream = client.get("/big");
        FrameEvent.RstStream reset = client.awaitRstStream(stream, TIMEOUT);
        assertEquals(ErrorCode.CANCEL, reset.error());
        Throwable failure = write.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertInstanceOf(Throwable.class, failure, "the handler's write failed");
        long received = client.events().stream()
                .filter(e -> e instanceof FrameEvent.Data d && d.streamId() == stream)
                .mapToLong(e -> ((FrameEvent.Data) e).data().length)
                .sum();
        assertEquals(65_535, received, "exactly the initial stream window was sent");
        // The connection is fine: give the connection credit back (not the stream's) and go on.
        client.sendWindowUpdate(0, (int) received);
        assertEquals(200, client.awaitResponse(client.get("/small")).status());
        client.ping(TIMEOUT);
    }

    @Test
    void aFrameOverTheMaxFrameSizeIsAFrameSizeError() throws Exception {
        startHeld(new Limits());
        Http2TestClient client = connect();
        int stream = client.nextStreamId();
        client.sendHeaders(stream, "POST", "http", client.authority(), "/upload", new HttpFields(), false);
        client.sendFrame(0x0, 0, stream, new byte[16_385]); // DATA, one octet over SETTINGS_MAX_FRAME_SIZE
        FrameEvent.GoAway goAway = awaitGoAwayAndClose(client);
        assertEquals(ErrorCode.FRAME_SIZE_ERROR, goAway.error());
    }

    @Test
    void aHeaderListOverTheLimitIsAnswered431() throws Exception {
        start(builder -> builder.handler(TestHandlers.hello(Shape.ASYNC))
                .http2Config(new Limits().maxHeaderListSize(1024).build()));
        Http2TestClient client = connect();
        Http2Settings advertised = ((FrameEvent.Settings) client.events().get(0)).settings();
        assertEquals(1024, advertised.get(Http2Settings.MAX_HEADER_LIST_SIZE).orElseThrow());
        int stream = client.request("GET", "/", new HttpFields().add("x-big", "b".repeat(2000)), null);
        assertEquals(431, client.awaitResponse(stream).status());
        assertEquals(200, client.awaitResponse(client.get("/")).status(), "the connection goes on");
    }

    @Test
    void a431ToARequestWithABodyFreesItsStreamOnceTheBodyEnded() throws Exception {
        start(builder -> builder.handler(TestHandlers.hello(Shape.ASYNC))
                .http2Config(new Limits()
                        .maxHeaderListSize(1024)
                        .maxConcurrentStreams(1)
                        .build()));
        Http2TestClient client = connect();
        int stream = client.nextStreamId();
        client.sendHeaders(
                stream,
                "POST",
                "http",
                client.authority(),
                "/upload",
                new HttpFields().add("x-big", "b".repeat(2000)),
                false);
        assertEquals(431, client.awaitResponse(stream).status());
        client.sendData(stream, new byte[5000], true); // the body nobody will read
        int next = client.get("/");
        Http2TestClient.Response response = client.awaitResponse(next);
        assertEquals(200, response.status(), "the only stream slot is free again");
    }

    @Test
    void aClientThatNeverAcknowledgesOurSettingsGetsSettingsTimeout() throws Exception {
        startHeld(new Limits().settingsAckTimeout(Duration.ofMillis(300)));
        Http2TestClient client = open().autoAckSettings(false);
        client.sendPreface();
        client.sendSettings(new Http2Settings());
        client.awaitSettings(TIMEOUT);
        FrameEvent.GoAway goAway = awaitGoAwayAndClose(client);
        assertEquals(ErrorCode.SETTINGS_TIMEOUT, goAway.error());
    }
}
