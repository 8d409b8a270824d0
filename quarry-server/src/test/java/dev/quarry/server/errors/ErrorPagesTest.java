package dev.quarry.server.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Invocable;
import dev.quarry.http.HttpException;
import dev.quarry.http.h1.HttpParserConfig;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.ErrorInfo;
import dev.quarry.server.Handler;
import dev.quarry.server.HttpConfig;
import dev.quarry.server.Router;
import dev.quarry.server.Server;
import dev.quarry.server.ServerBuilder;
import dev.quarry.server.test.HttpTestClient;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.Setup;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The exception mapper ({@code onError}) and the error pages ({@code errorPage}) of the builder: which one answers,
 * what it sees, where it runs, and what happens when it fails itself.
 */
class ErrorPagesTest extends ServerTestBase {

    private final Set<String> violations = ConcurrentHashMap.newKeySet();

    private static Router routes() {
        Router router = new Router();
        router.route("GET /number-format", (request, response) -> {
            throw new NumberFormatException("not a number: 'x'");
        });
        router.route("GET /illegal-state", (request, response) -> {
            throw new IllegalStateException("secret detail");
        });
        router.route("GET /error", (request, response) -> {
            throw new AssertionError("an Error, not an Exception");
        });
        router.route("GET /send-error", (request, response) -> response.sendError(404, "no such thing"));
        router.route("GET /http-exception", (request, response) -> {
            throw new HttpException(404, "gone fishing");
        });
        router.route(
                "GET /fails-in-place",
                AsyncHandler.nonBlocking(
                        (request, response, callback) -> callback.failed(new IllegalStateException("in place"))));
        router.route("POST /only-post", (request, response) -> response.send("posted"));
        return router;
    }

