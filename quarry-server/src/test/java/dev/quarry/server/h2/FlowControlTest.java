package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpFields;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Response;
import dev.quarry.server.h2.TestHandlers.Shape;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Flow control in both directions, frame by frame: the application reads at its own pace and the stream's window
 * updates follow what it consumed, so the server never buffers more than a stream window of request content; and a
 * handler's writes complete only as fast as the client opens its window.
 */
class FlowControlTest extends Http2ServerTestSupport {
    private static final int WINDOW = 16 * 1024;

    private static long streamCredit(Http2TestClient client, int stream) {
        return client.events().stream()
                .filter(e -> e instanceof FrameEvent.WindowUpdate u && u.streamId() == stream)
                .mapToLong(e -> ((FrameEvent.WindowUpdate) e).increment())
                .sum();
    }

    @Test
    void aSlowReaderHoldsTheClientToOneStreamWindowAndCreditFollowsConsumption() throws Exception {
        Semaphore reads = new Semaphore(0);
        AtomicLong consumed = new AtomicLong();
        start(builder -> builder.http2Config(
                        new Limits().initialStreamWindow(WINDOW).build())
                .handler(TestHandlers.blocking((req, res) -> {
                    MessageDigest digest = MessageDigest.getInstance("SHA-256");
                    byte[] buffer = new byte[4096];
                    try (InputStream in = req.inputStream()) {
                        while (true) {
                            reads.acquire(); // the application decides when it reads
                            int n = in.read(buffer);
                            if (n < 0) {
                                break;
                            }
                            digest.update(buffer, 0, n);
                            consumed.addAndGet(n);
                        }
                    }
                    res.send(HexFormat.of().formatHex(digest.digest()));
                })));
        Http2TestClient client = connect();
        int stream = client.nextStreamId();
        client.sendHeaders(stream, "POST", "http", client.authority(), "/slow", new HttpFields(), false);
        byte[] body = randomBytes(4 * WINDOW, 5);
        CompletableFuture<Void> sending =
                CompletableFuture.runAsync(() -> client.sendDataFlowControlled(stream, body, true, TIMEOUT));

        // Nothing read yet: the client sent exactly one window, and no stream credit came back.
        awaitCondition(() -> client.streamSendWindow(stream) == 0, () -> "window " + client.streamSendWindow(stream));
        client.ping(TIMEOUT); // the server has processed every DATA frame sent before the PING
        assertFalse(sending.isDone(), "the client waits for credit");
        assertEquals(0, streamCredit(client, stream), "no WINDOW_UPDATE without consumption");

        // Read by read: the credit returned never exceeds what the application consumed.
        while (!sending.isDone()) {
            reads.release();
            client.ping(TIMEOUT);
            long credit = streamCredit(client, stream);
            long read = consumed.get();
            assertTrue(credit <= read, () -> "credit " + credit + " but only " + read + " consumed");
        }
        sending.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        reads.release(1000);
        Http2TestClient.Response response = client.awaitResponse(stream);
        assertEquals(sha256(body), response.bodyAsString());
        assertTrue(
                client.events().stream()
                        .filter(e -> e instanceof FrameEvent.WindowUpdate u && u.streamId() == stream)
                        .allMatch(e -> ((FrameEvent.WindowUpdate) e).increment() >= WINDOW / 2),
                "credit returns in batches of at least half a window");
    }

    @Test
    void dataBeyondTheStreamWindowIsAFlowControlError() throws Exception {
        HeldRequests held = new HeldRequests();
        start(builder -> builder.http2Config(
                        new Limits().initialStreamWindow(WINDOW).build())
                .handler(held));
        Http2TestClient client = connect();
        int stream = client.nextStreamId();
        client.sendHeaders(stream, "POST", "http", client.authority(), "/upload", new HttpFields(), false);
        held.take(TIMEOUT);
        client.sendData(stream, new byte[WINDOW + 1], false); // ignores the window
        assertEquals(
                ErrorCode.FLOW_CONTROL_ERROR,
                client.awaitRstStream(stream, TIMEOUT).error());
        client.ping(TIMEOUT); // a stream error: the connection goes on
    }

