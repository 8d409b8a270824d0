package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.InvocationType;
import dev.quarry.core.IteratingCallback;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Router;
import dev.quarry.server.test.Bodies;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.Transport;
import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Back pressure from a client that stops reading: a handler writing 64 MB is held in its write (the blocking shape in
 * {@code write()}, the asynchronous shape by a write callback that does not complete) instead of the server buffering
 * the body; other clients are served meanwhile; and when the client goes away the handler gets an
 * {@link IOException}. No sleeps: the test waits until a round trip of another client passes without the writer
 * making progress.
 */
class BackPressureTest extends ServerTestBase {
    private static final long TOTAL = 64L * 1024 * 1024;
    private static final int CHUNK = 64 * 1024;
    private static final String FLOOD = "GET /flood HTTP/1.1\r\nHost: test\r\n\r\n";
    private static final String OK = "GET /ok HTTP/1.1\r\nHost: test\r\n\r\n";

    private final AtomicLong written = new AtomicLong();
    private final CompletableFuture<Throwable> writerFailed = new CompletableFuture<>();
    private volatile boolean writerFinished;
    private volatile Thread writer;
    private volatile boolean asyncWritePending;

    private Router routes() {
        Router router = new Router();
        router.route(
                "GET /ok",
                AsyncHandler.nonBlocking((request, response, callback) ->
                        response.write(true, ByteBuffer.wrap(new byte[] {'o', 'k'}), callback)));
        router.route("POST /echo", Bodies.blockingEcho());
        router.route("POST /async-echo", Bodies.asyncEcho());
        router.route("GET /flood", (request, response) -> {
            writer = Thread.currentThread();
            byte[] chunk = new byte[CHUNK];
            Arrays.fill(chunk, (byte) 'x');
            response.header("Content-Length", String.valueOf(TOTAL));
            try (OutputStream out = response.outputStream()) {
                while (written.get() < TOTAL) {
                    out.write(chunk);
                    written.addAndGet(CHUNK);
                }
            } catch (IOException x) {
                writerFailed.complete(x);
                throw x;
            }
            writerFinished = true;
        });
        router.route(
                "GET /async-flood",
                AsyncHandler.nonBlocking((request, response, callback) -> new IteratingCallback() {
                    @Override
                    protected Action process() {
                        if (written.get() == TOTAL) {
                            return Action.SUCCEEDED;
                        }
                        ByteBuffer chunk = ByteBuffer.allocate(CHUNK);
                        Arrays.fill(chunk.array(), (byte) 'y');
                        asyncWritePending = true;
                        response.write(written.get() + CHUNK == TOTAL, chunk, this);
                        return Action.SCHEDULED;
                    }

                    @Override
                    public void succeeded() {
                        asyncWritePending = false;
                        written.addAndGet(CHUNK);
                        super.succeeded();
                    }

                    @Override
                    protected void onCompleteSuccess() {
                        writerFinished = true;
                        callback.succeeded();
                    }

                    @Override
                    protected void onCompleteFailure(Throwable cause) {
                        writerFailed.complete(cause);
                        callback.failed(cause);
                    }

                    @Override
                    public InvocationType invocationType() {
                        return InvocationType.NON_BLOCKING;
                    }
                }.iterate()));
        return router;
    }

    /** Whether the blocking writer is parked inside a response write. */
    private boolean blockedInWrite() {
        Thread thread = writer;
        return thread != null
                && thread.getState() == Thread.State.WAITING
                && Arrays.stream(thread.getStackTrace())
                        .anyMatch(frame -> frame.getMethodName().equals("blockingWrite"));
    }

