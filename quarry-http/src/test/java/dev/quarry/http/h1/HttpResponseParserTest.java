package dev.quarry.http.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.BadMessageException;
import dev.quarry.http.HttpField;
import dev.quarry.http.HttpVersion;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The response parser: status line, fields and the framing rules of RFC 9112 §6.3, every response fed whole and cut
 * at every split point (heap and direct buffers), with the same events each way.
 */
class HttpResponseParserTest {

    /** Records the events as text: one line per event, content concatenated. */
    static final class Events implements HttpResponseListener {
        final List<String> log = new ArrayList<>();
        final StringBuilder content = new StringBuilder();
        String failure;

        @Override
        public void startResponse(HttpVersion version, int status, String reason) {
            log.add("start " + version + " " + status + " " + reason);
        }

        @Override
        public void header(HttpField field) {
            log.add("header " + field.name() + ": " + field.value());
        }

        @Override
        public boolean headerComplete() {
            log.add("headerComplete");
            return false;
        }

        @Override
        public boolean content(ByteBuffer chunk) {
            byte[] bytes = new byte[chunk.remaining()];
            chunk.get(bytes);
            content.append(new String(bytes, StandardCharsets.ISO_8859_1));
            return false;
        }

        @Override
        public boolean contentComplete() {
            log.add("content " + content);
            content.setLength(0);
            return false;
        }

        @Override
        public void trailer(HttpField field) {
            log.add("trailer " + field.name() + ": " + field.value());
        }

        @Override
        public boolean messageComplete() {
            log.add("messageComplete");
            return true;
        }

        @Override
        public void badMessage(BadMessageException failure) {
            this.failure = failure.reason();
            log.add("bad");
        }

        @Override
        public void earlyEOF() {
            log.add("earlyEOF");
        }
    }

    /** Feeds the bytes cut at {@code split} (0 = whole), resets between responses, signals EOF if asked. */
    static Events feed(String message, int split, boolean direct, boolean head, boolean eof) {
        Events events = new Events();
        HttpResponseParser parser = new HttpResponseParser(events);
        parser.responseToHead(head);
        byte[] bytes = message.getBytes(StandardCharsets.ISO_8859_1);
        int[] cuts = split <= 0 || split >= bytes.length ? new int[] {bytes.length} : new int[] {split, bytes.length};
        int from = 0;
        for (int cut : cuts) {
            ByteBuffer piece = direct ? ByteBuffer.allocateDirect(cut - from) : ByteBuffer.allocate(cut - from);
            piece.put(bytes, from, cut - from).flip();
            drive(parser, piece, head);
            from = cut;
        }
        if (eof) {
            parser.atEOF();
            drive(parser, ByteBuffer.allocate(0), head);
        }
        return events;
    }

    private static void drive(HttpResponseParser parser, ByteBuffer buffer, boolean head) {
        for (int guard = 0; guard < 10_000; guard++) {
            boolean stopped = parser.parse(buffer);
            if (parser.isComplete()) {
                parser.reset();
                parser.responseToHead(head);
                continue;
            }
            if (!stopped || parser.isClosed()) {
                return;
            }
        }
        throw new AssertionError("parser loops: " + parser);
    }

    /** Parses whole, then at every split point, in heap and direct buffers; all must give the same events. */
    static List<String> parseEverywhere(String message, boolean head, boolean eof) {
        List<String> expected = feed(message, 0, false, head, eof).log;
        for (int split = 1; split < message.length(); split++) {
            for (boolean direct : new boolean[] {false, true}) {
                Events events = feed(message, split, direct, head, eof);
                assertEquals(expected, events.log, "split at " + split + (direct ? " (direct)" : " (heap)"));
            }
        }
        return expected;
    }

    static String failureOf(String message, boolean eof) {
        String expected = feed(message, 0, false, false, eof).failure;
        for (int split = 1; split < message.length(); split++) {
            Events events = feed(message, split, split % 2 == 0, false, eof);
            assertEquals(expected, events.failure, "split at " + split);
        }
        return expected;
    }