    /** RFC 9113 8.1.1: checked even when the handler answered without reading, before the body ended. */
    @Test
    void aBodyShorterThanItsContentLengthIsResetAfterTheResponse() throws Exception {
        start(builder -> builder.handler(TestHandlers.hello(Shape.ASYNC)));
        Http2TestClient client = connect();
        int stream = client.nextStreamId();
        client.sendHeaders(
                stream,
                "POST",
                "http",
                client.authority(),
                "/upload",
                new HttpFields().add("content-length", "10"),
                false);
        assertEquals(200, client.awaitResponse(stream).status(), "answered without reading the body");
        client.sendData(stream, new byte[5], true);
        assertEquals(
                ErrorCode.PROTOCOL_ERROR, client.awaitRstStream(stream, TIMEOUT).error());
        client.ping(TIMEOUT);
    }

    @Test
    void aHandlersWritesCompleteOnlyAsTheClientOpensItsWindow() throws Exception {
        byte[] body = randomBytes(1024 * 1024, 6);
        AtomicInteger completedWrites = new AtomicInteger();
        start(builder -> builder.handler(AsyncHandler.nonBlocking(
                (req, res, cb) -> new SliceWriter(res, ByteBuffer.wrap(body), completedWrites, cb).run())));
        Http2TestClient client = connect().autoWindowUpdate(false);
        int stream = client.get("/download");
        // All of the window, or all but less than 1 KiB of it: the server does not cut a small frame out of a window
        // that is bound to reopen, nor leave a small tail of the write behind (see PerFrameCreditTest).
        awaitCondition(
                () -> received(client, stream) >= 65_535 - 1024,
                () -> "received " + received(client, stream) + " of the initial window");
        client.ping(TIMEOUT);
        assertTrue(received(client, stream) <= 65_535, "nothing beyond the window");
        assertEquals(0, completedWrites.get(), "the first 64 KiB write waits for its last octet's window");
        client.sendWindowUpdate(0, body.length);
        client.sendWindowUpdate(stream, body.length);
        Http2TestClient.Response response = client.awaitResponse(stream);
        assertEquals(sha256(body), sha256(response.body()));
        // The last write completes once the flusher saw its bytes written, which may be just after the client read
        // them.
        awaitCondition(() -> completedWrites.get() == 16, () -> completedWrites.get() + " of 16 writes completed");
    }

    private static long received(Http2TestClient client, int stream) {
        return client.events().stream()
                .filter(e -> e instanceof FrameEvent.Data d && d.streamId() == stream)
                .mapToLong(e -> ((FrameEvent.Data) e).data().length)
                .sum();
    }

    /** Writes 64 KiB slices, each after the previous one completed, counting completions. */
    private record SliceWriter(Response response, ByteBuffer content, AtomicInteger completed, Callback callback)
            implements Runnable {
        @Override
        public void run() {
            int length = Math.min(65_536, content.remaining());
            ByteBuffer slice = content.slice(content.position(), length);
            content.position(content.position() + length);
            boolean last = !content.hasRemaining();
            response.write(
                    last,
                    slice,
                    Callback.from(
                            InvocationType.NON_BLOCKING,
                            () -> {
                                completed.incrementAndGet();
                                if (last) {
                                    callback.succeeded();
                                } else {
                                    run();
                                }
                            },
                            callback::failed));
        }
    }

    @Test
    void theAckOfNewSettingsPrecedesTheDataTheyRelease() throws Exception {
        start(builder -> builder.handler(TestHandlers.hello(Shape.ASYNC)));
        Http2TestClient client = connect(new Http2Settings().set(Http2Settings.INITIAL_WINDOW_SIZE, 0));
        int stream = client.get("/");
        // The head goes out; the body waits for window: the response is stalled in the flusher.
        client.await(FrameEvent.Headers.class, h -> h.streamId() == stream, TIMEOUT);
        client.sendSettings(new Http2Settings().set(Http2Settings.INITIAL_WINDOW_SIZE, 1));
        FrameEvent.Data data = client.await(FrameEvent.Data.class, d -> d.streamId() == stream, TIMEOUT);
        assertEquals(1, data.data().length, "one octet of window, one octet of DATA");
        List<FrameEvent> events = client.events();
        int ack = events.lastIndexOf(new FrameEvent.SettingsAck());
        int first = events.indexOf(data);
        assertTrue(ack >= 0 && ack < first, () -> "RFC 9113 6.5.3: the ACK comes first: " + events);
    }
}