    /**
     * Waits until the writer is held and makes no progress during a whole round trip of another client.
     *
     * @return the bytes written when it stalled
     */
    private long awaitStalled(BooleanSupplier held) {
        long[] stalledAt = new long[1];
        await(
                "the writer held by the client that does not read",
                () -> {
                    long before = written.get();
                    if (!held.getAsBoolean()) {
                        return false;
                    }
                    try {
                        assertServedNormally(OK);
                    } catch (IOException x) {
                        throw new AssertionError(x);
                    }
                    stalledAt[0] = before;
                    return held.getAsBoolean() && written.get() == before;
                },
                () -> "written " + written.get() + ", writer " + writer);
        return stalledAt[0];
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aBlockingWriterIsHeldByAClientThatDoesNotReadAndFailsWhenItLeaves(Transport transport) throws Exception {
        start(transport, builder -> builder.handler(routes()));
        RawClient slow = connect();
        if (transport.isTcp()) {
            slow.receiveBuffer(16 * 1024);
        }
        slow.send(FLOOD);

        long stalled = awaitStalled(this::blockedInWrite);

        assertTrue(stalled < TOTAL / 4, "the server did not buffer the body: " + stalled + " bytes written");
        servedMeanwhile();
        assertTrue(blockedInWrite(), "still held in its write");
        assertEquals(stalled, written.get(), "no progress while the client does not read");
        assertFalse(writerFinished);

        slow.abort();

        Throwable failure = writerFailed.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(failure instanceof IOException, failure::toString);
        assertFalse(writerFinished);
        assertServedNormally(OK);
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void anAsyncWriterIsHeldByAClientThatDoesNotReadAndFailsWhenItLeaves(Transport transport) throws Exception {
        start(transport, builder -> builder.handler(routes()));
        RawClient slow = connect();
        if (transport.isTcp()) {
            slow.receiveBuffer(16 * 1024);
        }
        slow.send("GET /async-flood HTTP/1.1\r\nHost: test\r\n\r\n");

        long stalled = awaitStalled(() -> asyncWritePending);

        assertTrue(stalled < TOTAL / 4, "the server did not buffer the body: " + stalled + " bytes written");
        servedMeanwhile();
        assertTrue(asyncWritePending, "its write is still pending");
        assertEquals(stalled, written.get());

        slow.abort();

        Throwable failure = writerFailed.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(failure instanceof IOException, failure::toString);
        assertFalse(writerFinished);
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aClientThatResumesReadingGetsTheWholeBody(Transport transport) throws Exception {
        start(transport, builder -> builder.handler(routes()));
        RawClient slow = connect();
        slow.send(FLOOD);
        awaitStalled(this::blockedInWrite);

        RawResponse response = slow.readResponse();

        assertEquals(TOTAL, response.body().length);
        await("the handler returned", () -> writerFinished);
    }

    @ParameterizedTest
    @CsvSource({"TCP, /echo", "TCP, /async-echo", "UNIX, /echo", "UNIX, /async-echo"})
    void aLargeBodyIsEchoedWhileItIsStillBeingSent(Transport transport, String path) throws Exception {
        start(transport, builder -> builder.handler(routes()));
        // Larger than what the socket buffers of both directions hold: the echo only completes if the server reads
        // exactly as fast as the client drains the response, with back pressure both ways.
        byte[] body = Bodies.content(16 * 1024 * 1024, 5);
        RawClient client = connect();
        boolean chunked = path.startsWith("/async");
        client.send("POST " + path + " HTTP/1.1\r\nHost: test\r\n"
                + (chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + body.length + "\r\n")
                + "\r\n");
        FutureTask<Void> sender = new FutureTask<>(() -> {
            if (!chunked) {
                client.send(body);
                return null;
            }
            for (int at = 0; at < body.length; at += 100_000) {
                int n = Math.min(100_000, body.length - at);
                client.send(Integer.toHexString(n) + "\r\n");
                client.send(Arrays.copyOfRange(body, at, at + n));
                client.send("\r\n");
            }
            client.send("0\r\n\r\n");
            return null;
        });
        Thread.ofPlatform().name("sender").start(sender);

        RawResponse response = client.readResponse();

        sender.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(200, response.status(), response::toString);
        assertEquals(body.length, response.body().length);
        assertEquals(Bodies.sha256(body), Bodies.sha256(response.body()));
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    @Tag("stress")
    void aClientThatResumesReadingGetsTheWholeBodyEveryTime(Transport transport) throws Exception {
        // Each round stalls the writer and resumes it: a lost write interest in the selector would hang a round.
        start(transport, builder -> builder.handler(routes()));
        for (int round = 0; round < 50; round++) {
            written.set(0);
            writerFinished = false;
            writer = null;
            try (RawClient slow = connect()) {
                slow.send(FLOOD);
                awaitStalled(this::blockedInWrite);
                assertEquals(TOTAL, slow.readResponse().body().length, "round " + round);
                await("the handler returned", () -> writerFinished);
            }
        }
    }

    /** Other clients are served while the writer is held: raw connections, and the JDK client where it can go. */
    private void servedMeanwhile() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertServedNormally(OK);
        }
        if (transport.isTcp()) {
            HttpResponse<String> response =
                    httpClient().send(HttpRequest.newBuilder(uri("/ok")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals("ok", response.body());
        }
    }
}
