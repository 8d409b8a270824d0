package dev.quarry.server.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.HttpException;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Response;
import dev.quarry.server.ResponseWrapper;
import dev.quarry.server.Router;
import dev.quarry.server.test.HttpTestClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.Setup;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Error responses look like every other response: whoever answers the error — a handler's {@code sendError}, an
 * {@link HttpException}, an unexpected exception, the router — the response carries {@code Date} and {@code Server},
 * over HTTP/1.1 and HTTP/2, and its status line has a reason phrase, even for a status without a registered one.
 */
class ErrorResponseTest extends ServerTestBase {

    private static Router routes() {
        Router router = new Router();
        router.route("GET /send-error", (request, response) -> {
            response.header("X-Lost", "set before the error");
            response.sendError(418, "short and stout");
        });
        router.route("GET /wrapped-send-error", (request, response) -> {
            response.header("Content-Length", "1000");
            Response wrapped = new ResponseWrapper(response);
            wrapped.sendError(409, "wrapped");
        });
        router.route("GET /http-exception", (request, response) -> {
            throw new HttpException(403, "not for you");
        });
        router.route("GET /throw", (request, response) -> {
            throw new IllegalStateException("for a 500");
        });
        router.route("GET /async-throw", AsyncHandler.nonBlocking((request, response, callback) -> {
            throw new IllegalStateException("for a 500, in place");
        }));
        router.route("POST /only-post", (request, response) -> response.send("posted"));
        router.route("GET /status-299", (request, response) -> {
            response.status(299);
            response.send("unregistered");
        });
        router.route("GET /send-error-499", (request, response) -> response.sendError(499, "closed early"));
        return router;
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Setup#all")
    void everyErrorAnswerCarriesDateAndServer(Setup setup) throws Exception {
        start(setup, builder -> builder.handler(routes()));
        HttpTestClient client = client();

        for (String path : new String[] {
            "/send-error", "/wrapped-send-error", "/http-exception", "/throw", "/async-throw", "/only-post", "/missing"
        }) {
            HttpTestClient.Reply reply = client.get(path);

            assertTrue(reply.status() >= 400, () -> path + ": " + reply);
            assertEquals("quarry", reply.header("Server").orElse(null), () -> path + ": " + reply);
            assertTrue(reply.header("Date").isPresent(), () -> path + ": " + reply);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Setup#all")
    void sendErrorDropsWhatWasSetBeforeAndWritesAPlainBody(Setup setup) throws Exception {
        start(setup, builder -> builder.handler(routes()));

        HttpTestClient.Reply reply = client().get("/send-error");

        assertEquals(418, reply.status());
        assertEquals("418 short and stout\n", reply.text());
        assertTrue(reply.header("X-Lost").isEmpty(), reply::toString);
    }

    @Test
    void sendErrorThroughAWrapperDropsAContentLengthSetBefore() throws Exception {
        start(builder -> builder.handler(routes()));

        RawResponse response = connect()
                .send("GET /wrapped-send-error HTTP/1.1\r\nHost: test\r\n\r\n")
                .readResponse();

        assertEquals(409, response.status());
        assertEquals("409 wrapped\n", response.text());
        assertEquals(1, response.headerValues("Date").size(), response::toString);
        assertEquals(1, response.headerValues("Server").size(), response::toString);
    }

    @Test
    void aStatusWithoutARegisteredPhraseGetsThePhraseOfItsClass() throws Exception {
        start(builder -> builder.handler(routes()));

        RawResponse success =
                connect().send("GET /status-299 HTTP/1.1\r\nHost: test\r\n\r\n").readResponse();
        RawResponse clientError = connect()
                .send("GET /send-error-499 HTTP/1.1\r\nHost: test\r\n\r\n")
                .readResponse();

        assertEquals("Success", success.reason());
        assertEquals("Client Error", clientError.reason());
        assertEquals("499 closed early\n", clientError.text());
    }

    @Test
    void theServersOwnRejectionOfAnOversizedHeadCarriesDateAndServer() throws Exception {
        start(builder -> builder.handler(AsyncHandler.nonBlocking(
                (request, response, callback) -> response.write(true, ByteBuffer.allocate(0), callback))));

        RawResponse tooLarge = connect()
                .send("GET / HTTP/1.1\r\nHost: test\r\nX-Big: " + "x".repeat(20_000) + "\r\n\r\n")
                .readResponse();
        RawResponse tooLong = connect()
                .send("GET /" + "a".repeat(20_000) + " HTTP/1.1\r\nHost: test\r\n\r\n")
                .readResponse();

        assertEquals(431, tooLarge.status(), tooLarge::toString);
        assertEquals(414, tooLong.status(), tooLong::toString);
        for (RawResponse response : new RawResponse[] {tooLarge, tooLong}) {
            assertEquals("quarry", response.header("Server").orElse(null), response::toString);
            assertTrue(response.header("Date").isPresent(), response::toString);
        }
    }
}
