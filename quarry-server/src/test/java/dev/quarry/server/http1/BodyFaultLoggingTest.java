package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.ServerBuilder;
import dev.quarry.server.test.Echo;
import dev.quarry.server.test.LogCapture;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.Transport;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.logging.LogRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a client does wrong in a request body is its own fault, not the server's: a malformed chunk size line, an
 * abusive chunk extension, a reset in the middle of the body or a body that stops until the idle timeout is answered
 * (when it still can be) and counted, and logged at DEBUG in one line, never at WARNING nor with a stack trace, for a
 * blocking handler (input stream) and an asynchronous one (demand) alike. None of them counts as a server error.
 */
class BodyFaultLoggingTest extends ServerTestBase {
    private static final String CHUNKED_HEAD =
            "POST /upload HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n";
    private static final String LENGTH_HEAD = "POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 1000\r\n\r\n";

    private void startEcho(String shape, Consumer<ServerBuilder> more) throws Exception {
        start(Transport.TCP, builder -> {
            if (shape.equals("blocking")) {
                builder.handler(Echo.blocking());
            } else {
                builder.handler(Echo.async());
            }
            more.accept(builder);
        });
    }

    /** Sends the head, waits until the handler runs (and reads), then sends the rest. */
    private RawClient sendHeadThenBody(String head, String body) throws Exception {
        RawClient client = connect().timeout(WAIT);
        client.send(head);
        await("the exchange started", () -> server.statistics().http1Requests() == 1);
        if (!body.isEmpty()) {
            client.send(body);
        }
        return client;
    }

    @ParameterizedTest
    @ValueSource(strings = {"blocking", "async"})
    void aMalformedChunkSizeLineIsAnswered400AndLoggedQuietly(String shape) throws Exception {
        try (LogCapture log = LogCapture.of("dev.quarry")) {
            startEcho(shape, builder -> {});

            RawResponse response =
                    sendHeadThenBody(CHUNKED_HEAD, "5\r\nhello\r\nzz\r\n").readResponse();

            assertEquals(400, response.status(), response::toString);
            assertTrue(response.connectionClose(), response::toString);
            assertQuiet(log, 4);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"blocking", "async"})
    void anAbusiveChunkExtensionIsAnswered400AndLoggedQuietly(String shape) throws Exception {
        try (LogCapture log = LogCapture.of("dev.quarry")) {
            startEcho(shape, builder -> {});
            String extension = ";a=b".repeat(200); // 800 bytes, beyond the 256-byte limit

            RawResponse response = sendHeadThenBody(CHUNKED_HEAD, "5" + extension + "\r\nhello\r\n0\r\n\r\n")
                    .readResponse();

            assertEquals(400, response.status(), response::toString);
            assertQuiet(log, 4);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"blocking", "async"})
    void aResetInTheMiddleOfTheBodyIsCountedAndLoggedQuietly(String shape) throws Exception {
        try (LogCapture log = LogCapture.of("dev.quarry")) {
            startEcho(shape, builder -> {});
            RawClient client = sendHeadThenBody(LENGTH_HEAD, "x".repeat(100));
            await(
                    "the first part of the body read",
                    () -> server.connectors().get(0).endPoints().stream()
                            .anyMatch(endPoint -> endPoint.bytesIn() >= LENGTH_HEAD.length() + 100));

            client.abort(); // RST

            await(
                    "the reset seen",
                    () -> server.statistics().peerIoFailures() == 1,
                    () -> "peerIoFailures=" + server.statistics().peerIoFailures() + "\n" + log.describe());
            await("the connection closed", () -> server.connectors().get(0).openConnections() == 0);
            assertQuiet(log, -1);
            assertServedNormally("GET / HTTP/1.1\r\nHost: test\r\n\r\n");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"blocking", "async"})
    void aBodyThatStopsUntilTheIdleTimeoutIsAnswered408AndLoggedQuietly(String shape) throws Exception {
        try (LogCapture log = LogCapture.of("dev.quarry")) {
            startEcho(shape, builder -> builder.idleTimeout(Duration.ofMillis(500)));

            RawClient client = sendHeadThenBody(LENGTH_HEAD, "x".repeat(100));
            RawResponse response = client.readResponse();

            assertEquals(408, response.status(), response::toString);
            assertTrue(response.connectionClose(), response::toString);
            client.awaitClosed();
            assertQuiet(log, 4);
        }
    }

    /**
     * Asserts no warning, no stack trace at any level, no server error, and the client's fault counted.
     *
     * @param statusClass the class of the status the fault was answered with (4 for 4xx), or -1 if it could not be
     *     answered
     */
    private void assertQuiet(LogCapture log, int statusClass) {
        if (statusClass > 0) {
            await(
                    "the answer counted",
                    () -> server.statistics().responsesByClass()[statusClass - 1] == 1,
                    () -> java.util.Arrays.toString(server.statistics().responsesByClass()));
        }
        long[] byClass = server.statistics().responsesByClass();
        assertEquals(0, byClass[4], () -> "counted as a server error: " + java.util.Arrays.toString(byClass));
        assertEquals(List.of(), log.warnings(), log::describe);
        List<LogRecord> traces = log.matching(record -> record.getThrown() != null);
        assertEquals(List.of(), traces, log::describe);
    }
}
