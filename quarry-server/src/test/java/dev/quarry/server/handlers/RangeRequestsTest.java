package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** RFC 9110 §14: single and multiple ranges, 416, ignored ranges and If-Range. */
class RangeRequestsTest extends StaticFilesTestSupport {
    // 100 bytes: "0123456789" ten times, so that any range is easy to check.
    private static final String DIGITS = "0123456789".repeat(10);

    private void serveDigits(String name, StaticFilesBuilder builder) throws IOException {
        write(name, DIGITS);
        start(builder);
    }

    private void serveDigits() throws IOException {
        serveDigits("digits.txt", StaticFiles.builder(root));
    }

    private static String slice(int first, int last) {
        return DIGITS.substring(first, last + 1);
    }

    private void assertPartial(Reply reply, int first, int last) {
        assertEquals(206, reply.status(), reply.toString());
        assertEquals("bytes " + first + "-" + last + "/100", reply.header("Content-Range"));
        assertEquals("text/plain; charset=utf-8", reply.header("Content-Type"));
        reply.assertFramed();
        assertEquals(slice(first, last), reply.text());
    }

    @Test
    void aClosedRangeIsPartialContent() throws Exception {
        serveDigits();
        assertPartial(get("/digits.txt", "Range: bytes=10-19"), 10, 19);
    }

    @Test
    void anOpenEndedRangeRunsToTheEnd() throws Exception {
        serveDigits();
        assertPartial(get("/digits.txt", "Range: bytes=95-"), 95, 99);
    }

    @Test
    void aSuffixRangeIsTheLastBytes() throws Exception {
        serveDigits();
        assertPartial(get("/digits.txt", "Range: bytes=-7"), 93, 99);
        assertPartial(get("/digits.txt", "Range: bytes=-500"), 0, 99);
    }

    @Test
    void aLastPositionPastTheEndIsClamped() throws Exception {
        serveDigits();
        assertPartial(get("/digits.txt", "Range: bytes=90-1000"), 90, 99);
    }

    @Test
    void theUnitIsCaseInsensitiveAndSpacesAreAllowed() throws Exception {
        serveDigits();
        assertPartial(get("/digits.txt", "Range: Bytes = 1-2 , "), 1, 2);
    }

    @Test
    void rangesOfAFileOpenedPerRequestAreSentZeroCopy() throws Exception {
        Assumptions.assumeFalse(overTls(), "over TLS files are read and encrypted, never sent zero-copy");
        byte[] large = new byte[400_000];
        new java.util.Random(3).nextBytes(large);
        write("large.bin", large);
        start(StaticFiles.builder(root).maxCachedFileSize(1024).maxOpenFiles(0));
        Reply reply = get("/large.bin", "Range: bytes=1000-300999");
        assertEquals(206, reply.status());
        assertArrayEquals(Arrays.copyOfRange(large, 1000, 301000), reply.body());
        assertEquals(1, server.statistics().fileTransfers());
        Reply small = get("/large.bin", "Range: bytes=1000-60999");
        assertArrayEquals(Arrays.copyOfRange(large, 1000, 61000), small.body());
        assertEquals(2, server.statistics().fileTransfers());
    }

    @Test
    void rangesOfAFileKeptOpenAreWrittenFromItsMapping() throws Exception {
        byte[] large = new byte[400_000];
        new java.util.Random(3).nextBytes(large);
        write("large.bin", large);
        start(StaticFiles.builder(root).maxCachedFileSize(1024));
        Reply reply = get("/large.bin", "Range: bytes=1000-300999");
        assertEquals(206, reply.status());
        assertArrayEquals(Arrays.copyOfRange(large, 1000, 301000), reply.body());
        Reply small = get("/large.bin", "Range: bytes=1000-60999");
        assertArrayEquals(Arrays.copyOfRange(large, 1000, 61000), small.body());
        assertEquals(0, server.statistics().fileTransfers(), "written from the mapping, with the head");
    }

    /** A part of a multipart/byteranges body. */
    private record Part(String contentType, String contentRange, String body) {}

