package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Request;
import dev.quarry.server.Response;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.LinkedTransferQueue;
import org.junit.jupiter.api.Test;

/**
 * HTTP/1.1 exchanges, with their request, response and fields, are recycled from one request to the next (on one
 * connection, and across connections through the server's pool): nothing of a request may show in the next one, and
 * a handler that completes later keeps its own request, whatever other connections do meanwhile.
 */
class ExchangeRecyclingTest extends ServerTestBase {

    /** Answers what it sees of the request, and leaves state behind that the next request must not see. */
    private static final AsyncHandler DESCRIBING = AsyncHandler.nonBlocking((request, response, callback) -> {
        String seen = describe(request);
        request.attribute("left-behind", "yes");
        if (request.headers().contains("X-First")) {
            response.status(201);
            response.headers().put("X-Only-First", "yes");
            response.headers().put("Content-Type", "application/x-first");
        }
        response.write(true, ByteBuffer.wrap(seen.getBytes(StandardCharsets.UTF_8)), callback);
    });

    private static String describe(Request request) {
        return request.method() + " " + request.path() + " query="
                + request.query().orElse("none") + " x-first="
                + request.headers().get("X-First").orElse("none") + " x-id="
                + request.headers().get("X-Id").orElse("none") + " cookies=" + request.cookies() + " attribute="
                + request.attribute("left-behind").orElse("none") + " fields="
                + request.headers().size();
    }

    @Test
    void pipelinedRequestsDoNotSeeTheStateOfThePreviousOne() throws Exception {
        start(builder -> builder.handler(DESCRIBING));
        RawClient client = connect();
        client.send("POST /first?a=1 HTTP/1.1\r\nHost: test\r\nX-First: 1\r\nCookie: c=1\r\nContent-Length: 0\r\n\r\n"
                + "GET /second HTTP/1.1\r\nHost: test\r\n\r\n");

        RawResponse first = client.readResponse();
        assertEquals(201, first.status(), first::toString);
        assertEquals("yes", first.header("X-Only-First").orElse(null), first::toString);
        assertEquals(
                "POST /first query=a=1 x-first=1 x-id=none cookies={c=1} attribute=none fields=4",
                first.text(),
                first::toString);

        RawResponse second = client.readResponse();
        assertEquals(200, second.status(), second::toString);
        assertTrue(second.header("X-Only-First").isEmpty(), second::toString);
        assertTrue(second.header("Content-Type").isEmpty(), second::toString);
        assertEquals(1, second.headerValues("Date").size(), second::toString);
        assertEquals(
                "GET /second query=none x-first=none x-id=none cookies={} attribute=none fields=1",
                second.text(),
                second::toString);
    }

    @Test
    void aHandlerCompletingLaterSeesItsOwnRequest() throws Exception {
        LinkedTransferQueue<Parked> parked = new LinkedTransferQueue<>();
        start(builder -> builder.handler(AsyncHandler.nonBlocking((request, response, callback) -> {
            if (request.path().equals("/later")) {
                parked.put(new Parked(request, response, callback)); // completed by the test, later
                return;
            }
            DESCRIBING.handle(request, response, callback);
        })));
        RawClient slow = connect();
        slow.send("GET /later?mine=1 HTTP/1.1\r\nHost: test\r\nX-Id: slow\r\n\r\n");
        Parked later = parked.poll(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(later != null, "the slow request reached its handler");

        // Meanwhile other connections go through many exchanges, one after another and pipelined.
        for (int i = 0; i < 20; i++) {
            try (RawClient other = RawClient.connect(transport, transport.address(server))) {
                other.send("GET /fast/" + i + "?n=" + i + " HTTP/1.1\r\nHost: test\r\nX-Id: fast-" + i + "\r\n\r\n"
                        + "GET /fast/" + i + "b HTTP/1.1\r\nHost: test\r\n\r\n");
                assertEquals(
                        "GET /fast/" + i + " query=n=" + i + " x-first=none x-id=fast-" + i
                                + " cookies={} attribute=none fields=2",
                        other.readResponse().text());
                assertEquals(
                        "GET /fast/" + i + "b query=none x-first=none x-id=none cookies={} attribute=none fields=1",
                        other.readResponse().text());
            }
        }

        String seen = describe(later.request());
        later.response().write(true, ByteBuffer.wrap(seen.getBytes(StandardCharsets.UTF_8)), later.callback());
        RawResponse response = slow.readResponse();
        assertEquals(
                "GET /later query=mine=1 x-first=none x-id=slow cookies={} attribute=none fields=2",
                response.text(),
                response::toString);
    }

    private record Parked(Request request, Response response, Callback callback) {}
}
