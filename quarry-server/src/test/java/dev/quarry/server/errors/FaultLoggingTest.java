package dev.quarry.server.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Router;
import dev.quarry.server.test.LogCapture;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.Transport;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A fault of the server's side — a handler that throws or fails its callback, before or after the response was
 * committed — is logged once, at WARNING, with the request line, the client and the stack trace; what a client causes
 * (a malformed request, a reset) stays at DEBUG, without a stack trace.
 */
class FaultLoggingTest extends ServerTestBase {
    private final LogCapture log = LogCapture.of("dev.quarry");
    private final CompletableFuture<Throwable> writeFailure = new CompletableFuture<>();
    private final CompletableFuture<Void> writing = new CompletableFuture<>();

    @AfterEach
    void detachLog() {
        log.close();
    }

    private Router routes() {
        Router router = new Router();
        router.route("GET /ok", (request, response) -> response.send("ok"));
        router.route("GET /throw", (request, response) -> {
            throw new IllegalStateException("broken handler");
        });
        router.route(
                "GET /fail-callback",
                AsyncHandler.nonBlocking((request, response, callback) ->
                        callback.failed(new IllegalStateException("failed callback"))));
        router.route("GET /throw-after-commit", (request, response) -> {
            OutputStream out = response.outputStream();
            out.write("partial".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            throw new IllegalStateException("too late for a 500");
        });
        router.route(
                "GET /fail-after-commit",
                AsyncHandler.nonBlocking((request, response, callback) -> response.write(
                        false,
                        ByteBuffer.wrap("partial".getBytes(StandardCharsets.US_ASCII)),
                        Callback.from(
                                () -> callback.failed(new IllegalStateException("failed after commit")),
                                callback::failed))));
        router.route("GET /endless", (request, response) -> {
            OutputStream out = response.outputStream();
            byte[] chunk = new byte[64 * 1024];
            writing.complete(null);
            try {
                while (true) {
                    out.write(chunk);
                    out.flush();
                }
            } catch (IOException x) {
                writeFailure.complete(x);
                throw x;
            }
        });
        return router;
    }

    private List<LogRecord> handlerWarnings() {
        return log.warnings();
    }

    private void awaitOneWarning() {
        await("a warning", () -> !handlerWarnings().isEmpty(), log::describe);
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aHandlerThatThrowsIsLoggedOnceAtWarningWithTheRequestLine(Transport transport) throws Exception {
        start(transport, builder -> builder.handler(routes()));
        RawClient client = connect();

        assertEquals(
                500,
                client.send("GET /throw HTTP/1.1\r\nHost: test\r\n\r\n")
                        .readResponse()
                        .status());
        assertEquals(
                200,
                client.send("GET /ok HTTP/1.1\r\nHost: test\r\n\r\n")
                        .readResponse()
                        .status());

        awaitOneWarning();
        List<LogRecord> warnings = handlerWarnings();
        assertEquals(1, warnings.size(), log::describe);
        LogRecord warning = warnings.get(0);
        assertTrue(warning.getMessage().contains("GET /throw HTTP/1.1 from "), warning.getMessage());
        assertEquals("broken handler", warning.getThrown().getMessage());
    }

    @Test
    void aHandlerThatFailsItsCallbackIsLoggedOnceAtWarningWithTheClientAddress() throws Exception {
        start(builder -> builder.handler(routes()));
        RawClient client = connect();

        assertEquals(
                500,
                client.send("GET /fail-callback HTTP/1.1\r\nHost: test\r\n\r\n")
                        .readResponse()
                        .status());
        assertEquals(
                200,
                client.send("GET /ok HTTP/1.1\r\nHost: test\r\n\r\n")
                        .readResponse()
                        .status());

        awaitOneWarning();
        LogRecord warning = handlerWarnings().get(0);
        assertEquals(1, handlerWarnings().size(), log::describe);
        String local = client.localAddress().toString();
        assertTrue(
                warning.getMessage()
                        .contains("GET /fail-callback HTTP/1.1 from " + local.substring(local.indexOf('/') + 1)),
                warning.getMessage() + " vs " + local);
        assertNotNull(warning.getThrown());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aHandlerThatFailsAfterCommittingIsLoggedOnceAtWarning(Transport transport) throws Exception {
        start(transport, builder -> builder.handler(routes()));

        for (String path : new String[] {"/throw-after-commit", "/fail-after-commit"}) {
            RawClient client = connect();
            assertThrows(
                    IOException.class,
                    () -> client.send("GET " + path + " HTTP/1.1\r\nHost: test\r\n\r\n")
                            .readResponse());
        }

        await("two warnings", () -> handlerWarnings().size() >= 2, log::describe);
        assertServedNormally("GET /ok HTTP/1.1\r\nHost: test\r\n\r\n");
        List<LogRecord> warnings = handlerWarnings();
        assertEquals(2, warnings.size(), log::describe);
        assertTrue(warnings.get(0).getMessage().contains("after the response was committed"), log::describe);
        assertTrue(
                warnings.stream().anyMatch(r -> r.getMessage().contains("GET /throw-after-commit HTTP/1.1 from ")),
                log::describe);
        assertTrue(
                warnings.stream().anyMatch(r -> r.getMessage().contains("GET /fail-after-commit HTTP/1.1 from ")),
                log::describe);
    }

    @Test
    void aClientThatResetsTheConnectionIsNotAWarning() throws Exception {
        start(builder -> builder.handler(routes()));
        RawClient client = connect();
        client.receiveBuffer(4096);
        client.send("GET /endless HTTP/1.1\r\nHost: test\r\n\r\n");
        writing.get(WAIT.toSeconds(), TimeUnit.SECONDS);

        client.abort();

        assertNotNull(writeFailure.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        await(
                "the aborted response logged at DEBUG",
                () -> !log.matching(r -> r.getMessage().contains("aborting the response to GET /endless"))
                        .isEmpty(),
                log::describe);
        assertTrue(handlerWarnings().isEmpty(), log::describe);
        LogRecord debug = log.matching(r -> r.getMessage().contains("aborting the response"))
                .get(0);
        assertEquals(Level.FINE, debug.getLevel());
        assertNull(debug.getThrown(), "no stack trace for what a client did");
    }

    @Test
    void aMalformedRequestIsNotAWarning() throws Exception {
        start(builder -> builder.handler(routes()));

        RawResponse response = connect().send("GET / HTTP/1.1\r\n\r\n").readResponse();

        assertEquals(400, response.status());
        await(
                "the bad request logged at DEBUG",
                () -> !log.matching(r -> r.getMessage().contains("bad request")).isEmpty());
        assertTrue(handlerWarnings().isEmpty(), log::describe);
        assertTrue(log.matching(r -> r.getThrown() != null).isEmpty(), log::describe);
    }
}