    private static List<Part> parseMultipart(Reply reply) {
        String type = reply.header("Content-Type");
        assertTrue(type.startsWith("multipart/byteranges; boundary="), type);
        String boundary = type.substring(type.indexOf('=') + 1);
        assertTrue(boundary.matches("[0-9a-f]{32}"), "random boundary: " + boundary);
        String body = new String(reply.body(), StandardCharsets.ISO_8859_1);
        assertTrue(body.startsWith("--" + boundary + "\r\n"), body);
        assertTrue(body.endsWith("\r\n--" + boundary + "--\r\n"), body);
        String inner = body.substring(0, body.length() - ("\r\n--" + boundary + "--\r\n").length());
        List<Part> parts = new ArrayList<>();
        for (String raw : ("\r\n" + inner).split("\r\n--" + boundary + "\r\n")) {
            if (raw.isEmpty()) {
                continue;
            }
            int end = raw.indexOf("\r\n\r\n");
            String contentType = null;
            String contentRange = null;
            for (String line : raw.substring(0, end).split("\r\n")) {
                if (line.startsWith("Content-Type: ")) {
                    contentType = line.substring(14);
                } else if (line.startsWith("Content-Range: ")) {
                    contentRange = line.substring(15);
                }
            }
            parts.add(new Part(contentType, contentRange, raw.substring(end + 4)));
        }
        return parts;
    }

    @Test
    void severalRangesAreMultipartByteRangesInTheOrderAsked() throws Exception {
        serveDigits();
        Reply reply = get("/digits.txt", "Range: bytes=50-54, 0-2, -3");
        assertEquals(206, reply.status());
        reply.assertFramed();
        assertNull(reply.header("Content-Range"), "the parts have their own");
        List<Part> parts = parseMultipart(reply);
        assertEquals(
                List.of(
                        new Part("text/plain; charset=utf-8", "bytes 50-54/100", slice(50, 54)),
                        new Part("text/plain; charset=utf-8", "bytes 0-2/100", slice(0, 2)),
                        new Part("text/plain; charset=utf-8", "bytes 97-99/100", slice(97, 99))),
                parts);
    }

    @Test
    void eachRequestGetsItsOwnBoundary() throws Exception {
        serveDigits();
        String first = get("/digits.txt", "Range: bytes=0-0,2-2").header("Content-Type");
        String second = get("/digits.txt", "Range: bytes=0-0,2-2").header("Content-Type");
        assertTrue(!first.equals(second), first);
    }

    @Test
    void overlappingAndAdjacentRangesAreCoalesced() throws Exception {
        serveDigits();
        Reply merged = get("/digits.txt", "Range: bytes=0-9, 5-14, 15-19");
        assertPartial(merged, 0, 19);
        List<Part> parts = parseMultipart(get("/digits.txt", "Range: bytes=60-69, 0-4, 65-79, 3-5"));
        assertEquals(
                List.of("bytes 60-79/100", "bytes 0-5/100"),
                parts.stream().map(Part::contentRange).toList());
        assertEquals(slice(60, 79), parts.get(0).body());
    }

    @Test
    void multipartRangesOfALargerFileAreSentZeroCopy() throws Exception {
        Assumptions.assumeFalse(overTls(), "over TLS files are read and encrypted, never sent zero-copy");
        byte[] large = new byte[200_000];
        new java.util.Random(5).nextBytes(large);
        write("large.bin", large);
        start(StaticFiles.builder(root).maxCacheSize(0));
        Reply reply = get("/large.bin", "Range: bytes=0-99999, 150000-");
        assertEquals(206, reply.status());
        reply.assertFramed();
        List<Part> parts = parseMultipart(reply);
        assertEquals("application/octet-stream", parts.get(0).contentType());
        assertArrayEquals(
                Arrays.copyOfRange(large, 150_000, 200_000), parts.get(1).body().getBytes(StandardCharsets.ISO_8859_1));
        assertEquals(2, server.statistics().fileTransfers(), "one transfer per part");
    }

