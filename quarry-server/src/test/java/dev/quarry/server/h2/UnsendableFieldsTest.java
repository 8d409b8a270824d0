package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.LeakTrackingByteBufferPool;
import dev.quarry.http.HttpFields;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.server.Router;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A handler that sets a field HTTP/2 may not carry (a value with CR or LF) hurts only its own stream: before commit the
 * response becomes a 500, in trailers the stream is reset; the connection and its other streams carry on.
 */
class UnsendableFieldsTest extends Http2ServerTestSupport {

    private static Router routes() {
        Router router = new Router();
        router.route("GET /ok", (request, response) -> response.send("ok"));
        router.route("GET /injection", (request, response) -> {
            response.header("X-Evil", "a\r\nset-cookie: stolen=1");
            response.send("never sent");
        });
        router.route("GET /bad-trailer", (request, response, callback) -> {
            response.trailers(() -> new HttpFields().add("x-digest", "a\nb"));
            response.write(true, ByteBuffer.wrap("body".getBytes(StandardCharsets.UTF_8)), callback);
        });
        return router;
    }

    @Test
    void aHeaderValueWithALineBreakIsA500AndTheConnectionCarriesOn(LeakTrackingByteBufferPool pool) throws Exception {
        start(builder -> builder.handler(routes()));
        Http2TestClient client = connect();

        Http2TestClient.Response response = client.awaitResponse(client.get("/injection"));

        assertEquals(500, response.status(), response::toString);
        assertTrue(response.headers().get("x-evil").isEmpty(), response::toString);
        assertTrue(response.headers().get("set-cookie").isEmpty(), response::toString);
        Http2TestClient.Response next = client.awaitResponse(client.get("/ok"));
        assertEquals(200, next.status(), "the connection carries on");
        assertEquals("ok", next.bodyAsString());
        assertEquals(1, server.statistics().responsesByClass()[4], "one response counted, the 500");
    }

    @Test
    void aTrailerWithALineBreakResetsOnlyItsStream(LeakTrackingByteBufferPool pool) throws Exception {
        start(builder -> builder.handler(routes()));
        Http2TestClient client = connect();

        int stream = client.get("/bad-trailer");

        assertEquals(
                ErrorCode.INTERNAL_ERROR, client.awaitRstStream(stream, TIMEOUT).error());
        assertEquals(200, client.awaitResponse(client.get("/ok")).status(), "the connection carries on");
        client.close();
        awaitCondition(
                () -> server.connectors().get(0).openConnections() == 0,
                () -> "open connections: " + server.connectors().get(0).openConnections());
        assertTrue(pool.awaitNoLeaks(TIMEOUT), () -> "leaked: " + pool.leaks());
    }
}
