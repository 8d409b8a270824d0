package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import java.io.IOException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RequestIdTest extends ServerTestBase {

    @BeforeEach
    void startWithRequestIds() throws IOException {
        // The handler answers the id it sees as the request attribute.
        start(builder -> builder.filter(RequestId.filter())
                .route("GET /id", (req, res) -> res.send(RequestId.of(req).orElse("none"))));
    }

    private RawResponse get(String extraField) throws IOException {
        return connect()
                .send("GET /id HTTP/1.1\r\nHost: test\r\n" + extraField + "\r\n")
                .readResponse();
    }

    @Test
    void aValidIncomingIdIsKeptOnTheResponseAndAsAnAttribute() throws IOException {
        RawResponse response = get("X-Request-Id: trace-7f3a/b!~\r\n");

        assertEquals("trace-7f3a/b!~", response.header("X-Request-Id").orElseThrow());
        assertEquals("trace-7f3a/b!~", response.text());
    }

    @Test
    void anIdOf128CharactersIsKept() throws IOException {
        String id = "a".repeat(RequestId.MAX_LENGTH);

        assertEquals(id, get("X-Request-Id: " + id + "\r\n").text());
    }

    @Test
    void withoutAnIncomingIdOneIsGenerated() throws IOException {
        RawResponse first = get("");
        RawResponse second = get("");

        String id = first.header("X-Request-Id").orElseThrow();
        assertTrue(id.matches("[0-9a-f]{16}"), id);
        assertEquals(id, first.text());
        assertNotEquals(id, second.header("X-Request-Id").orElseThrow());
    }

    @ParameterizedTest
    @ValueSource(strings = {"has space", "tab\there", "caf\u00e9", "129"})
    void anInvalidIncomingIdIsReplaced(String incoming) throws IOException {
        String sent = incoming.equals("129") ? "b".repeat(RequestId.MAX_LENGTH + 1) : incoming;

        RawResponse response = get("X-Request-Id: " + sent + "\r\n");

        String id = response.header("X-Request-Id").orElseThrow();
        assertTrue(id.matches("[0-9a-f]{16}"), id);
        assertEquals(id, response.text());
    }
}