    @ParameterizedTest
    @ValueSource(strings = {"bytes=100-", "bytes=100-200", "bytes=-0", "bytes=500-600, 100-"})
    void noSatisfiableRangeIs416WithTheSize(String range) throws Exception {
        serveDigits();
        Reply reply = get("/digits.txt", "Range: " + range);
        assertEquals(416, reply.status());
        assertEquals("bytes */100", reply.header("Content-Range"));
        assertEquals("text/plain; charset=utf-8", reply.header("Content-Type"));
    }

    @Test
    void unsatisfiableRangesAreDroppedFromASatisfiableSet() throws Exception {
        serveDigits();
        assertPartial(get("/digits.txt", "Range: bytes=500-600, 3-4"), 3, 4);
    }

    @Test
    void anyRangeOfAnEmptyFileIs416() throws Exception {
        write("empty.txt", "");
        start();
        assertEquals(416, get("/empty.txt", "Range: bytes=0-").status());
        assertEquals("bytes */0", get("/empty.txt", "Range: bytes=-5").header("Content-Range"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"bytes=5-1", "bytes=abc", "items=0-5", "bytes=", "bytes 0-5", "bytes=0-5;x", "bytes=--5"})
    void anInvalidRangeIsIgnored(String range) throws Exception {
        serveDigits();
        Reply reply = get("/digits.txt", "Range: " + range);
        assertEquals(200, reply.status(), range);
        assertEquals(DIGITS, reply.text());
    }

    @Test
    void moreRangesThanTheLimitAreIgnoredWithTheWholeContent() throws Exception {
        serveDigits("digits.txt", StaticFiles.builder(root).maxRanges(3));
        assertEquals(206, get("/digits.txt", "Range: bytes=0-0,2-2,4-4").status());
        Reply reply = get("/digits.txt", "Range: bytes=0-0,2-2,4-4,6-6");
        assertEquals(200, reply.status());
        assertEquals(DIGITS, reply.text());
    }

    @Test
    void headIgnoresTheRange() throws Exception {
        serveDigits();
        Reply reply = head("/digits.txt", "Range: bytes=0-9");
        assertEquals(200, reply.status());
        assertEquals("100", reply.header("Content-Length"));
    }

    @Test
    void ifRangeWithTheCurrentEtagHonoursTheRange() throws Exception {
        serveDigits();
        String etag = get("/digits.txt").header("ETag");
        assertPartial(get("/digits.txt", "Range: bytes=0-4", "If-Range: " + etag), 0, 4);
    }

    @Test
    void ifRangeWithAnotherOrAWeakEtagSendsEverything() throws Exception {
        serveDigits();
        String etag = get("/digits.txt").header("ETag");
        Reply other = get("/digits.txt", "Range: bytes=0-4", "If-Range: \"old\"");
        assertEquals(200, other.status());
        assertEquals(DIGITS, other.text());
        assertEquals(
                200,
                get("/digits.txt", "Range: bytes=0-4", "If-Range: W/" + etag).status());
    }

    @Test
    void ifRangeWithTheExactDateHonoursTheRange() throws Exception {
        serveDigits();
        assertPartial(get("/digits.txt", "Range: bytes=0-4", "If-Range: " + MODIFIED_HTTP), 0, 4);
    }

    @Test
    void ifRangeWithAnotherDateSendsEverything() throws Exception {
        serveDigits();
        assertEquals(
                200,
                get("/digits.txt", "Range: bytes=0-4", "If-Range: Tue, 02 Jan 2024 03:04:06 GMT")
                        .status());
    }

    @Test
    void ifRangeWithTheDateOfAFileModifiedThisSecondSendsEverything() throws Exception {
        serveDigits("digits.txt", StaticFiles.builder(root).revalidateAfter(java.time.Duration.ZERO));
        // A date within the current second is a weak validator (RFC 9110 §8.8.2.2): the file may change again.
        Instant now = Instant.ofEpochSecond(Instant.now().getEpochSecond() + 5);
        Files.setLastModifiedTime(root.resolve("digits.txt"), FileTime.from(now));
        String lastModified = get("/digits.txt").header("Last-Modified");
        assertEquals(
                200,
                get("/digits.txt", "Range: bytes=0-4", "If-Range: " + lastModified)
                        .status());
    }
}