    @Test
    void contentLengthResponse() {
        List<String> log = parseEverywhere(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello", false, false);
        assertEquals(
                List.of(
                        "start HTTP/1.1 200 OK",
                        "header Content-Type: text/plain",
                        "header Content-Length: 5",
                        "headerComplete",
                        "content hello",
                        "messageComplete"),
                log);
    }

    @Test
    void chunkedResponseWithTrailers() {
        List<String> log = parseEverywhere(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nChecksum: abc\r\n\r\n",
                false,
                false);
        assertEquals(
                List.of(
                        "start HTTP/1.1 200 OK",
                        "header Transfer-Encoding: chunked",
                        "headerComplete",
                        "content hello world",
                        "trailer Checksum: abc",
                        "messageComplete"),
                log);
    }

    @Test
    void closeDelimitedContentEndsAtEof() {
        List<String> log = parseEverywhere("HTTP/1.1 200 OK\r\nServer: x\r\n\r\nall of it", false, true);
        assertEquals(
                List.of(
                        "start HTTP/1.1 200 OK",
                        "header Server: x",
                        "headerComplete",
                        "content all of it",
                        "messageComplete"),
                log);
    }

    @Test
    void closeDelimitedResponseIsNotPersistent() {
        Events events = new Events();
        HttpResponseParser parser = new HttpResponseParser(events);
        parser.parse(ByteBuffer.wrap("HTTP/1.1 200 OK\r\n\r\nabc".getBytes(StandardCharsets.US_ASCII)));
        assertFalse(parser.isPersistent());
        assertEquals(-1, parser.contentLength());
    }

    @Test
    void keepAliveAndClose() {
        Events events = new Events();
        HttpResponseParser parser = new HttpResponseParser(events);
        parser.parse(
                ByteBuffer.wrap("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
        assertTrue(parser.isPersistent());
        parser.reset();
        parser.parse(ByteBuffer.wrap("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII)));
        assertFalse(parser.isPersistent());
        parser = new HttpResponseParser(events);
        parser.parse(
                ByteBuffer.wrap("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
        assertFalse(parser.isPersistent());
    }

    @Test
    void responseToHeadHasNoContentWhateverItsLength() {
        List<String> log = parseEverywhere(
                "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n", true, false);
        assertEquals(
                List.of(
                        "start HTTP/1.1 200 OK",
                        "header Content-Length: 1000",
                        "headerComplete",
                        "content ",
                        "messageComplete",
                        "start HTTP/1.1 204 No Content",
                        "headerComplete",
                        "content ",
                        "messageComplete"),
                log);
    }

    @ParameterizedTest
    @ValueSource(ints = {100, 103, 204, 304})
    void informationalNoContentAndNotModifiedHaveNoContent(int status) {
        String fields = status == 304 ? "Content-Length: 10\r\n" : "";
        List<String> log = parseEverywhere(
                "HTTP/1.1 " + status + " X\r\n" + fields + "\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
                false,
                false);
        assertEquals("start HTTP/1.1 " + status + " X", log.get(0));
        assertEquals("content ", log.get(log.indexOf("headerComplete") + 1));
        assertEquals("content ok", log.get(log.size() - 2));
    }

    @Test
    void emptyReasonPhraseIsAllowed() {
        assertEquals(
                "start HTTP/1.1 404 ",
                parseEverywhere("HTTP/1.1 404 \r\nContent-Length: 0\r\n\r\n", false, false)
                        .get(0));
    }

    @Test
    void truncatedResponseIsAnEarlyEof() {
        assertEquals(
                List.of("start HTTP/1.1 200 OK", "header Content-Length: 10", "headerComplete", "earlyEOF"),
                parseEverywhere("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", false, true));
        assertEquals(List.of("earlyEOF"), parseEverywhere("HTTP/1.1 200", false, true));
        assertEquals(List.of(), parseEverywhere("", false, true));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "HTTP/1.1 200\r\n\r\n",
                "HTTP/1.1 20 OK\r\n\r\n",
                "HTTP/1.1 2000 OK\r\n\r\n",
                "HTTP/1.1 2x0 OK\r\n\r\n",
                "HTTP/1.1  200 OK\r\n\r\n",
                "http/1.1 200 OK\r\n\r\n",
                "HTTP/2.0 200 OK\r\n\r\n",
                "ICY 200 OK\r\n\r\n",
                "garbage that is long enough\r\n\r\n"
            })
    void badStatusLinesAreRejected(String message) {
        assertTrue(failureOf(message, false).startsWith("invalid status line"), message);
    }

    @Test
    void statusOutOfRangeAndBadVersionsAreNamed() {
        assertTrue(failureOf("HTTP/1.1 099 Low\r\n\r\n", false).contains("out of range"));
        assertTrue(failureOf("HTTP/1.1 600 High\r\n\r\n", false).contains("out of range"));
        assertTrue(failureOf("HTTP/1.2 200 OK\r\n\r\n", false).contains("unsupported version"));
        assertTrue(failureOf("HTTP/1.1 200 O\u0001K\r\n\r\n", false).contains("reason phrase"));
        assertTrue(failureOf("HTTP/1.1 200 OK\n\r\n", false).contains("LF without CR"));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "HTTP/1.1 200 OK\r\nNo-Colon\r\n\r\n",
                "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
                "HTTP/1.1 200 OK\r\nX: a\u0000b\r\n\r\n",
                "HTTP/1.1 200 OK\r\n Folded: x\r\n\r\n",
                "HTTP/1.1 200 OK\r\nX: a\r\n folded\r\n\r\n",
                "HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n"
            })
    void badFieldsAreRejected(String message) {
        assertTrue(failureOf(message, false) != null, message);
    }

    @Test
    void badContentLengthsAreRejected() {
        assertTrue(failureOf("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", false)
                .contains("not a digit"));
        assertTrue(failureOf("HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", false)
                .contains("not a digit"));
        assertTrue(failureOf("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabc", false)
                .contains("conflicting Content-Length"));
        assertTrue(failureOf("HTTP/1.1 200 OK\r\nContent-Length: 3, 4\r\n\r\nabc", false)
                .contains("conflicting Content-Length"));
        assertTrue(failureOf("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", false)
                .contains("duplicate Content-Length"));
        assertTrue(failureOf("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", false)
                .contains("too large"));
        assertTrue(
                failureOf("HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n", false).contains("empty Content-Length"));
    }

    @Test
    void conflictingFramingIsRejected() {
        assertTrue(failureOf(
                        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
                        false)
                .contains("both Content-Length and Transfer-Encoding"));
        assertTrue(failureOf("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", false)
                .contains("chunked is not the final"));
        assertTrue(failureOf("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", false)
                .contains("unsupported transfer coding"));
        assertTrue(failureOf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", false)
                .contains("more than once"));
        assertTrue(failureOf("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", false)
                .contains("HTTP/1.0"));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "zz\r\n",
                "-1\r\n",
                "\r\n",
                " 5\r\n",
                "5 ;\r\n",
                "11111111111111111\r\n",
                "5\nhello\r\n",
                "5\r\nhelloXX"
            })
    void badChunksAreRejected(String chunk) {
        String message = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk + "\r\n0\r\n\r\n";
        assertTrue(failureOf(message, false) != null, chunk);
    }

    @Test
    void forbiddenTrailerIsRejected() {
        assertTrue(
                failureOf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nContent-Length: 5\r\n\r\n", false)
                        .contains("not allowed in a trailer"));
    }

    @Test
    void headerSectionLimitIsEnforced() {
        String big = "X: " + "a".repeat(9000) + "\r\n";
        assertTrue(failureOf("HTTP/1.1 200 OK\r\n" + big + "\r\n", false).contains("header section larger"));
    }

    @Test
    void resetInTheMiddleIsRefused() {
        HttpResponseParser parser = new HttpResponseParser(new Events());
        parser.parse(
                ByteBuffer.wrap("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab".getBytes(StandardCharsets.US_ASCII)));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, parser::reset);
    }
}
