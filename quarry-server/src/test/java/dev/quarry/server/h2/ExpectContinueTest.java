package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.quarry.http.HttpFields;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.h2.TestHandlers.Shape;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code Expect: 100-continue} over HTTP/2 (RFC 9110 §10.1.1, RFC 9113 §8.1): a client that holds its DATA until the
 * server asks gets a {@code :status 100} HEADERS frame when the handler first reads, and none when the handler answers
 * without reading.
 */
class ExpectContinueTest extends Http2ServerTestSupport {

    private static HttpFields expectContinue() {
        return new HttpFields().add("expect", "100-continue");
    }

    private static boolean isContinue(FrameEvent.Headers headers, int stream) {
        return headers.streamId() == stream && "100".equals(headers.block().status());
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void aHandlerThatReadsTheBodySendsOneHundredContinueFirst(Shape shape) throws Exception {
        start(builder -> builder.route("POST /echo", TestHandlers.echo(shape)));
        Http2TestClient client = connect();
        int stream = client.nextStreamId();
        client.sendHeaders(stream, "POST", "http", client.authority(), "/echo", expectContinue(), false);

        // The client sends nothing more until the 100 comes: without it, this wait times out.
        FrameEvent.Headers interim = client.await(FrameEvent.Headers.class, h -> isContinue(h, stream), TIMEOUT);
        assertFalse(interim.endStream(), interim::toString);
        client.sendData(stream, "the body".getBytes(StandardCharsets.UTF_8), true);

        Http2TestClient.Response response = client.awaitResponse(stream, TIMEOUT);
        assertEquals(200, response.status(), response::toString);
        assertEquals("the body", response.bodyAsString());
    }

    @Test
    void aHandlerThatCommitsBeforeReadingSendsNoOneHundredAfterItsHead() throws Exception {
        start(builder -> builder.route("POST /late-read", TestHandlers.blocking((req, res) -> {
            try (OutputStream out = res.outputStream()) {
                out.write("head first;".getBytes(StandardCharsets.UTF_8));
                out.flush(); // commits the response: a 100 after this would be a second head
                out.write(req.inputStream().readAllBytes());
            }
        })));
        Http2TestClient client = connect();
        int stream = client.nextStreamId();
        client.sendHeaders(stream, "POST", "http", client.authority(), "/late-read", expectContinue(), false);
        client.await(
                FrameEvent.Headers.class,
                h -> h.streamId() == stream && "200".equals(h.block().status()),
                TIMEOUT);
        client.sendData(stream, "then the body".getBytes(StandardCharsets.UTF_8), true);
        client.await(FrameEvent.Data.class, d -> d.streamId() == stream && d.endStream(), TIMEOUT);

        String body = client.events().stream()
                .filter(e -> e instanceof FrameEvent.Data d && d.streamId() == stream)
                .map(e -> new String(((FrameEvent.Data) e).data(), StandardCharsets.UTF_8))
                .reduce("", String::concat);
        assertEquals("head first;then the body", body);
        assertFalse(
                client.events().stream().anyMatch(e -> e instanceof FrameEvent.Headers h && isContinue(h, stream)),
                () -> "no 100 Continue after the response head: " + client.events());
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void aHandlerThatAnswersWithoutReadingSendsNoOneHundred(Shape shape) throws Exception {
        AsyncHandler refuse = shape == Shape.BLOCKING
                ? TestHandlers.blocking((req, res) -> res.status(413).send("too large"))
                : AsyncHandler.nonBlocking(
                        (req, res, cb) -> res.status(413).write(true, TestHandlers.utf8("too large"), cb));
        start(builder -> builder.route("POST /upload", refuse));
        Http2TestClient client = connect();
        int stream = client.nextStreamId();
        client.sendHeaders(stream, "POST", "http", client.authority(), "/upload", expectContinue(), false);

        Http2TestClient.Response response = client.awaitResponse(stream, TIMEOUT);

        assertEquals(413, response.status(), response::toString);
        assertFalse(
                client.events().stream().anyMatch(e -> e instanceof FrameEvent.Headers h && isContinue(h, stream)),
                () -> "no 100 Continue: " + client.events());
    }
}
