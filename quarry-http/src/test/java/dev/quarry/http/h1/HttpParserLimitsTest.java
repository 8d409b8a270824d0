package dev.quarry.http.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every limit of HttpParserConfig: the boundary is accepted, one byte or field more gets the right status. */
class HttpParserLimitsTest {

    private static Recorder parse(String message, HttpParserConfig config) {
        return Feeder.parse(message, config);
    }

    @Test
    void defaultsAreDocumented() {
        HttpParserConfig config = HttpParserConfig.DEFAULT;
        assertEquals(8192, config.maxRequestLineLength());
        assertEquals(8192, config.maxHeaderSize());
        assertEquals(100, config.maxFieldCount());
        assertEquals(256, config.maxChunkExtensionLength());
        assertEquals(8192, config.maxTrailerSize());
        assertEquals(4, config.maxLeadingEmptyLines());
        assertEquals(config, config.toBuilder().build());
    }

    @Test
    void invalidLimitsAreRejected() {
        assertThrows(
                IllegalArgumentException.class,
                () -> HttpParserConfig.builder().maxHeaderSize(0).build());
        assertThrows(
                IllegalArgumentException.class,
                () -> HttpParserConfig.builder().maxContentLength(-1).build());
    }

    @Test
    void requestLineAtTheLimitIsAcceptedAndOneByteMoreIs414() {
        HttpParserConfig config =
                HttpParserConfig.builder().maxRequestLineLength(64).build();
        String prefix = "GET /";
        String suffix = " HTTP/1.1\r\n";
        String atLimit = prefix + "a".repeat(64 - prefix.length() - suffix.length()) + suffix;
        assertEquals(64, atLimit.length());
        assertNull(parse(atLimit + "Host: h\r\n\r\n", config).failure);
        Recorder over =
                parse(prefix + "a".repeat(65 - prefix.length() - suffix.length()) + suffix + "Host: h\r\n\r\n", config);
        assertEquals(414, over.failure.status());
        assertTrue(over.failure.reason().contains("request line longer than 64 bytes"));
    }

    @Test
    void unterminatedRequestLineIsRejectedAsSoonAsItExceedsTheLimit() {
        HttpParserConfig config =
                HttpParserConfig.builder().maxRequestLineLength(100).build();
        Recorder r = new Recorder();
        HttpParser parser = new HttpParser(r, config);
        int fed = 0;
        while (r.failure == null && fed < 10_000) {
            parser.parse(ByteBuffer.wrap(Feeder.bytes(fed == 0 ? "GET /" : "aaaaaaa")));
            fed += fed == 0 ? 5 : 7;
        }
        assertNotNull(r.failure);
        assertEquals(414, r.failure.status());
        assertTrue(fed <= 107, "rejected after " + fed + " bytes, without buffering more");
    }

    @Test
    void headerSectionAtTheLimitIsAcceptedAndOneByteMoreIs431() {
        HttpParserConfig config = HttpParserConfig.builder().maxHeaderSize(64).build();
        String fields = "Host: h\r\nX-Pad: ";
        int padding = 64 - fields.length() - 2 - 2; // CRLF of X-Pad, then the empty line
        String atLimit = fields + "p".repeat(padding) + "\r\n\r\n";
        assertEquals(64, atLimit.length());
        assertNull(parse("GET / HTTP/1.1\r\n" + atLimit, config).failure);
        Recorder over = parse("GET / HTTP/1.1\r\n" + fields + "p".repeat(padding + 1) + "\r\n\r\n", config);
        assertEquals(431, over.failure.status());
        assertTrue(over.failure.reason().contains("header section larger than 64 bytes"));
    }

