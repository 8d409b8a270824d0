package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.http.HttpException;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Router;
import dev.quarry.server.internal.Exchange;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.Transport;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the client sees when a handler fails: a 500 (or the status of an {@link HttpException}) while nothing was
 * committed, an aborted connection once the response was committed, and an idle timeout when the handler never
 * completes; and that a handler completing twice is logged and harmless.
 */
class HandlerErrorTest extends ServerTestBase {

    private static final String GET_OK = "GET /ok HTTP/1.1\r\nHost: test\r\n\r\n";

    private final CompletableFuture<Callback> stuck = new CompletableFuture<>();
    private final CompletableFuture<Throwable> readFailure = new CompletableFuture<>();

    private Router routes() {
        Router router = new Router();
        router.route(
                "GET /ok",
                AsyncHandler.nonBlocking((request, response, callback) ->
                        response.write(true, ByteBuffer.wrap("ok".getBytes(StandardCharsets.US_ASCII)), callback)));
        router.route("GET /throw", (request, response) -> {
            response.header("X-Lost", "set before the failure");
            throw new IllegalStateException("secret detail");
        });
        router.route("GET /async-throw", AsyncHandler.nonBlocking((request, response, callback) -> {
            throw new IllegalStateException("secret detail");
        }));
        router.route(
                "GET /async-fail",
                AsyncHandler.nonBlocking(
                        (request, response, callback) -> callback.failed(new IllegalStateException("secret detail"))));
        router.route("GET /http-exception", (request, response) -> {
            throw new HttpException(403, "not for you");
        });
        router.route(
                "GET /async-http-exception",
                AsyncHandler.nonBlocking(
                        (request, response, callback) -> callback.failed(new HttpException(409, "conflicting state"))));
        router.route("GET /throw-after-commit", (request, response) -> {
            OutputStream out = response.outputStream();
            out.write("partial".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            throw new IllegalStateException("too late for a 500");
        });
        router.route("GET /short-content-length", (request, response) -> {
            response.header("Content-Length", "100");
            OutputStream out = response.outputStream();
            out.write("only ten b".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            throw new IllegalStateException("too late for a 500");
        });
        router.route(
                "GET /twice",
                AsyncHandler.nonBlocking((request, response, callback) -> response.write(
                        true,
                        ByteBuffer.wrap("once".getBytes(StandardCharsets.US_ASCII)),
                        Callback.from(
                                () -> {
                                    callback.succeeded();
                                    callback.succeeded();
                                    callback.failed(new IllegalStateException("and a failure too"));
                                },
                                callback::failed))));
        router.route("GET /never", AsyncHandler.nonBlocking((request, response, callback) -> stuck.complete(callback)));
        router.route("POST /wait-for-body", (request, response) -> {
            try {
                request.inputStream().readAllBytes();
            } catch (IOException x) {
                readFailure.complete(x);
                throw x;
            }
            response.send("read it all");
        });
        router.route("GET /fire-and-forget", AsyncHandler.nonBlocking((request, response, callback) -> {
            byte[] big = new byte[8 * 1024 * 1024];
            java.util.Arrays.fill(big, (byte) 'f');
            response.write(true, ByteBuffer.wrap(big), Callback.NOOP);
            callback.succeeded(); // before the write completed: the exchange must still end after it
        }));
        router.route("GET /bad-length", (request, response) -> {
            response.header("Content-Length", "ten");
            response.send("never sent");
        });
        router.route("GET /injection", (request, response) -> {
            response.header("X-Evil", "a\r\nSet-Cookie: stolen=1");
            response.send("never sent");
        });
        return router;
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aHandlerThatThrowsBeforeCommittingGets500AndTheConnectionLives(Transport transport) throws Exception {
        start(transport, builder -> builder.handler(routes()));
        RawClient client = connect();

        for (String path : List.of("/throw", "/async-throw", "/async-fail")) {
            RawResponse response = client.send("GET " + path + " HTTP/1.1\r\nHost: test\r\n\r\n")
                    .readResponse();

            assertEquals(500, response.status(), response::toString);
            assertEquals("500 Internal Server Error\n", response.text(), "no detail of the exception leaks");
            assertTrue(response.header("X-Lost").isEmpty(), "fields set before the failure are dropped");
            assertTrue(response.header("Date").isPresent()
                    && response.header("Server").isPresent());
            assertFalse(response.connectionClose(), response::toString);
        }
        assertEquals(200, client.send(GET_OK).readResponse().status());
        assertEquals(3, server.statistics().responsesByClass()[4]);
    }

    @Test
    void anHttpExceptionIsAnsweredWithItsStatusAndReason() throws Exception {
        start(builder -> builder.handler(routes()));
        RawClient client = connect();

        RawResponse blocking = client.send("GET /http-exception HTTP/1.1\r\nHost: test\r\n\r\n")
                .readResponse();
        RawResponse async = client.send("GET /async-http-exception HTTP/1.1\r\nHost: test\r\n\r\n")
                .readResponse();

        assertEquals(403, blocking.status());
        assertEquals("403 not for you\n", blocking.text());
        assertEquals(409, async.status());
        assertEquals("409 conflicting state\n", async.text());
        assertEquals(200, client.send(GET_OK).readResponse().status());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aHandlerThatThrowsAfterCommittingAbortsTheConnection(Transport transport) throws Exception {
        start(transport, builder -> builder.handler(routes()));
        RawClient client = connect();

        IOException truncated = assertThrows(
                IOException.class,
                () -> client.send("GET /throw-after-commit HTTP/1.1\r\nHost: test\r\n\r\n")
                        .readResponse());

        // The chunked body never got its last chunk: the client cannot mistake it for a complete response.
        assertTrue(client.isClosedByServer(), "the connection is closed: " + truncated);
        assertEquals(1, server.statistics().aborted());
        assertServedNormally(GET_OK);
    }

    @Test
    void aCommittedResponseShorterThanItsContentLengthIsAborted() throws Exception {
        start(builder -> builder.handler(routes()));
        RawClient client = connect();

        IOException truncated = assertThrows(
                IOException.class,
                () -> client.send("GET /short-content-length HTTP/1.1\r\nHost: test\r\n\r\n")
                        .readResponse());

        assertTrue(truncated.getMessage().contains("after 10 of 100 body bytes"), truncated::toString);
        assertServedNormally(GET_OK);
    }

    @Test
    void aHandlerCompletingTwiceIsLoggedAndHarmless() throws Exception {
        List<LogRecord> warnings = new CopyOnWriteArrayList<>();
        Logger logger = Logger.getLogger(Exchange.class.getName());
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                warnings.add(record);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        logger.addHandler(capture);
        try {
            start(builder -> builder.handler(routes()));
            RawClient client = connect();

            RawResponse response =
                    client.send("GET /twice HTTP/1.1\r\nHost: test\r\n\r\n").readResponse();
            RawResponse next = client.send(GET_OK).readResponse();

            assertEquals("once", response.text());
            assertEquals("ok", next.text(), "the connection carries on");
            await("two warnings about the extra completions", () -> warnings.size() >= 2, warnings::toString);
            assertTrue(
                    warnings.stream().allMatch(r -> r.getMessage().contains("handler completed twice")),
                    warnings::toString);
        } finally {
            logger.removeHandler(capture);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aHandlerThatNeverCompletesIsEndedByTheIdleTimeout(Transport transport) throws Exception {
        start(transport, builder -> builder.handler(routes()).idleTimeout(Duration.ofMillis(500)));
        RawClient client = connect();

        client.send("GET /never HTTP/1.1\r\nHost: test\r\n\r\n");
        Callback callback = stuck.get(WAIT.toSeconds(), TimeUnit.SECONDS);

        assertEquals("EOF", client.awaitClosed(), "closed by the idle timeout, without a response");
        assertServedNormally(GET_OK);
        // The handler wakes up at last: its late completion finds the connection gone, and releases what it held.
        callback.succeeded();
        await("the connection's buffers released", () -> pool.leaks().isEmpty(), pool::dump);
    }

    @Test
    void aHandlerWaitingForABodyThatNeverComesFailsAtTheIdleTimeoutAndTheClientGets408() throws Exception {
        start(builder -> builder.handler(routes()).idleTimeout(Duration.ofMillis(500)));
        RawClient client = connect();

        client.send("POST /wait-for-body HTTP/1.1\r\nHost: test\r\nContent-Length: 10\r\n\r\nonly5");

        Throwable failure = readFailure.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(failure instanceof IOException, failure::toString);
        RawResponse response = client.readResponse();
        assertEquals(408, response.status(), response::toString);
        assertTrue(response.connectionClose(), response::toString);
        client.awaitClosed();
        assertServedNormally(GET_OK);
    }

    @Test
    void aHeaderValueThatWouldInjectALineIsA500NotAnInjection() throws Exception {
        start(builder -> builder.handler(routes()));
        RawClient client = connect();

        RawResponse response =
                client.send("GET /injection HTTP/1.1\r\nHost: test\r\n\r\n").readResponse();

        assertEquals(500, response.status(), response::toString);
        assertTrue(response.header("Set-Cookie").isEmpty(), response::toString);
        assertTrue(response.header("X-Evil").isEmpty(), response::toString);
        assertEquals(200, client.send(GET_OK).readResponse().status(), "the connection carries on");
        assertEquals(1, server.statistics().responsesByClass()[4], "one response counted, the 500");
        assertEquals(1, server.statistics().responsesByClass()[1]);
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aHandlerThatCompletesBeforeItsLastWriteCompletedStillGetsItWrittenWhole(Transport transport) throws Exception {
        start(transport, builder -> builder.handler(routes()));
        RawClient client = connect();

        client.send("GET /fire-and-forget HTTP/1.1\r\nHost: test\r\n\r\n" + GET_OK);
        RawResponse big = client.readResponse();
        RawResponse next = client.readResponse();

        assertEquals(8 * 1024 * 1024, big.body().length);
        assertTrue(new String(big.body(), StandardCharsets.US_ASCII).chars().allMatch(c -> c == 'f'));
        assertEquals("ok", next.text(), next::toString);
    }

    @Test
    void anInvalidContentLengthSetByTheHandlerIsA500() throws Exception {
        start(builder -> builder.handler(routes()));
        RawClient client = connect();

        RawResponse response =
                client.send("GET /bad-length HTTP/1.1\r\nHost: test\r\n\r\n").readResponse();

        assertEquals(500, response.status(), response::toString);
        assertEquals(200, client.send(GET_OK).readResponse().status(), "the connection carries on");
    }
}
