package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.core.timer.HashedWheelTimer;
import dev.quarry.http.HttpException;
import dev.quarry.server.AccessLog;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Request;
import dev.quarry.server.Response;
import dev.quarry.server.ResponseWrapper;
import dev.quarry.server.handlers.Throttle;
import dev.quarry.server.handlers.ThrottleHandler;
import dev.quarry.server.handlers.ThrottleLimits;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What a request leaves behind once it is over cannot reach the next request that its recycled HTTP/1.1 exchange (the
 * same request, response and fields objects) carries: a throttled write resumed by its timer, an output stream or an
 * input stream the handler kept. Each test ends a first request, starts a second one on the same connection (so on the
 * same exchange), acts with what the first one left, then completes the second and checks that its client got exactly
 * the second response.
 */
class RecycledExchangeGuardTest extends ServerTestBase {
    private static final String SECOND_BODY = "the second response";

    /** The second request's handler waits here for the test to complete it. */
    private final LinkedTransferQueue<Parked> parked = new LinkedTransferQueue<>();

    private void parkSecond(Request request, Response response, Callback callback) {
        parked.put(new Parked(request, response, callback));
    }

    private Parked awaitParked() throws InterruptedException {
        Parked next = parked.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertNotNull(next, "the request reached its handler");
        return next;
    }

    /** Completes the second request and checks that its client gets exactly its own response. */
    private static void completeAndCheckSecond(RawClient client, Parked second) throws Exception {
        second.response().write(true, ByteBuffer.wrap(SECOND_BODY.getBytes(StandardCharsets.UTF_8)), second.callback());
        RawResponse response = client.readResponse();
        assertEquals(200, response.status(), response::toString);
        assertEquals(SECOND_BODY, response.text(), response::toString);
    }

    @Test
    void aThrottledWriteResumedAfterItsRequestEndedFailsInsteadOfWritingIntoTheNext() throws Exception {
        // The throttle's timer hands its tasks to the test: the resume of a parked write runs when the test says.
        LinkedTransferQueue<Runnable> timerTasks = new LinkedTransferQueue<>();
        HashedWheelTimer timer = HashedWheelTimer.builder()
                .name("recycled-exchange-throttle-timer")
                .executor(timerTasks::put)
                .build();
        timer.start();
        try {
            // The request's bucket starts empty: a chunk waits for its tokens, parked on the timer (the head goes out
            // first). Which chunk is parked when the test takes the task does not matter.
            Throttle throttle = Throttle.builder()
                    .limits(ThrottleLimits.builder()
                            .requestRate(64 * 1024)
                            .requestBurst(1024)
                            .chunkSize(1024)
                            .build())
                    .timer(timer)
                    .build();
            LinkedTransferQueue<Callback> firstHandler = new LinkedTransferQueue<>();
            LinkedTransferQueue<Object> writeOutcome = new LinkedTransferQueue<>();
            AsyncHandler app = AsyncHandler.nonBlocking((request, response, callback) -> {
                if (!request.path().equals("/first")) {
                    parkSecond(request, response, callback);
                    return;
                }
                response.write(
                        false,
                        ByteBuffer.wrap(new byte[2048]),
                        Callback.from(
                                InvocationType.NON_BLOCKING, () -> writeOutcome.put("succeeded"), writeOutcome::put));
                firstHandler.put(callback); // completed by the test while the write waits: a handler's bug
            });
            start(builder -> builder.handler(new ThrottleHandler(throttle, app)));
            RawClient client = connect();
            client.send("GET /first HTTP/1.1\r\nHost: test\r\n\r\n");

            Runnable resume = timerTasks.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertNotNull(resume, "a chunk parked on the timer");
            // The handler completes while its write is parked: the response ends short.
            firstHandler.poll(WAIT.toSeconds(), TimeUnit.SECONDS).succeeded();
            RawResponse first = client.readResponse();
            assertEquals(200, first.status(), first::toString);
            assertTrue(first.body().length < 2048, first::toString);

            client.send("GET /second HTTP/1.1\r\nHost: test\r\n\r\n");
            Parked second = awaitParked();

            resume.run(); // the timer fires late, into what is now the second request's response

            Object outcome = writeOutcome.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            IllegalStateException failure = assertInstanceOf(IllegalStateException.class, outcome);
            assertTrue(failure.getMessage().contains("response already completed"), failure::toString);
            completeAndCheckSecond(client, second);
        } finally {
            timer.stop();
        }
    }

