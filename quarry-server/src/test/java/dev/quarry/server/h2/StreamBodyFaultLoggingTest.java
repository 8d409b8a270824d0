package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quarry.http.HttpFields;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.server.ServerBuilder;
import dev.quarry.server.h2.TestHandlers.Shape;
import dev.quarry.server.test.Echo;
import dev.quarry.server.test.LogCapture;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.logging.LogRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Over HTTP/2 as over HTTP/1.1, what a client does to a request body is its own fault: a stream reset in the middle
 * of its body, or a body that stops until the stream idle timeout, is logged at DEBUG without a stack trace, never
 * at WARNING, and never counted as a server error, for a blocking and an asynchronous handler.
 */
class StreamBodyFaultLoggingTest extends Http2ServerTestSupport {

    private void startEcho(Shape shape, Duration streamIdleTimeout) throws Exception {
        start(builder -> route(builder, shape)
                .http2Config(new Limits().streamIdleTimeout(streamIdleTimeout).build()));
    }

    private static ServerBuilder route(ServerBuilder builder, Shape shape) {
        return shape == Shape.BLOCKING
                ? builder.route("POST /echo", Echo.blocking()).route("GET /hello", TestHandlers.hello(shape))
                : builder.route("POST /echo", Echo.async()).route("GET /hello", TestHandlers.hello(shape));
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void aStreamResetInTheMiddleOfItsBodyIsNotAServerError(Shape shape) throws Exception {
        try (LogCapture log = LogCapture.of("dev.quarry")) {
            startEcho(shape, Duration.ofSeconds(30));
            Http2TestClient client = connect();
            int stream = client.nextStreamId();
            client.sendHeaders(stream, "POST", "http", client.authority(), "/echo", new HttpFields(), false);
            client.sendData(stream, new byte[100], false);
            awaitCondition(() -> server.statistics().http2Requests() == 1, () -> "the request started");

            client.sendRstStream(stream, ErrorCode.CANCEL);

            awaitCondition(
                    () -> !log.matching(record ->
                                    String.valueOf(record.getMessage()).contains("POST /echo HTTP/2.0"))
                            .isEmpty(),
                    () -> "the handler's failure handled quietly:\n" + log.describe());
            assertEquals(
                    200, client.awaitResponse(client.get("/hello"), TIMEOUT).status(), "the connection serves on");
            assertQuiet(log);
        }
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void aBodyThatStopsUntilTheStreamIdleTimeoutIsAnswered408Quietly(Shape shape) throws Exception {
        try (LogCapture log = LogCapture.of("dev.quarry")) {
            startEcho(shape, Duration.ofMillis(400));
            Http2TestClient client = connect();
            int stream = client.nextStreamId();
            client.sendHeaders(stream, "POST", "http", client.authority(), "/echo", new HttpFields(), false);
            client.sendData(stream, new byte[100], false);

            assertEquals(408, client.awaitResponse(stream, TIMEOUT).status());
            assertEquals(
                    ErrorCode.NO_ERROR, client.awaitRstStream(stream, TIMEOUT).error());
            assertQuiet(log);
        }
    }

    private void assertQuiet(LogCapture log) {
        long[] byClass = server.statistics().responsesByClass();
        assertEquals(0, byClass[4], () -> "counted as a server error: " + Arrays.toString(byClass));
        assertEquals(List.of(), log.warnings(), log::describe);
        List<LogRecord> traces = log.matching(record -> record.getThrown() != null);
        assertEquals(List.of(), traces, log::describe);
    }
}