    /** A blocking page that shows what it answers, and records if it ever runs on a thread that must not block. */
    private Handler page(String name) {
        return (request, response) -> {
            if (Invocable.isNonBlockingInvocation()) {
                violations.add(name + " ran on a thread that must not block: " + Thread.currentThread());
            }
            ErrorInfo error = ErrorInfo.of(request).orElseThrow();
            response.header("Content-Type", "text/html; charset=utf-8");
            response.send(name + " " + error.status() + " " + response.status() + " " + error.message() + " "
                    + error.failure().map(x -> x.getClass().getSimpleName()).orElse("-"));
        };
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Setup#all")
    void theErrorHandlerOfTheMostSpecificTypeAnswers(Setup setup) throws Exception {
        start(
                setup,
                builder -> builder.handler(routes())
                        .onError(RuntimeException.class, (failure, request, response) -> response.send("runtime"))
                        .onError(IllegalArgumentException.class, (failure, request, response) -> {
                            response.status(400);
                            response.send("illegal argument: " + failure.getMessage());
                        }));
        HttpTestClient client = client();

        HttpTestClient.Reply numberFormat = client.get("/number-format");
        HttpTestClient.Reply illegalState = client.get("/illegal-state");
        HttpTestClient.Reply error = client.get("/error");

        assertEquals(400, numberFormat.status(), numberFormat::toString);
        assertEquals("illegal argument: not a number: 'x'", numberFormat.text());
        assertEquals(500, illegalState.status(), "the status preset to what the server would answer");
        assertEquals("runtime", illegalState.text());
        assertEquals(500, error.status(), "no error handler for an Error: the plain default");
        assertEquals("500 Internal Server Error\n", error.text());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Setup#all")
    void anErrorHandlerMayWriteAnyResponse(Setup setup) throws Exception {
        start(
                setup,
                builder -> builder.handler(routes())
                        .onError(IllegalStateException.class, (failure, request, response) -> {
                            response.header("X-Problem", "state");
                            response.send(
                                    422,
                                    "application/problem+json",
                                    ByteBuffer.wrap("{\"title\":\"bad state\"}".getBytes(StandardCharsets.UTF_8)));
                        }));

        HttpTestClient.Reply reply = client().get("/illegal-state");

        assertEquals(422, reply.status());
        assertEquals("application/problem+json", reply.header("Content-Type").orElse(null));
        assertEquals("state", reply.header("X-Problem").orElse(null));
        assertEquals("{\"title\":\"bad state\"}", reply.text());
        assertTrue(reply.header("Date").isPresent() && reply.header("Server").isPresent(), reply::toString);
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Setup#all")
    void anErrorPageAnswersEveryWayOfReachingItsStatus(Setup setup) throws Exception {
        start(
                setup,
                builder -> builder.handler(routes())
                        .errorPage(404, page("not-found"))
                        .errorPage(405, page("not-allowed"))
                        .errorPage(500, page("oops")));
        HttpTestClient client = client();

        assertEquals(
                "not-found 404 404 no such thing -", client.get("/send-error").text());
        assertEquals(
                "not-found 404 404 gone fishing HttpException",
                client.get("/http-exception").text());
        assertEquals(
                "not-found 404 404 Not Found: /missing -",
                client.get("/missing").text());
        HttpTestClient.Reply notAllowed = client.get("/only-post");
        assertEquals("not-allowed 405 405 Method Not Allowed -", notAllowed.text());
        assertEquals("POST", notAllowed.header("Allow").orElse(null), "the router's fields are kept");
        HttpTestClient.Reply failed = client.get("/illegal-state");
        assertEquals(500, failed.status());
        assertEquals("oops 500 500 Internal Server Error IllegalStateException", failed.text());
        assertEquals("text/html; charset=utf-8", failed.header("Content-Type").orElse(null));
        assertTrue(violations.isEmpty(), violations::toString);
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Setup#all")
    void aBlockingErrorPageNeverRunsOnTheThreadOfAHandlerThatFailedInPlace(Setup setup) throws Exception {
        start(setup, builder -> builder.handler(routes()).errorPage(500, page("oops")));

        HttpTestClient.Reply reply = client().get("/fails-in-place");

        assertEquals("oops 500 500 Internal Server Error IllegalStateException", reply.text());
        assertTrue(violations.isEmpty(), violations::toString);
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Setup#all")
    void anErrorHandlerMayGoOnToTheErrorPageOfAStatus(Setup setup) throws Exception {
        start(
                setup,
                builder -> builder.handler(routes())
                        .onError(
                                IllegalStateException.class,
                                (failure, request, response) -> response.sendError(404, "mapped to 404"))
                        .errorPage(404, page("not-found")));

        assertEquals(
                "not-found 404 404 mapped to 404 -",
                client().get("/illegal-state").text());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Setup#all")
    void anErrorPageThatFailsFallsBackToThePlainDefault(Setup setup) throws Exception {
        start(
                setup,
                builder -> builder.handler(routes()).errorPage(404, (request, response) -> {
                    response.header("X-From-The-Page", "lost");
                    throw new IllegalStateException("the page is broken too");
                }));
        HttpTestClient client = client();

        HttpTestClient.Reply reply = client.get("/missing");

        assertEquals(404, reply.status());
        assertEquals("404 Not Found: /missing\n", reply.text());
        assertTrue(reply.header("X-From-The-Page").isEmpty(), reply::toString);
        assertTrue(reply.header("Date").isPresent() && reply.header("Server").isPresent(), reply::toString);
        assertEquals(200, client.send("POST", "/only-post", new byte[0]).status(), "the connection carries on");
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Setup#all")
    void anErrorHandlerThatFailsFallsBackToThePlainDefault(Setup setup) throws Exception {
        start(
                setup,
                builder -> builder.handler(routes()).onError(IllegalStateException.class, (failure, req, res) -> {
                    throw new IllegalArgumentException("the mapper is broken");
                }));

        HttpTestClient.Reply reply = client().get("/illegal-state");

        assertEquals(500, reply.status());
        assertEquals("500 Internal Server Error\n", reply.text());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Setup#all")
    void anErrorPageRunsOncePerRequest(Setup setup) throws Exception {
        start(
                setup,
                builder -> builder.handler(routes())
                        .errorPage(404, (request, response) -> response.sendError(500, "from the 404 page"))
                        .errorPage(500, page("oops")));

        HttpTestClient.Reply reply = client().get("/missing");

        assertEquals(500, reply.status(), "the page's own sendError gets the plain default, not another page");
        assertEquals("500 from the 404 page\n", reply.text());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Setup#all")
    void aNonBlockingErrorPageRunsInPlace(Setup setup) throws Exception {
        start(
                setup,
                builder -> builder.handler(routes())
                        .errorPage(404, AsyncHandler.nonBlocking((request, response, callback) -> {
                            String text = "async "
                                    + ErrorInfo.of(request)
                                            .map(ErrorInfo::message)
                                            .orElse("?");
                            response.write(true, ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), callback);
                        })));

        HttpTestClient.Reply reply = client().get("/missing");

        assertEquals(404, reply.status());
        assertEquals("async Not Found: /missing", reply.text());
    }

    @Test
    void anErrorPageAnswersRequestContentThatTurnsOutTooLarge() throws Exception {
        HttpParserConfig parser =
                HttpParserConfig.builder().maxContentLength(10).build();
        start(builder -> builder.httpConfig(HttpConfig.DEFAULT.withParser(parser))
                .route("POST /upload", (request, response) -> response.send(request.bodyAsString()))
                .errorPage(413, page("too-large")));

        RawResponse response = connect()
                .send("POST /upload HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "6\r\n012345\r\n6\r\n678901\r\n0\r\n\r\n")
                .readResponse();

        assertEquals(413, response.status(), response::toString);
        assertTrue(response.text().startsWith("too-large 413 413 "), response::toString);
    }

    @Test
    void anErrorPageAnswersTheOverload503AndKeepsRetryAfter() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        start(builder -> builder.maxConcurrentRequests(1)
                .maxQueuedRequests(0)
                .route("GET /slow", (request, response) -> {
                    started.countDown();
                    release.await();
                    response.send("slow");
                })
                .errorPage(
                        503,
                        AsyncHandler.nonBlocking((request, response, callback) -> response.write(
                                true, ByteBuffer.wrap("busy, come back".getBytes(StandardCharsets.UTF_8)), callback))));
        RawClient slow = connect().send("GET /slow HTTP/1.1\r\nHost: test\r\n\r\n");
        assertTrue(started.await(WAIT.toSeconds(), TimeUnit.SECONDS));

        try {
            RawResponse busy =
                    connect().send("GET /slow HTTP/1.1\r\nHost: test\r\n\r\n").readResponse();

            assertEquals(503, busy.status(), busy::toString);
            assertEquals("busy, come back", busy.text());
            assertEquals("1", busy.header("Retry-After").orElse(null));
        } finally {
            release.countDown();
        }
        assertEquals("slow", slow.readResponse().text());
    }

    @Test
    void aServerKeepsTheErrorPagesItWasBuiltWith() throws Exception {
        ServerBuilder[] builder = new ServerBuilder[1];
        start(config -> builder[0] = config.handler(routes()).errorPage(404, page("first")));

        builder[0].errorPage(500, page("later")); // after build(): the server never sees it

        assertEquals(
                "first 404 404 Not Found: /missing -", client().get("/missing").text());
        assertEquals(
                "500 Internal Server Error\n", client().get("/illegal-state").text());
    }

    @Test
    void theBuilderRefusesWhatCannotBeAnErrorPageOrHandler() {
        ServerBuilder builder = Server.builder();
        builder.errorPage(404, page("one")).onError(IllegalStateException.class, (failure, request, response) -> {});

        assertThrows(IllegalArgumentException.class, () -> builder.errorPage(302, page("redirect")));
        assertThrows(IllegalArgumentException.class, () -> builder.errorPage(600, page("none")));
        assertThrows(IllegalArgumentException.class, () -> builder.errorPage(404, page("again")));
        assertThrows(
                IllegalArgumentException.class,
                () -> builder.onError(IllegalStateException.class, (failure, request, response) -> {}));
        assertThrows(NullPointerException.class, () -> builder.errorPage(500, (Handler) null));
    }
}
