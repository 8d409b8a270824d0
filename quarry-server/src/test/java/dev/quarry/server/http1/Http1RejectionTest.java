package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.quarry.http.h1.HttpParserConfig;
import dev.quarry.server.HttpConfig;
import dev.quarry.server.test.Echo;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.Transport;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every request a strict server must refuse, over raw sockets: each one is answered with the exact status, a body
 * that names the problem and {@code Connection: close}, then the server closes the connection — never a silent drop —
 * and another connection is served normally right after.
 */
class Http1RejectionTest extends ServerTestBase {

    private static final String OK = "GET /ok HTTP/1.1\r\nHost: test\r\n\r\n";

    /** A POST with the given field lines (each ending in CRLF) and content. */
    private static String post(String fields, String content) {
        return "POST /echo HTTP/1.1\r\nHost: test\r\n" + fields + "\r\n" + content;
    }

    /** A chunked POST with the given chunked content. */
    private static String chunked(String content) {
        return post("Transfer-Encoding: chunked\r\n", content);
    }

    /**
     * Sends {@code request} and asserts the whole rejection: status, {@code Connection: close}, a body naming the
     * problem, the connection closed by the server, and another connection served normally.
     */
    private void assertRejected(String request, int status, String reason) throws IOException {
        RawClient client = connect();
        RawResponse response = client.send(request).readResponse();
        assertEquals(status, response.status(), response::toString);
        assertTrue(response.connectionClose(), () -> "no Connection: close in " + response);
        assertTrue(
                response.text().toLowerCase(java.util.Locale.ROOT).contains(reason.toLowerCase(java.util.Locale.ROOT)),
                () -> "the body does not name the problem '" + reason + "': " + response);
        assertTrue(response.text().startsWith(status + " "), response::toString);
        client.awaitClosed();
        assertServedNormally(OK);
    }

    private void startEcho() throws IOException {
        start(builder -> builder.handler(Echo.blocking()));
    }

    // --- message framing: the request smuggling cases ---------------------------------------------------------------

