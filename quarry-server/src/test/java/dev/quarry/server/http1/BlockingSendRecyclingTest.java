package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A blocking handler's {@code send(String)} on a recycled HTTP/1.1 response reuses the response's text bytes and write
 * callback from one request to the next: each response carries exactly its own text, whatever the texts before it
 * were (longer, not ASCII, too long to be kept), one after another and pipelined.
 */
class BlockingSendRecyclingTest extends ServerTestBase {
    private static final String LONG = "L".repeat(300) + "!";
    private static final String SHORT = "ok";
    private static final String NOT_ASCII = "caf\u00e9 \u2615";
    private static final String TOO_LONG = "T".repeat(5000);
    private static final List<String> PATHS = List.of("/long", "/short", "/not-ascii", "/short", "/too-long", "/short");

    private static String textOf(String path) {
        return switch (path) {
            case "/long" -> LONG;
            case "/short" -> SHORT;
            case "/not-ascii" -> NOT_ASCII;
            case "/too-long" -> TOO_LONG;
            default -> throw new IllegalArgumentException(path);
        };
    }

    private void startServer() throws Exception {
        start(builder -> builder.handler((request, response) -> response.send(textOf(request.path()))));
    }

    private static void assertAnswered(String path, RawResponse response) {
        assertEquals(200, response.status(), response::toString);
        assertEquals(
                "text/plain; charset=utf-8", response.header("Content-Type").orElse(null), response::toString);
        byte[] expected = textOf(path).getBytes(StandardCharsets.UTF_8);
        assertEquals(
                String.valueOf(expected.length),
                response.header("Content-Length").orElse(null),
                response::toString);
        assertEquals(textOf(path), response.text(), path);
    }

    @Test
    void eachRequestOnAConnectionGetsItsOwnText() throws Exception {
        startServer();
        RawClient client = connect();
        for (String path : PATHS) {
            client.send("GET " + path + " HTTP/1.1\r\nHost: test\r\n\r\n");
            assertAnswered(path, client.readResponse());
        }
    }

    @Test
    void pipelinedRequestsGetTheirOwnTexts() throws Exception {
        startServer();
        RawClient client = connect();
        StringBuilder requests = new StringBuilder();
        for (String path : PATHS) {
            requests.append("GET ").append(path).append(" HTTP/1.1\r\nHost: test\r\n\r\n");
        }
        client.send(requests.toString());
        for (String path : PATHS) {
            assertAnswered(path, client.readResponse());
        }
    }
}
