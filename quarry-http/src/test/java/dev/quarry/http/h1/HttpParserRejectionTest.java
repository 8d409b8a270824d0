package dev.quarry.http.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One case per smuggling or garbage rule: the status, a reason that names the problem, and the same verdict whatever
 * the split point. Bodies follow the framing under test so that a lenient parser would accept the message.
 */
class HttpParserRejectionTest {

    record Case(String name, String message, int status, String reason) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static final String H = "Host: h\r\n";

    private static Case c(String name, String message, int status, String reason) {
        return new Case(name, message, status, reason);
    }

    private static String chunked(String body) {
        return "POST / HTTP/1.1\r\n" + H + "Transfer-Encoding: chunked\r\n\r\n" + body;
    }

    private static String withFields(String fields) {
        return "POST / HTTP/1.1\r\n" + fields + "\r\n";
    }

    static Stream<Case> cases() {
        return Stream.of(
                // Request line (RFC 9112 §3)
                c(
                        "two spaces after method",
                        "GET  / HTTP/1.1\r\n" + H + "\r\n",
                        400,
                        "more than one SP after the method"),
                c(
                        "two spaces after target",
                        "GET /  HTTP/1.1\r\n" + H + "\r\n",
                        400,
                        "more than one SP after the request target"),
                c("trailing space", "GET / HTTP/1.1 \r\n" + H + "\r\n", 400, "invalid HTTP version"),
                c("leading space", " GET / HTTP/1.1\r\n" + H + "\r\n", 400, "invalid method, SP"),
                c("tab separator", "GET\t/ HTTP/1.1\r\n" + H + "\r\n", 400, "invalid character in method, HTAB"),
                c("non-token method", "G@T / HTTP/1.1\r\n" + H + "\r\n", 400, "invalid character in method, '@'"),
                c(
                        "control in target",
                        "GET /a\u0001b HTTP/1.1\r\n" + H + "\r\n",
                        400,
                        "invalid character 0x01 in request target"),
                c(
                        "raw non-ASCII in target",
                        "GET /\u00e9 HTTP/1.1\r\n" + H + "\r\n",
                        400,
                        "invalid character 0xE9 in request target"),
                c("NUL in target", "GET /a\u0000 HTTP/1.1\r\n" + H + "\r\n", 400, "invalid character NUL"),
                c("bare CR in request line", "GET /\r HTTP/1.1\r\n" + H + "\r\n", 400, "bare CR in request line"),
                c("bare CR before CRLF", "GET / HTTP/1.1\r\r\n" + H + "\r\n", 400, "bare CR in request line"),
                c("HTTP/0.9", "GET /\r\n\r\n", 400, "missing HTTP version"),
                c("no target", "GET\r\n\r\n", 400, "request line without target"),
                c("lower-case version", "GET / http/1.1\r\n" + H + "\r\n", 400, "invalid HTTP version"),
                c("two-digit minor", "GET / HTTP/1.10\r\n" + H + "\r\n", 400, "invalid HTTP version"),
                c("HTTP/1.2", "GET / HTTP/1.2\r\n" + H + "\r\n", 505, "unsupported HTTP version: \"HTTP/1.2\""),
                c("HTTP/3.0", "GET / HTTP/3.0\r\n" + H + "\r\n", 505, "unsupported HTTP version"),
                c("HTTP/2.0 without preface", "GET / HTTP/2.0\r\n" + H + "\r\n", 505, "not the connection preface"),
                c("asterisk for GET", "GET * HTTP/1.1\r\n" + H + "\r\n", 400, "only for OPTIONS"),
                c("asterisk prefix", "OPTIONS *x HTTP/1.1\r\n" + H + "\r\n", 400, "invalid request target"),
                c(
                        "CONNECT origin-form",
                        "CONNECT /a HTTP/1.1\r\n" + H + "\r\n",
                        400,
                        "CONNECT needs an authority-form"),
                c(
                        "authority-form for GET",
                        "GET h:80 HTTP/1.1\r\n" + H + "\r\n",
                        400,
                        "neither origin-form, absolute-form nor *"),
                c("LF-only request line", "GET / HTTP/1.1\n" + H + "\r\n", 400, "line ended by LF without CR"),
                c("LF-only leading line", "\nGET / HTTP/1.1\r\n" + H + "\r\n", 400, "line ended by LF without CR"),
                c("bad preface", "PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n", 400, "invalid HTTP/2 connection preface"),
                c(
                        "too many leading empty lines",
                        "\r\n".repeat(5) + "GET / HTTP/1.1\r\n" + H + "\r\n",
                        400,
                        "more than 4 empty lines"),
                // Framing: Content-Length and Transfer-Encoding (RFC 9112 §6, RFC 9110 §8.6)
                c(
                        "CL then TE",
                        withFields(H + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n") + "0\r\n\r\n",
                        400,
                        "both Content-Length and Transfer-Encoding"),
                c(
                        "TE then CL",
                        withFields(H + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n") + "0\r\n\r\n",
                        400,
                        "both Content-Length and Transfer-Encoding"),
                c("CL with plus sign", withFields(H + "Content-Length: +5\r\n") + "hello", 400, "'+' is not a digit"),
                c("CL negative", withFields(H + "Content-Length: -5\r\n"), 400, "'-' is not a digit"),
                c(
                        "CL with inner space",
                        withFields(H + "Content-Length: 5 5\r\n"),
                        400,
                        "invalid Content-Length, SP is not a digit: \"5 5\""),
                c("CL hex", withFields(H + "Content-Length: 0x5\r\n"), 400, "'x' is not a digit"),
                c("CL decimal point", withFields(H + "Content-Length: 5.0\r\n"), 400, "'.' is not a digit"),
                c("CL empty", withFields(H + "Content-Length:\r\n"), 400, "empty Content-Length"),
                c(
                        "CL overflow",
                        withFields(H + "Content-Length: 99999999999999999999\r\n"),
                        400,
                        "Content-Length too large"),
                c(
                        "CL conflicting lines",
                        withFields(H + "Content-Length: 5\r\nContent-Length: 6\r\n") + "hello!",
                        400,
                        "conflicting Content-Length values: 5 and \"6\""),
                c(
                        "CL identical lines",
                        withFields(H + "Content-Length: 5\r\nContent-Length: 5\r\n") + "hello",
                        400,
                        "duplicate Content-Length (DUPLICATE_IDENTICAL_CONTENT_LENGTH"),
                c(
                        "CL identical list",
                        withFields(H + "Content-Length: 5, 5\r\n") + "hello",
                        400,
                        "duplicate Content-Length"),
                c("CL conflicting list", withFields(H + "Content-Length: 5, 6\r\n"), 400, "conflicting Content-Length"),
                c(
                        "TE unknown coding first",
                        withFields(H + "Transfer-Encoding: gzip, chunked\r\n") + "0\r\n\r\n",
                        501,
                        "unsupported transfer coding: \"gzip\""),
                c(
                        "TE unknown coding only",
                        withFields(H + "Transfer-Encoding: gzip\r\n"),
                        400,
                        "chunked is not the final transfer coding"),
                c(
                        "TE chunked not last",
                        withFields(H + "Transfer-Encoding: chunked, gzip\r\n"),
                        400,
                        "chunked is not the final transfer coding"),
                c(
                        "TE chunked not last across lines",
                        withFields(H + "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n"),
                        400,
                        "chunked is not the final transfer coding"),
                c(
                        "TE chunked twice",
                        withFields(H + "Transfer-Encoding: chunked, chunked\r\n") + "0\r\n\r\n",
                        400,
                        "chunked applied more than once"),
                c(
                        "TE chunked twice across lines",
                        withFields(H + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n"),
                        400,
                        "chunked applied more than once"),
                c(
                        "TE xchunked",
                        withFields(H + "Transfer-Encoding: xchunked\r\n"),
                        400,
                        "chunked is not the final transfer coding: \"xchunked\""),
                c(
                        "TE chunked with parameter",
                        withFields(H + "Transfer-Encoding: chunked;q=1\r\n"),
                        400,
                        "chunked takes no parameters"),
                c("TE empty", withFields(H + "Transfer-Encoding:\r\n"), 400, "empty Transfer-Encoding"),
                c(
                        "TE quoted",
                        withFields(H + "Transfer-Encoding: \"chunked\"\r\n"),
                        400,
                        "invalid transfer coding in Transfer-Encoding"),
                c(
                        "TE in HTTP/1.0",
                        "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                        400,
                        "Transfer-Encoding in an HTTP/1.0 request"),
                // Field lines (RFC 9112 §5, RFC 9110 §5)
                c(
                        "space before colon TE",
                        withFields(H + "Transfer-Encoding : chunked\r\n") + "0\r\n\r\n",
                        400,
                        "whitespace between field name and colon"),
                c(
                        "space before colon CL",
                        withFields(H + "Content-Length : 5\r\n") + "hello",
                        400,
                        "whitespace between field name and colon"),
                c("tab before colon", withFields(H + "X-A\t: b\r\n"), 400, "whitespace between field name and colon"),
                c("space inside name", withFields(H + "X A: b\r\n"), 400, "whitespace in field name"),
                c(
                        "whitespace before first field",
                        "GET / HTTP/1.1\r\n Host: h\r\n\r\n",
                        400,
                        "whitespace before the first field line"),
                c("obs-fold", withFields(H + "X-A: b\r\n c\r\n"), 400, "obsolete line folding (RFC 9112 §5.2) in X-A"),
                c(
                        "obs-fold TE",
                        withFields(H + "Transfer-Encoding:\r\n chunked\r\n") + "0\r\n\r\n",
                        400,
                        "obsolete line folding"),
                c("empty field name", withFields(H + ": value\r\n"), 400, "empty field name"),
                c("no colon", withFields(H + "NoColon\r\n"), 400, "field line without colon: \"NoColon\""),
                c("NUL in name", withFields(H + "X-A\u0000: b\r\n"), 400, "invalid character NUL in field name"),
                c("non-token in name", withFields(H + "X(A): b\r\n"), 400, "invalid character '(' in field name"),
                c("NUL in value", withFields(H + "X-A: b\u0000c\r\n"), 400, "invalid character NUL in value of X-A"),
                c("bare CR in value", withFields(H + "X-A: b\rc\r\n"), 400, "bare CR in value of X-A"),
                c("bare CR line", withFields(H + "X-A: b\r\rX-B: c\r\n"), 400, "bare CR in value of X-A"),
                c("control in value", withFields(H + "X-A: b\u0001\r\n"), 400, "invalid character 0x01"),
                c("DEL in value", withFields(H + "X-A: b\u007f\r\n"), 400, "invalid character 0x7F"),
                c("LF-only field line", withFields(H + "X-A: b\n"), 400, "line ended by LF without CR"),
                c("LF-only end of headers", "GET / HTTP/1.1\r\n" + H + "\n", 400, "line ended by LF without CR"),
                // Host (RFC 9112 §3.2)
                c("missing Host", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", 400, "missing Host field"),
                c("two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "more than one Host field: \"b\""),
                c(
                        "two identical Hosts",
                        "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n",
                        400,
                        "more than one Host field"),
                c("Host with space", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400, "invalid character in host: \"a b\""),
                c("Host with slash", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", 400, "invalid character in host"),
                c("Host with userinfo", "GET / HTTP/1.1\r\nHost: u@a\r\n\r\n", 400, "user information"),
                c("Host port range", "GET / HTTP/1.1\r\nHost: a:99999\r\n\r\n", 400, "port out of range"),
                c("Host port letters", "GET / HTTP/1.1\r\nHost: a:8o\r\n\r\n", 400, "invalid port: \"a:8o\""),
                c("Host bad IPv6", "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", 400, "unterminated IP literal"),
                // Chunked framing (RFC 9112 §7.1)
                c("chunk size trailing space", chunked("5 \r\nhello\r\n0\r\n\r\n"), 400, "whitespace after chunk size"),
                c("chunk size leading space", chunked(" 5\r\nhello\r\n0\r\n\r\n"), 400, "invalid chunk size"),
                c(
                        "chunk size 0x prefix",
                        chunked("0x5\r\nhello\r\n0\r\n\r\n"),
                        400,
                        "invalid character 'x' in chunk size line"),
                c("chunk size empty", chunked("\r\nhello\r\n0\r\n\r\n"), 400, "empty chunk size"),
                c("chunk size negative", chunked("-1\r\nhello\r\n0\r\n\r\n"), 400, "invalid chunk size"),
                c(
                        "chunk size too many digits",
                        chunked("00000000000000005\r\nhello\r\n0\r\n\r\n"),
                        400,
                        "chunk size has too many digits"),
                c(
                        "chunk size overflow",
                        chunked("ffffffffffffffff\r\nhello\r\n0\r\n\r\n"),
                        400,
                        "chunk size overflows"),
                c(
                        "chunk extension without name",
                        chunked("5;\r\nhello\r\n0\r\n\r\n"),
                        400,
                        "invalid chunk extension name"),
                c(
                        "chunk extension without value",
                        chunked("5;a=\r\nhello\r\n0\r\n\r\n"),
                        400,
                        "invalid chunk extension value"),
                c(
                        "chunk extension unterminated quote",
                        chunked("5;a=\"x\r\nhello\r\n0\r\n\r\n"),
                        400,
                        "unterminated quoted string"),
                c(
                        "chunk extension junk",
                        chunked("5;a=b c\r\nhello\r\n0\r\n\r\n"),
                        400,
                        "invalid character 'c' in chunk size line"),
                c(
                        "chunk extension control",
                        chunked("5;a=\"\u0001\"\r\nhello\r\n0\r\n\r\n"),
                        400,
                        "invalid character 0x01 in chunk extension"),
                c(
                        "chunk extension too long",
                        chunked("5;a=" + "b".repeat(300) + "\r\nhello\r\n0\r\n\r\n"),
                        400,
                        "chunk size line longer than"),
                c("chunk size bare CR", chunked("5\r\r\nhello\r\n0\r\n\r\n"), 400, "CR"),
                c("chunk size LF only", chunked("5\nhello\r\n0\r\n\r\n"), 400, "line ended by LF without CR"),
                c(
                        "chunk data too long",
                        chunked("5\r\nhelloX\r\n0\r\n\r\n"),
                        400,
                        "missing CRLF after chunk data, found 'X'"),
                c("chunk data LF only", chunked("5\r\nhello\n0\r\n\r\n"), 400, "missing CRLF after chunk data"),
                c("chunk data too short", chunked("5\r\nhell\r\n0\r\n\r\n"), 400, "missing CRLF after chunk data"),
                c("last chunk LF only", chunked("0\n\r\n"), 400, "line ended by LF without CR"),
                c("trailer LF only", chunked("0\r\nX: y\n\r\n"), 400, "line ended by LF without CR"),
                c(
                        "trailer Content-Length",
                        chunked("0\r\nContent-Length: 5\r\n\r\n"),
                        400,
                        "field not allowed in a trailer section"),
                c(
                        "trailer Transfer-Encoding",
                        chunked("0\r\nTransfer-Encoding: chunked\r\n\r\n"),
                        400,
                        "field not allowed in a trailer section"),
                c("trailer Host", chunked("0\r\nHost: evil\r\n\r\n"), 400, "field not allowed in a trailer section"),
                c("trailer obs-fold", chunked("0\r\nX-A: b\r\n c\r\n\r\n"), 400, "obsolete line folding"),
                c("trailer NUL", chunked("0\r\nX-A: \u0000\r\n\r\n"), 400, "invalid character NUL"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void rejectsWithStatusAndReason(Case rule) {
        Recorder r = Feeder.parse(rule.message);
        assertNotNull(r.failure, () -> rule + " was accepted: " + r.events);
        assertEquals(rule.status, r.failure.status(), () -> rule + ": " + r.failure.getMessage());
        assertTrue(
                r.failure.reason().contains(rule.reason),
                () -> rule + ": reason \"" + r.failure.reason() + "\" does not name \"" + rule.reason + "\"");
        assertTrue(r.events.stream().noneMatch(e -> e.equals("messageComplete")), () -> rule + ": " + r.events);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void rejectsIdenticallyAtEverySplitPoint(Case rule) {
        Recorder whole = Feeder.parse(rule.message);
        byte[] bytes = Feeder.bytes(rule.message);
        for (int split = 1; split < bytes.length; split++) {
            Recorder r = Feeder.parse(bytes, HttpParserConfig.DEFAULT, List.of(split), split % 2 == 0, false);
            assertEquals(whole.events, r.events, "split at " + split);
            assertEquals(whole.failure.reason(), r.failure.reason(), "split at " + split);
        }
    }
}