    @Test
    void aResponseWrapperKeptFromAnEndedRequestCannotWriteIntoTheNext() throws Exception {
        LinkedTransferQueue<Response> kept = new LinkedTransferQueue<>();
        start(builder -> builder.handler(AsyncHandler.nonBlocking((request, response, callback) -> {
            if (!request.path().equals("/first")) {
                parkSecond(request, response, callback);
                return;
            }
            Response wrapper = new ResponseWrapper(response);
            kept.put(wrapper);
            wrapper.write(true, ByteBuffer.wrap("first".getBytes(StandardCharsets.UTF_8)), callback);
        })));
        RawClient client = connect();
        client.send("GET /first HTTP/1.1\r\nHost: test\r\n\r\n");
        assertEquals("first", client.readResponse().text());
        client.send("GET /second HTTP/1.1\r\nHost: test\r\n\r\n");
        Parked second = awaitParked();

        LinkedTransferQueue<Object> outcome = new LinkedTransferQueue<>();
        kept.poll()
                .write(
                        true,
                        ByteBuffer.wrap("stale".getBytes(StandardCharsets.UTF_8)),
                        Callback.from(InvocationType.NON_BLOCKING, () -> outcome.put("succeeded"), outcome::put));
        IllegalStateException failure =
                assertInstanceOf(IllegalStateException.class, outcome.poll(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertTrue(failure.getMessage().contains("response already completed"), failure::toString);

        completeAndCheckSecond(client, second);
    }

    @Test
    void anOutputStreamKeptFromAnEndedRequestCannotWriteIntoTheNext() throws Exception {
        LinkedTransferQueue<OutputStream> kept = new LinkedTransferQueue<>();
        LinkedTransferQueue<Request> firstRequest = new LinkedTransferQueue<>();
        start(builder -> builder.handler(AsyncHandler.nonBlocking((request, response, callback) -> {
            if (!request.path().equals("/first")) {
                parkSecond(request, response, callback);
                return;
            }
            firstRequest.put(request);
            kept.put(response.outputStream());
            // Answered by the server's error response: the stream is left open, never closed by the exchange.
            callback.failed(new HttpException(409, "conflict"));
        })));
        RawClient client = connect();
        client.send("GET /first HTTP/1.1\r\nHost: test\r\n\r\n");
        assertEquals(409, client.readResponse().status());
        client.send("GET /second HTTP/1.1\r\nHost: test\r\n\r\n");
        Parked second = awaitParked();
        assertSame(firstRequest.poll(), second.request(), "the exchange was recycled for the second request");

        OutputStream stale = kept.poll();
        stale.write("stale bytes".getBytes(StandardCharsets.UTF_8));
        IllegalStateException failure = assertThrows(IllegalStateException.class, stale::flush);
        assertTrue(failure.getMessage().contains("response already completed"), failure::toString);

        completeAndCheckSecond(client, second);
    }

    @Test
    void anInputStreamKeptFromAnEndedRequestCannotReadTheNextRequestsBody() throws Exception {
        LinkedTransferQueue<InputStream> kept = new LinkedTransferQueue<>();
        start(builder -> builder.handler(AsyncHandler.nonBlocking((request, response, callback) -> {
            if (!request.path().equals("/first")) {
                parkSecond(request, response, callback);
                return;
            }
            kept.put(request.inputStream()); // its body is left unread: the connection discards it
            response.write(true, ByteBuffer.wrap("first".getBytes(StandardCharsets.UTF_8)), callback);
        })));
        RawClient client = connect();
        client.send("POST /first HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\n\r\nfirst");
        assertEquals("first", client.readResponse().text());
        client.send("POST /second HTTP/1.1\r\nHost: test\r\nContent-Length: 11\r\n\r\nsecond-body");
        Parked second = awaitParked();

        InputStream stale = kept.poll();
        // On another thread: without the guard the stale read may wait for content, which must not hang the test.
        CompletableFuture<Object> staleRead = CompletableFuture.supplyAsync(() -> {
            try {
                byte[] bytes = new byte[64];
                int n = stale.read(bytes);
                return n < 0 ? "end of content" : new String(bytes, 0, n, StandardCharsets.UTF_8);
            } catch (Throwable x) {
                return x;
            }
        });
        Object outcome = staleRead.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        IllegalStateException failure = assertInstanceOf(IllegalStateException.class, outcome);
        assertTrue(failure.getMessage().contains("request already completed"), failure::toString);

        assertEquals(
                "second-body",
                new String(second.request().inputStream().readAllBytes(), StandardCharsets.UTF_8),
                "the second request keeps its body");
        completeAndCheckSecond(client, second);
    }

    @Test
    void anErrorPageCompletingAgainAfterItsRequestEndedDoesNotCompleteTheNext() throws Exception {
        LinkedTransferQueue<Callback> pageCallbacks = new LinkedTransferQueue<>();
        start(builder -> builder.errorPage(409, AsyncHandler.nonBlocking((request, response, callback) -> {
                    pageCallbacks.put(callback); // completed once more by the test, later: a page's bug
                    response.write(true, ByteBuffer.wrap("page".getBytes(StandardCharsets.UTF_8)), callback);
                }))
                .handler(AsyncHandler.nonBlocking((request, response, callback) -> {
                    if (!request.path().equals("/first")) {
                        parkSecond(request, response, callback);
                        return;
                    }
                    callback.failed(new HttpException(409, "conflict"));
                })));
        RawClient client = connect();
        client.send("GET /first HTTP/1.1\r\nHost: test\r\n\r\n");
        RawResponse first = client.readResponse();
        assertEquals(409, first.status(), first::toString);
        assertEquals("page", first.text(), first::toString);
        client.send("GET /second HTTP/1.1\r\nHost: test\r\n\r\n");
        Parked second = awaitParked();

        pageCallbacks.poll().succeeded(); // logged and ignored: it would end the second response, empty

        completeAndCheckSecond(client, second);
    }

    @Test
    void aHandlerCompletingAgainThroughTheAccessLogAfterItsRequestEndedDoesNotCompleteTheNext() throws Exception {
        LinkedTransferQueue<Callback> firstCallbacks = new LinkedTransferQueue<>();
        LinkedTransferQueue<Response> firstResponses = new LinkedTransferQueue<>();
        start(builder -> builder.accessLog(AccessLog.toStream(OutputStream.nullOutputStream(), AccessLog.Format.JSON))
                .handler(AsyncHandler.nonBlocking((request, response, callback) -> {
                    if (!request.path().equals("/first")) {
                        parkSecond(request, response, callback);
                        return;
                    }
                    firstCallbacks.put(callback); // the access log's callback, made for this request
                    firstResponses.put(response); // and its response wrapper
                    response.write(true, ByteBuffer.wrap("first".getBytes(StandardCharsets.UTF_8)), callback);
                })));
        RawClient client = connect();
        client.send("GET /first HTTP/1.1\r\nHost: test\r\n\r\n");
        assertEquals("first", client.readResponse().text());
        client.send("GET /second HTTP/1.1\r\nHost: test\r\n\r\n");
        Parked second = awaitParked();

        firstCallbacks.poll().succeeded(); // logged and ignored: it would end the second response, empty
        Response stale = firstResponses.poll();
        assertThrows(IllegalStateException.class, stale::headers, "the second request's fields now");
        assertThrows(IllegalStateException.class, () -> stale.status(500));

        completeAndCheckSecond(client, second);
    }

    @Test
    void aRoutedRequestKeptFromAnEndedRequestCannotReadTheNextRequestsBody() throws Exception {
        LinkedTransferQueue<Request> kept = new LinkedTransferQueue<>();
        start(builder -> builder.route("POST /items/{id}", AsyncHandler.nonBlocking((request, response, callback) -> {
            if (!request.pathParam("id").equals("1")) {
                parkSecond(request, response, callback);
                return;
            }
            kept.put(request); // the router's wrapper, with its path parameters; its body left unread
            response.write(true, ByteBuffer.wrap("first".getBytes(StandardCharsets.UTF_8)), callback);
        })));
        RawClient client = connect();
        client.send("POST /items/1 HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\n\r\nfirst");
        assertEquals("first", client.readResponse().text());
        client.send("POST /items/2 HTTP/1.1\r\nHost: test\r\nContent-Length: 11\r\n\r\nsecond-body");
        Parked second = awaitParked();

        Request stale = kept.poll();
        IllegalStateException failure = assertThrows(IllegalStateException.class, stale::read);
        assertTrue(failure.getMessage().contains("request already completed"), failure::toString);
        assertThrows(IllegalStateException.class, () -> stale.demand(() -> {}));
        assertThrows(IllegalStateException.class, () -> stale.attribute("left-behind", "yes"));

        assertEquals(
                "second-body",
                new String(second.request().inputStream().readAllBytes(), StandardCharsets.UTF_8),
                "the second request keeps its body");
        completeAndCheckSecond(client, second);
    }

    private record Parked(Request request, Response response, Callback callback) {}
}