    @Test
    void unterminatedHeaderLineIsRejectedAtTheLimitWhateverTheSplit() {
        HttpParserConfig config = HttpParserConfig.builder().maxHeaderSize(1024).build();
        byte[] message = Feeder.bytes("GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + "x".repeat(5000));
        for (int split = 1; split < message.length; split += 97) {
            Recorder r = Feeder.parse(message, config, List.of(split), split % 2 == 0, false);
            assertEquals(431, r.failure.status(), "split at " + split);
        }
    }

    @Test
    void fieldCountAtTheLimitIsAcceptedAndOneMoreIs431() {
        HttpParserConfig config = HttpParserConfig.builder().maxFieldCount(10).build();
        StringBuilder fields = new StringBuilder("Host: h\r\n");
        for (int i = 1; i < 10; i++) {
            fields.append("X-").append(i).append(": v\r\n");
        }
        assertNull(parse("GET / HTTP/1.1\r\n" + fields + "\r\n", config).failure);
        Recorder over = parse("GET / HTTP/1.1\r\n" + fields + "X-10: v\r\n\r\n", config);
        assertEquals(431, over.failure.status());
        assertTrue(over.failure.reason().contains("more than 10 header fields"));
    }

    @Test
    void everyFieldBeforeTheOneOverTheCountLimitIsReportedBeforeTheError() {
        HttpParserConfig config = HttpParserConfig.builder().maxFieldCount(2).build();
        Recorder headers = parse("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\n\r\n", config);
        assertEquals(2, headers.fields.size(), headers.events::toString);
        assertEquals("badMessage 431", headers.events.getLast());
        String head = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n";
        Recorder trailers = parse(head + "A: 1\r\nB: 2\r\nC: 3\r\n\r\n", config);
        List<String> events = trailers.events;
        assertTrue(events.get(events.size() - 2).startsWith("trailer B"), events::toString);
        assertEquals("badMessage 431", events.getLast());
    }

    @Test
    void chunkExtensionAtTheLimitIsAcceptedAndLongerIs400() {
        HttpParserConfig config =
                HttpParserConfig.builder().maxChunkExtensionLength(16).build();
        String head = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n";
        String extension = ";a=" + "b".repeat(13);
        assertEquals(16, extension.length());
        assertNull(parse(head + "1" + extension + "\r\nx\r\n0\r\n\r\n", config).failure);
        Recorder over = parse(head + "1" + extension + "b\r\nx\r\n0\r\n\r\n", config);
        assertEquals(400, over.failure.status());
        assertTrue(over.failure.reason().contains("chunk extension longer than 16 bytes"), over.failure::reason);
        Recorder unterminated = parse(head + "1" + extension + "b".repeat(100), config);
        assertEquals(400, unterminated.failure.status());
        assertTrue(unterminated.failure.reason().contains("chunk size line longer than"));
    }

    @Test
    void trailerSectionLargerThanTheLimitIs431() {
        HttpParserConfig config = HttpParserConfig.builder().maxTrailerSize(32).build();
        String head = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n";
        String atLimit = "X-T: " + "t".repeat(32 - 5 - 4) + "\r\n\r\n";
        assertEquals(32, atLimit.length());
        assertNull(parse(head + atLimit, config).failure);
        Recorder over = parse(head + "X-T: " + "t".repeat(32 - 5 - 3) + "\r\n\r\n", config);
        assertEquals(431, over.failure.status());
        assertTrue(over.failure.reason().contains("trailer section larger than 32 bytes"));
    }

    @Test
    void trailerFieldCountIsLimited() {
        HttpParserConfig config = HttpParserConfig.builder().maxFieldCount(2).build();
        String head = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n";
        assertNull(parse(head + "A: 1\r\nB: 2\r\n\r\n", config).failure);
        Recorder over = parse(head + "A: 1\r\nB: 2\r\nC: 3\r\n\r\n", config);
        assertEquals(431, over.failure.status());
        assertTrue(over.failure.reason().contains("more than 2 trailer fields"));
    }

    @Test
    void declaredContentLargerThanTheLimitIs413() {
        HttpParserConfig config =
                HttpParserConfig.builder().maxContentLength(10).build();
        assertNull(parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789", config).failure);
        Recorder over = parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", config);
        assertEquals(413, over.failure.status());
        assertTrue(over.failure.reason().contains("Content-Length 11 exceeds the limit of 10"));
    }

    @Test
    void chunkedContentLargerThanTheLimitIs413() {
        HttpParserConfig config =
                HttpParserConfig.builder().maxContentLength(10).build();
        String head = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n";
        assertNull(parse(head + "5\r\n01234\r\n5\r\n56789\r\n0\r\n\r\n", config).failure);
        Recorder over = parse(head + "5\r\n01234\r\n6\r\n567890\r\n0\r\n\r\n", config);
        assertEquals(413, over.failure.status());
        assertTrue(over.failure.reason().contains("chunked content exceeds the limit of 10 bytes"));
        assertTrue(over.events.contains("content 01234"), "rejected before the oversized chunk is delivered");
        assertTrue(over.events.stream().noneMatch(e -> e.contains("567890")));
    }

    @Test
    void leadingEmptyLinesAreCapped() {
        HttpParserConfig config =
                HttpParserConfig.builder().maxLeadingEmptyLines(1).build();
        assertNull(parse("\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", config).failure);
        assertEquals(
                400,
                parse("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", config)
                        .failure
                        .status());
    }
}