    static Stream<Arguments> framing() {
        return Stream.of(
                arguments(
                        "Content-Length then Transfer-Encoding",
                        post("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\n"),
                        400,
                        "both Content-Length and Transfer-Encoding"),
                arguments(
                        "Transfer-Encoding then Content-Length",
                        post("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", "0\r\n\r\n"),
                        400,
                        "both Content-Length and Transfer-Encoding"),
                arguments(
                        "conflicting Content-Length lines",
                        post("Content-Length: 5\r\nContent-Length: 6\r\n", "hello!"),
                        400,
                        "conflicting Content-Length"),
                arguments(
                        "conflicting Content-Length list",
                        post("Content-Length: 5, 6\r\n", "hello!"),
                        400,
                        "conflicting Content-Length"),
                arguments(
                        "duplicate identical Content-Length",
                        post("Content-Length: 5\r\nContent-Length: 5\r\n", "hello"),
                        400,
                        "duplicate Content-Length"),
                arguments("Content-Length not a number", post("Content-Length: abc\r\n", ""), 400, "Content-Length"),
                arguments("negative Content-Length", post("Content-Length: -1\r\n", ""), 400, "is not a digit"),
                arguments("signed Content-Length", post("Content-Length: +5\r\n", "hello"), 400, "is not a digit"),
                arguments("hex Content-Length", post("Content-Length: 0x5\r\n", "hello"), 400, "is not a digit"),
                arguments("Content-Length with space", post("Content-Length: 1 2\r\n", ""), 400, "is not a digit"),
                arguments("empty Content-Length", post("Content-Length: \r\n", ""), 400, "empty Content-Length"),
                arguments(
                        "huge Content-Length",
                        post("Content-Length: 99999999999999999999\r\n", ""),
                        400,
                        "Content-Length too large"),
                arguments(
                        "unknown coding before chunked",
                        post("Transfer-Encoding: gzip, chunked\r\n", "0\r\n\r\n"),
                        501,
                        "unsupported transfer coding: \"gzip\""),
                arguments(
                        "unknown coding alone",
                        post("Transfer-Encoding: gzip\r\n", ""),
                        400,
                        "chunked is not the final transfer coding"),
                arguments(
                        "chunked not final",
                        post("Transfer-Encoding: chunked, gzip\r\n", "0\r\n\r\n"),
                        400,
                        "chunked is not the final transfer coding"),
                arguments(
                        "chunked twice in a list",
                        post("Transfer-Encoding: chunked, chunked\r\n", "0\r\n\r\n"),
                        400,
                        "chunked applied more than once"),
                arguments(
                        "chunked twice in two lines",
                        post("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\n"),
                        400,
                        "chunked applied more than once"),
                arguments(
                        "a coding that only looks like chunked",
                        post("Transfer-Encoding: xchunked\r\n", "0\r\n\r\n"),
                        400,
                        "chunked is not the final transfer coding"),
                arguments(
                        "chunked with a parameter",
                        post("Transfer-Encoding: chunked;q=1\r\n", "0\r\n\r\n"),
                        400,
                        "chunked takes no parameters"),
                arguments(
                        "empty Transfer-Encoding", post("Transfer-Encoding: \r\n", ""), 400, "empty Transfer-Encoding"),
                arguments(
                        "Transfer-Encoding in HTTP/1.0",
                        "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                        400,
                        "Transfer-Encoding in an HTTP/1.0 request"),
                arguments(
                        "folded Transfer-Encoding",
                        post("Transfer-Encoding:\r\n chunked\r\n", "0\r\n\r\n"),
                        400,
                        "obsolete line folding"),
                arguments(
                        "Transfer-Encoding with space before the colon",
                        post("Transfer-Encoding : chunked\r\n", "0\r\n\r\n"),
                        400,
                        "whitespace between field name and colon"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void framing(String name, String request, int status, String reason) throws IOException {
        startEcho();
        assertRejected(request, status, reason);
    }

    // --- field syntax ---------------------------------------------------------------------------------------------

    static Stream<Arguments> fields() {
        return Stream.of(
                arguments("obs-fold", post("X-A: one\r\n two\r\n", ""), "obsolete line folding"),
                arguments("obs-fold with a tab", post("X-A: one\r\n\ttwo\r\n", ""), "obsolete line folding"),
                arguments(
                        "space between name and colon",
                        post("X-A : one\r\n", ""),
                        "whitespace between field name and colon"),
                arguments(
                        "tab between name and colon",
                        post("X-A\t: one\r\n", ""),
                        "whitespace between field name and colon"),
                arguments("space inside the name", post("X A: one\r\n", ""), "whitespace in field name"),
                arguments("NUL in a value", post("X-A: a\0b\r\n", ""), "invalid character"),
                arguments("NUL in a name", post("X\0A: b\r\n", ""), "invalid character"),
                arguments("control character in a value", post("X-A: a\u0001b\r\n", ""), "invalid character"),
                arguments("DEL in a value", post("X-A: a\u007fb\r\n", ""), "invalid character"),
                arguments("bare CR in a value", post("X-A: a\rb\r\n", ""), "bare CR"),
                arguments("bare CR ending a line", "GET /ok HTTP/1.1\rHost: test\r\n\r\n", "bare CR"),
                arguments("line without colon", post("X-A\r\n", ""), "field line without colon"),
                arguments("empty field name", post(": value\r\n", ""), "empty field name"),
                arguments("LF without CR", "GET /ok HTTP/1.1\nHost: test\n\n", "line ended by LF without CR"),
                arguments(
                        "whitespace before the first field",
                        "GET /ok HTTP/1.1\r\n Host: test\r\n\r\n",
                        "whitespace before the first field line"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void fields(String name, String request, String reason) throws IOException {
        startEcho();
        assertRejected(request, 400, reason);
    }

    // --- the request line -----------------------------------------------------------------------------------------

    static Stream<Arguments> requestLine() {
        return Stream.of(
                arguments("bare CR in the target", "GET /a\rb HTTP/1.1\r\nHost: test\r\n\r\n", 400, "bare CR"),
                arguments("NUL in the target", "GET /a\0b HTTP/1.1\r\nHost: test\r\n\r\n", 400, "invalid character"),
                arguments("two spaces", "GET  /ok HTTP/1.1\r\nHost: test\r\n\r\n", 400, "more than one SP"),
                arguments("HTTP/0.9", "GET /ok\r\n\r\n", 400, "HTTP/0.9 is not supported"),
                arguments("HTTP/1.2", "GET /ok HTTP/1.2\r\nHost: test\r\n\r\n", 505, "unsupported HTTP version"),
                arguments("HTTP/2.0 request line", "GET /ok HTTP/2.0\r\nHost: test\r\n\r\n", 505, "HTTP/2.0"),
                arguments("lower-case version", "GET /ok http/1.1\r\nHost: test\r\n\r\n", 400, "invalid HTTP version"),
                arguments("invalid method", "G(T /ok HTTP/1.1\r\nHost: test\r\n\r\n", 400, "method"),
                arguments(
                        "too many empty lines first",
                        "\r\n\r\n\r\n\r\n\r\nGET /ok HTTP/1.1\r\nHost: test\r\n\r\n",
                        400,
                        "empty lines before the request line"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void requestLine(String name, String request, int status, String reason) throws IOException {
        startEcho();
        assertRejected(request, status, reason);
    }

    // --- Host -------------------------------------------------------------------------------------------------------

    static Stream<Arguments> host() {
        return Stream.of(
                arguments("missing Host", "GET /ok HTTP/1.1\r\n\r\n", "missing Host field"),
                arguments(
                        "two Host fields",
                        "GET /ok HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
                        "more than one Host field"),
                arguments("invalid Host", "GET /ok HTTP/1.1\r\nHost: a b\r\n\r\n", "host"),
                arguments(
                        "missing Host with an absolute-form target",
                        "GET http://test/ok HTTP/1.1\r\n\r\n",
                        "missing Host field"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void host(String name, String request, String reason) throws IOException {
        startEcho();
        assertRejected(request, 400, reason);
    }

    // --- targets and paths that cannot be normalised safely ---------------------------------------------------------

    static Stream<Arguments> targets() {
        return Stream.of(
                arguments("/..", "path climbs above the root"),
                arguments("/a/../../b", "path climbs above the root"),
                arguments("/%2e%2e/etc/passwd", "encoded dot segment"),
                arguments("/a/%2E/b", "encoded dot segment"),
                arguments("/a/.%2e/b", "encoded dot segment"),
                arguments("/a/..;/b", "dot segment with parameter"),
                arguments("/a%2fb", "encoded slash"),
                arguments("/a%2Fb/../c", "encoded slash"),
                arguments("/a%00b", "encoded NUL"),
                arguments("/a%01b", "encoded control character"),
                arguments("/a%5cb", "encoded backslash"),
                arguments("/a\\b", "backslash"),
                arguments("/%zz", "invalid percent-encoding"),
                arguments("/a%2", "invalid percent-encoding"),
                arguments("/%C3%28", "invalid UTF-8"),
                arguments("/a#fragment", "fragment"),
                arguments("*", "asterisk-form target * is only for OPTIONS"),
                arguments("http:///ok", "host"),
                arguments("http://test/../ok", "path climbs above the root"),
                arguments("http://test/%2e%2e/ok", "encoded dot segment"),
                arguments("ok", "neither origin-form"));
    }

    @ParameterizedTest(name = "GET {0}")
    @MethodSource
    void targets(String target, String reason) throws IOException {
        startEcho();
        assertRejected("GET " + target + " HTTP/1.1\r\nHost: test\r\n\r\n", 400, reason);
    }

    // --- malformed chunked content, found while the handler reads it ------------------------------------------------

    static Stream<Arguments> chunks() {
        return Stream.of(
                arguments("invalid chunk size", chunked("zz\r\nhello\r\n0\r\n\r\n"), "invalid chunk size"),
                arguments("negative chunk size", chunked("-5\r\nhello\r\n0\r\n\r\n"), "invalid chunk size"),
                arguments("hex prefix", chunked("0x5\r\nhello\r\n0\r\n\r\n"), "chunk size line"),
                arguments("chunk size overflow", chunked("10000000000000000\r\nx\r\n0\r\n\r\n"), "too many digits"),
                arguments("space after the size", chunked("5 \r\nhello\r\n0\r\n\r\n"), "whitespace after chunk size"),
                arguments("empty chunk size", chunked("\r\nhello\r\n0\r\n\r\n"), "empty chunk size"),
                arguments("data longer than the size", chunked("5\r\nhello!\r\n0\r\n\r\n"), "missing CRLF"),
                arguments("chunk line ended by LF", chunked("5\nhello\r\n0\r\n\r\n"), "line ended by LF"),
                arguments("bare CR in an extension", chunked("5;a=\"\r\"\r\nhello\r\n0\r\n\r\n"), "CR"),
                arguments(
                        "framing field in the trailers",
                        chunked("5\r\nhello\r\n0\r\nContent-Length: 5\r\n\r\n"),
                        "not allowed in a trailer section"),
                arguments(
                        "obs-fold in the trailers",
                        chunked("5\r\nhello\r\n0\r\nX-T: a\r\n b\r\n\r\n"),
                        "obsolete line folding"));
    }

    @ParameterizedTest(name = "blocking: {0}")
    @MethodSource("chunks")
    void chunksReadByABlockingHandler(String name, String request, String reason) throws IOException {
        startEcho();
        assertRejected(request, 400, reason);
    }

    @ParameterizedTest(name = "async: {0}")
    @MethodSource("chunks")
    void chunksReadByAnAsyncHandler(String name, String request, String reason) throws IOException {
        start(builder -> builder.handler(Echo.async()));
        assertRejected(request, 400, reason);
    }

    // --- limits -----------------------------------------------------------------------------------------------------

    @Test
    void aRequestLineLongerThanTheLimitIs414() throws IOException {
        startEcho();
        assertRejected(
                "GET /" + "a".repeat(8200) + " HTTP/1.1\r\nHost: test\r\n\r\n",
                414,
                "request line longer than 8192 bytes");
    }

    @Test
    void aHeaderSectionLargerThanTheLimitIs431() throws IOException {
        startEcho();
        assertRejected(
                "GET /ok HTTP/1.1\r\nHost: test\r\nX-Big: " + "b".repeat(8200) + "\r\n\r\n",
                431,
                "header section larger than 8192 bytes");
    }

    @Test
    void moreFieldsThanTheLimitIs431() throws IOException {
        startEcho();
        assertRejected(
                "GET /ok HTTP/1.1\r\nHost: test\r\n" + "X-F: 1\r\n".repeat(100) + "\r\n",
                431,
                "more than 100 header fields");
    }

    @Test
    void trailersLargerThanTheLimitAre431() throws IOException {
        startEcho();
        assertRejected(
                chunked("5\r\nhello\r\n0\r\nX-T: " + "t".repeat(8200) + "\r\n\r\n"),
                431,
                "trailer section larger than 8192 bytes");
    }

    @Test
    void aChunkExtensionLongerThanTheLimitIs400() throws IOException {
        startEcho();
        assertRejected(
                chunked("5;ext=" + "e".repeat(300) + "\r\nhello\r\n0\r\n\r\n"), 400, "chunk size line longer than");
    }

    @Test
    void limitsAreConfigurable() throws IOException {
        HttpParserConfig parser = HttpParserConfig.builder()
                .maxRequestLineLength(64)
                .maxHeaderSize(128)
                .maxFieldCount(4)
                .maxContentLength(10)
                .build();
        start(builder -> builder.handler(Echo.blocking()).httpConfig(HttpConfig.DEFAULT.withParser(parser)));

        assertRejected("GET /" + "a".repeat(60) + " HTTP/1.1\r\nHost: test\r\n\r\n", 414, "longer than 64 bytes");
        assertRejected(
                "GET /ok HTTP/1.1\r\nHost: test\r\nX-Big: " + "b".repeat(120) + "\r\n\r\n",
                431,
                "larger than 128 bytes");
        assertRejected("GET /ok HTTP/1.1\r\nHost: test\r\n" + "X-F: 1\r\n".repeat(4) + "\r\n", 431, "more than 4");
        assertRejected(post("Content-Length: 11\r\n", "01234567890"), 413, "exceeds the limit of 10");
        assertRejected(chunked("6\r\n012345\r\n6\r\n678901\r\n0\r\n\r\n"), 413, "exceeds the limit of 10");
        // Just below every limit: served.
        RawResponse fine =
                connect().send(post("Content-Length: 10\r\n", "0123456789")).readResponse();
        assertEquals(200, fine.status(), fine::toString);
    }

    // --- how rejections meet the rest of the connection
    // ---------------------------------------------------------------

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aRejectionAfterPipelinedGoodRequestsComesAfterTheirResponses(Transport transport) throws IOException {
        start(transport, builder -> builder.handler(Echo.blocking()));
        RawClient client = connect();

        client.send(OK + OK + "GET /a%2fb HTTP/1.1\r\nHost: test\r\n\r\n" + OK);

        assertEquals(200, client.readResponse().status());
        assertEquals(200, client.readResponse().status());
        RawResponse rejected = client.readResponse();
        assertEquals(400, rejected.status(), rejected::toString);
        assertTrue(rejected.connectionClose());
        // The request after the bad one is never served: its framing cannot be trusted.
        client.awaitClosed();
        assertEquals(3, server.statistics().http1Requests());
    }

    @Test
    void aRejectionAfterAHeadRequestStillHasItsBody() throws IOException {
        startEcho();
        RawClient client = connect();

        RawResponse head =
                client.send("HEAD /ok HTTP/1.1\r\nHost: test\r\n\r\n").readResponse(true);
        // The request line itself is bad: nothing of this request is known, not even its method.
        RawResponse rejected =
                client.send("GET /ok HTTP/1.2\r\nHost: test\r\n\r\n").readResponse();

        assertEquals(200, head.status());
        assertEquals(505, rejected.status(), rejected::toString);
        assertTrue(rejected.text().contains("unsupported HTTP version"), rejected::toString);
        client.awaitClosed();
    }

    @Test
    void aRejectedHeadRequestGetsNoBody() throws IOException {
        startEcho();
        RawClient client = connect();

        RawResponse rejected =
                client.send("HEAD /a%2fb HTTP/1.1\r\nHost: test\r\n\r\n").readResponse(true);

        assertEquals(400, rejected.status(), rejected::toString);
        assertTrue(rejected.connectionClose(), rejected::toString);
        // No body after the head of a response to HEAD (RFC 9110 §9.3.2), not even before closing.
        client.awaitClosed();
    }

    @Test
    void aRejectedRequestLineAfterAnHttp10KeepAliveRequestIsAnsweredAndCloses() throws IOException {
        startEcho();
        RawClient client = connect();

        client.send("GET /ok HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").readResponse();
        RawResponse rejected =
                client.send("GET /ok HTTP/1.1 \r\nHost: test\r\n\r\n").readResponse();

        assertEquals(400, rejected.status(), rejected::toString);
        assertTrue(rejected.text().contains("invalid HTTP version"), rejected::toString);
        assertTrue(rejected.connectionClose(), rejected::toString);
        client.awaitClosed();
    }

    @ParameterizedTest
    @ValueSource(ints = {64 * 1024, 1024 * 1024})
    void aRejectedRequestWhoseBodyKeepsComingIsStillAnswered(int bodySize) throws IOException {
        startEcho();
        RawClient client = connect();
        client.send(post("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", ""));
        byte[] body = new byte[bodySize];
        java.util.Arrays.fill(body, (byte) 'x');
        try {
            client.send(body);
        } catch (IOException x) {
            // The server may stop reading and close while the body is on its way: what matters is the answer.
        }

        RawResponse response = client.readResponse();

        assertEquals(400, response.status(), response::toString);
        assertTrue(response.connectionClose());
        assertServedNormally(OK);
    }

    @Test
    void theHttp2PrefaceIsRejectedWhenH2cIsOff() throws IOException {
        start(builder -> builder.handler(Echo.blocking()).h2c(false));
        assertRejected("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505, "HTTP/2 is not enabled");
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void everyTransportRejectsSmuggling(Transport transport) throws IOException {
        start(transport, builder -> builder.handler(Echo.blocking()));
        assertRejected(
                post("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\n"),
                400,
                "both Content-Length and Transfer-Encoding");
        assertRejected(chunked("zz\r\n"), 400, "invalid chunk size");
    }
}
