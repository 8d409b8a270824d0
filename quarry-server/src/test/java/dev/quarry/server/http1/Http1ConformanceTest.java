package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.http.HttpFields;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Router;
import dev.quarry.server.test.Echo;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.Transport;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a well-formed HTTP/1.x exchange gets, byte for byte over raw sockets and over every transport: keep-alive,
 * pipelining in order, chunked bodies both ways, trailers, {@code Expect: 100-continue}, HEAD, HTTP/1.0 semantics, the
 * four target forms and path normalisation.
 */
class Http1ConformanceTest extends ServerTestBase {

    private static final String GET = "GET /echo HTTP/1.1\r\nHost: test\r\n\r\n";

    private void startEcho(Transport transport) throws Exception {
        start(transport, builder -> builder.handler(routes()));
    }

    private static Router routes() {
        Router router = new Router();
        router.route("/echo", Echo.blocking());
        router.route("/async", Echo.async());
        router.route("GET /stream", (request, response) -> {
            int chunks = Integer.parseInt(request.queryParameter("chunks").orElse("3"));
            try (OutputStream out = response.outputStream()) {
                for (int i = 0; i < chunks; i++) {
                    out.write(("part" + i + ";").getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
            }
        });
        router.route("GET /trailers", AsyncHandler.nonBlocking((request, response, callback) -> {
            response.trailers(() -> {
                HttpFields trailers = new HttpFields(2);
                trailers.put("X-Checksum", "abc123");
                return trailers;
            });
            response.write(
                    false,
                    ByteBuffer.wrap("first,".getBytes(StandardCharsets.US_ASCII)),
                    Callback.from(
                            () -> response.write(
                                    true, ByteBuffer.wrap("second".getBytes(StandardCharsets.US_ASCII)), callback),
                            callback::failed));
        }));
        router.route(
                "POST /ignore-body",
                AsyncHandler.nonBlocking((request, response, callback) -> response.write(
                        true, ByteBuffer.wrap("ignored".getBytes(StandardCharsets.US_ASCII)), callback)));
        router.route("GET /big-head", (request, response) -> {
            response.header("X-Big", "h".repeat(100_000));
            response.send("small body");
        });
        return router;
    }

    // --- persistence and pipelining ------------------------------------------------------------------------------

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void keepAliveServesSeveralRequestsOnOneConnection(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        for (int i = 0; i < 5; i++) {
            RawResponse response = client.send("GET /echo?i=" + i + " HTTP/1.1\r\nHost: test\r\n\r\n")
                    .readResponse();
            assertEquals(200, response.status(), response::toString);
            assertFalse(response.connectionClose(), response::toString);
            assertEquals("i=" + i, Echo.parse(response).get("query"));
        }

        assertFalse(client.isClosedByServer());
        assertEquals(1, server.statistics().http1Connections());
        assertEquals(5, server.statistics().http1Requests());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void pipelinedRequestsOfBothShapesAreAnsweredInOrder(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();
        StringBuilder requests = new StringBuilder();
        for (int i = 0; i < 6; i++) {
            String path = i % 2 == 0 ? "/echo" : "/async";
            switch (i % 3) {
                case 0 ->
                    requests.append("GET ")
                            .append(path)
                            .append("?n=")
                            .append(i)
                            .append(" HTTP/1.1\r\nHost: test\r\n\r\n");
                case 1 ->
                    requests.append("POST ")
                            .append(path)
                            .append("?n=")
                            .append(i)
                            .append(" HTTP/1.1\r\nHost: test\r\nContent-Length: 6\r\n\r\nbody-")
                            .append(i);
                default ->
                    requests.append("POST ")
                            .append(path)
                            .append("?n=")
                            .append(i)
                            .append(" HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n")
                            .append("3\r\nabc\r\n2\r\n-")
                            .append(i)
                            .append("\r\n0\r\n\r\n");
            }
        }

        client.send(requests.toString());

        for (int i = 0; i < 6; i++) {
            RawResponse response = client.readResponse();
            assertEquals(200, response.status(), response::toString);
            Map<String, String> echo = Echo.parse(response);
            assertEquals("n=" + i, echo.get("query"), "response " + i + " out of order: " + response);
            String expected = switch (i % 3) {
                case 0 -> "";
                case 1 -> "body-" + i;
                default -> "abc-" + i;
            };
            assertEquals(expected, echo.get("body"));
        }
        assertFalse(client.isClosedByServer());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aBodyTheHandlerDidNotReadIsSkippedAndTheNextPipelinedRequestIsServed(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        client.send("POST /ignore-body HTTP/1.1\r\nHost: test\r\nContent-Length: 10\r\n\r\n0123456789"
                + "POST /ignore-body HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n0\r\n\r\n"
                + GET);

        assertEquals("ignored", client.readResponse().text());
        assertEquals("ignored", client.readResponse().text());
        RawResponse last = client.readResponse();
        assertEquals("GET", Echo.parse(last).get("method"), last::toString);
        assertFalse(client.isClosedByServer());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aThousandPipelinedRequestsAreAnsweredInOrder(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();
        StringBuilder requests = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
            requests.append("GET ")
                    .append(i % 2 == 0 ? "/echo" : "/async")
                    .append("?n=")
                    .append(i)
                    .append(" HTTP/1.1\r\nHost: test\r\n\r\n");
        }

        client.send(requests.toString());

        for (int i = 0; i < 1000; i++) {
            RawResponse response = client.readResponse();
            assertEquals("n=" + i, Echo.parse(response).get("query"), "response " + i);
        }
        assertEquals(1000, server.statistics().http1Requests());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aRequestHeadArrivingByteByByteIsParsed(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();
        String request = "POST /echo?q=1 HTTP/1.1\r\nHost: test\r\nX-A: b\r\nContent-Length: 3\r\n\r\nabc";

        for (int i = 0; i < request.length(); i++) {
            client.send(request.substring(i, i + 1));
        }

        Map<String, String> echo = Echo.parse(client.readResponse());
        assertEquals("q=1", echo.get("query"));
        assertEquals("abc", echo.get("body"));
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void connectionCloseFromTheClientIsHonoured(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        RawResponse response = client.send("GET /echo HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
                .readResponse();

        assertTrue(response.connectionClose(), response::toString);
        assertEquals("EOF", client.awaitClosed());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aClientThatHalfClosesAfterItsRequestStillGetsTheResponse(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 2\r\n\r\nhi"
                + "GET /async HTTP/1.1\r\nHost: test\r\n\r\n");
        client.shutdownOutput();

        assertEquals("hi", Echo.parse(client.readResponse()).get("body"));
        assertEquals("GET", Echo.parse(client.readResponse()).get("method"));
        client.awaitClosed();
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void anIdleKeptAliveConnectionIsClosedAtTheIdleTimeout(Transport transport) throws Exception {
        start(transport, builder -> builder.handler(routes()).idleTimeout(java.time.Duration.ofMillis(300)));
        RawClient idle = connect();
        RawClient partial = connect();

        assertEquals(200, idle.send(GET).readResponse().status());
        partial.send("GET /echo HTTP/1.1\r\nHost: te");

        assertEquals("EOF", idle.awaitClosed());
        assertEquals("EOF", partial.awaitClosed(), "a request that never completes is not waited for forever");
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aResponseHeadLargerThanTheOutputBufferIsSent(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        RawResponse response =
                client.send("GET /big-head HTTP/1.1\r\nHost: test\r\n\r\n").readResponse();

        assertEquals(100_000, response.header("X-Big").orElseThrow().length());
        assertEquals("small body", response.text());
        assertEquals(200, client.send(GET).readResponse().status());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void anUnreadBodyStillOnItsWayIsDiscardedAndTheConnectionKept(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();
        // Under HttpConfig.maxUnconsumedContent (64 KiB): the server reads and discards it when it comes.
        String part = "x".repeat(10_000);

        RawResponse response = client.send(
                        "POST /ignore-body HTTP/1.1\r\nHost: test\r\nContent-Length: 30000\r\n\r\n" + part)
                .readResponse();
        client.send(part).send(part);
        RawResponse next = client.send(GET).readResponse();

        assertEquals("ignored", response.text());
        assertFalse(response.connectionClose(), response::toString);
        assertEquals("GET", Echo.parse(next).get("method"), next::toString);
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void anUnreadChunkedBodyStillOnItsWayIsDiscardedAndTheConnectionKept(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        RawResponse response = client.send("POST /ignore-body HTTP/1.1\r\nHost: test\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n")
                .readResponse();
        client.send("6\r\nsecond\r\n0\r\n\r\n");
        RawResponse next = client.send(GET).readResponse();

        assertEquals("ignored", response.text());
        assertEquals("GET", Echo.parse(next).get("method"), next::toString);
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void anUnreadBodyOverTheLimitClosesTheConnection(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        RawResponse response = client.send(
                        "POST /ignore-body HTTP/1.1\r\nHost: test\r\nContent-Length: 1000000\r\n\r\nsome")
                .readResponse();

        assertEquals("ignored", response.text());
        try {
            client.send("y".repeat(100_000));
        } catch (java.io.IOException x) {
            // the server may be gone already
        }
        client.awaitClosed();
    }

    // --- chunked bodies and trailers -----------------------------------------------------------------------------

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void chunkedRequestBodyWithExtensionsAndTrailersIsDecoded(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        RawResponse response = client.send("POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "5;name=value\r\nhello\r\n"
                        + "1;flag\r\n \r\n"
                        + "A\r\n0123456789\r\n"
                        + "0\r\nX-Checksum: 42\r\nX-Other: yes\r\n\r\n")
                .readResponse();

        assertEquals(200, response.status(), response::toString);
        Map<String, String> echo = Echo.parse(response);
        assertEquals("hello 0123456789", echo.get("body"));
        assertEquals("-1", echo.get("contentLength"), "a chunked request has no declared length");
        assertServedNormally(GET);
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void chunkedRequestBodySplitAtEveryByteIsDecoded(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();
        String request = "POST /async HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "3\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nX-T: 1\r\n\r\n";

        for (int i = 0; i < request.length(); i++) {
            client.send(request.substring(i, i + 1));
        }

        RawResponse response = client.readResponse();
        assertEquals("abc0123456789abcdef", Echo.parse(response).get("body"), response::toString);
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aResponseOfUnknownLengthIsChunked(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        RawResponse response = client.send("GET /stream?chunks=4 HTTP/1.1\r\nHost: test\r\n\r\n")
                .readResponse();

        assertEquals(200, response.status());
        assertTrue(response.chunked(), response::toString);
        assertTrue(response.header("Content-Length").isEmpty(), response::toString);
        assertEquals("part0;part1;part2;part3;", response.text());
        assertFalse(response.connectionClose());
        assertEquals(200, client.send(GET).readResponse().status(), "the connection is reused after chunked content");
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void responseTrailersFollowTheLastChunk(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        RawResponse response =
                client.send("GET /trailers HTTP/1.1\r\nHost: test\r\n\r\n").readResponse();

        assertTrue(response.chunked(), response::toString);
        assertEquals("first,second", response.text());
        assertEquals("abc123", response.trailer("X-Checksum").orElseThrow(), response::toString);
        assertEquals(200, client.send(GET).readResponse().status());
    }

    // --- Expect: 100-continue ------------------------------------------------------------------------------------

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void continueIsSentWhenTheHandlerReadsTheBody(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        client.send("POST /echo HTTP/1.1\r\nHost: test\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
        RawResponse interim = client.readResponse();
        assertEquals(100, interim.status(), interim::toString);
        RawResponse response = client.send("hello").readResponse();

        assertEquals(200, response.status(), response::toString);
        assertEquals("hello", Echo.parse(response).get("body"));
        assertFalse(response.connectionClose());
        assertEquals(200, client.send(GET).readResponse().status());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void continueIsSentByAnAsyncHandlerDemandingContent(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        client.send("POST /async HTTP/1.1\r\nHost: test\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
        assertEquals(100, client.readResponse().status());
        RawResponse response = client.send("hello").readResponse();

        assertEquals("hello", Echo.parse(response).get("body"));
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aResponseWithoutReadingTheBodySkipsContinueAndClosesTheConnection(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        RawResponse response = client.send(
                        "POST /ignore-body HTTP/1.1\r\nHost: test\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
                .readResponse();

        assertEquals(200, response.status(), "no interim 100: " + response);
        assertTrue(response.connectionClose(), "the unread body may still come: " + response);
        client.awaitClosed();
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aClientThatSendsTheBodyWithoutWaitingForContinueKeepsItsConnection(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        // RFC 9110 §10.1.1: a client may send the content without waiting for 100 Continue.
        RawResponse response = client.send(
                        "POST /echo HTTP/1.1\r\nHost: test\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello")
                .readResponse();
        RawResponse empty = client.send(
                        "POST /echo HTTP/1.1\r\nHost: test\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n")
                .readResponse();

        assertEquals(200, response.status(), "no interim response, the body was there: " + response);
        assertEquals("hello", Echo.parse(response).get("body"));
        assertFalse(response.connectionClose(), "the whole body was read: " + response);
        assertEquals(200, empty.status(), empty::toString);
        assertFalse(empty.connectionClose(), "there was no body to wait for: " + empty);
        assertEquals(200, client.send(GET).readResponse().status());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void continueIsNotSentToAnHttp10Client(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        RawResponse response = client.send(
                        "POST /echo HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello")
                .readResponse();

        assertEquals(200, response.status(), response::toString);
        assertEquals("hello", Echo.parse(response).get("body"));
    }

    // --- HEAD -------------------------------------------------------------------------------------------------------

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void headIsAnsweredLikeGetWithoutTheBody(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();
        RawResponse get =
                client.send("GET /echo HTTP/1.1\r\nHost: test\r\n\r\n").readResponse();

        RawResponse head =
                client.send("HEAD /echo HTTP/1.1\r\nHost: test\r\n\r\n").readResponse(true);
        RawResponse headOfStream =
                client.send("HEAD /stream HTTP/1.1\r\nHost: test\r\n\r\n").readResponse(true);
        // If the server had sent a body after either HEAD head, it would be read here instead of this response.
        RawResponse after = client.send(GET).readResponse();

        assertEquals(200, head.status());
        String getLength = get.header("Content-Length").orElseThrow();
        assertEquals(
                String.valueOf(Integer.parseInt(getLength) + 1),
                head.header("Content-Length").orElseThrow(),
                "the length a GET would have (the echo says HEAD, one letter more): " + head);
        assertEquals(200, headOfStream.status(), headOfStream::toString);
        assertEquals("GET", Echo.parse(after).get("method"), after::toString);
    }

    // --- HTTP/1.0 ----------------------------------------------------------------------------------------------------

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void http10ClosesAfterTheResponseByDefault(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        RawResponse response = client.send("GET /echo HTTP/1.0\r\n\r\n").readResponse();

        assertEquals(200, response.status(), "HTTP/1.0 needs no Host: " + response);
        assertEquals("HTTP/1.0", Echo.parse(response).get("version"));
        assertTrue(response.connectionClose(), response::toString);
        client.awaitClosed();
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void http10KeepAliveIsHonouredWhenTheLengthIsKnown(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        RawResponse first = client.send("GET /echo HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                .readResponse();
        RawResponse second = client.send("GET /echo HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                .readResponse();

        assertEquals("keep-alive", first.header("Connection").orElseThrow(), first::toString);
        assertEquals(200, second.status());
        assertFalse(client.isClosedByServer());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void http10ResponseOfUnknownLengthIsDelimitedByClosing(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        RawResponse response = client.send("GET /stream HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                .readResponse();

        assertFalse(response.chunked(), "HTTP/1.0 has no chunked coding: " + response);
        assertTrue(response.header("Content-Length").isEmpty(), response::toString);
        assertEquals("part0;part1;part2;", response.text());
        assertTrue(client.isClosedByServer(), "the body ended with the connection");
    }

    // --- request targets ---------------------------------------------------------------------------------------------

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void absoluteFormTargetsAreServedAndTheirAuthorityWins(Transport transport) throws Exception {
        startEcho(transport);
        RawClient client = connect();

        RawResponse response = client.send(
                        "GET http://origin.example:8080/echo?x=1 HTTP/1.1\r\nHost: other.example\r\n\r\n")
                .readResponse();

        Map<String, String> echo = Echo.parse(response);
        assertEquals("/echo", echo.get("path"), response::toString);
        assertEquals("x=1", echo.get("query"));
        // RFC 9112 §3.2.2: a server receiving an absolute-form target ignores Host and uses the target's authority.
        assertEquals("origin.example:8080", echo.get("authority"));
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void asteriskFormIsServedForOptions(Transport transport) throws Exception {
        start(transport, builder -> builder.handler(Echo.blocking()));
        RawClient client = connect();

        RawResponse response =
                client.send("OPTIONS * HTTP/1.1\r\nHost: test\r\n\r\n").readResponse();

        assertEquals(200, response.status(), response::toString);
        Map<String, String> echo = Echo.parse(response);
        assertEquals("*", echo.get("target"));
        assertEquals("*", echo.get("path"));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "/a/./b           | /a/b",
                "/a/b/../c        | /a/c",
                "/a/b/..          | /a/",
                "/a//b            | /a//b",
                "/a%20b           | /a b",
                "/caf%C3%A9       | /café",
                "/%41%62c         | /Abc",
                "/a;v=1/b         | /a;v=1/b",
                "/a/%2e%2ex       | /a/..x",
                "/a?q=/../x       | /a",
            })
    void pathsAreDecodedAndNormalised(String target, String path) throws Exception {
        start(builder -> builder.handler(Echo.blocking()));

        RawResponse response = connect()
                .send("GET " + target + " HTTP/1.1\r\nHost: test\r\n\r\n")
                .readResponse();

        assertEquals(200, response.status(), response::toString);
        assertEquals(path, Echo.parse(response).get("path"));
    }
}
