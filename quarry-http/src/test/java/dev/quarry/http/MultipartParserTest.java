package dev.quarry.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MultipartParserTest {
    private static final String BOUNDARY = "------------------------d74496d66958873e";

    /** A body as curl -F sends it: a text field and a file. */
    private static final String CURL_BODY = "--" + BOUNDARY + "\r\n"
            + "Content-Disposition: form-data; name=\"title\"\r\n"
            + "\r\n"
            + "Holiday\r\n"
            + "--" + BOUNDARY + "\r\n"
            + "Content-Disposition: form-data; name=\"photo\"; filename=\"beach.txt\"\r\n"
            + "Content-Type: text/plain\r\n"
            + "\r\n"
            + "sand\r\nsea\r\n-- not a boundary\r\n--" + BOUNDARY.substring(0, 20) + " nor this\r\r\n\r\n"
            + "\r\n"
            + "--" + BOUNDARY + "--\r\n";

    /** One part as the listener saw it. */
    record Part(String name, Optional<String> filename, String contentType, String content) {}

    /** Collects the parts, checking that the listener's calls come in order. */
    static final class Recorder implements MultipartParser.Listener {
        final List<Part> parts = new ArrayList<>();
        private MultipartParser.PartHead head;
        private final ByteArrayOutputStream content = new ByteArrayOutputStream();

        @Override
        public void onPartBegin(MultipartParser.PartHead head) {
            assertEquals(null, this.head, "a part began before the previous one ended");
            this.head = head;
            content.reset();
        }

        @Override
        public void onPartContent(byte[] bytes, int offset, int length) {
            assertTrue(head != null && length > 0);
            content.write(bytes, offset, length);
        }

        @Override
        public void onPartEnd() {
            parts.add(new Part(
                    head.name(), head.filename(), head.contentType(), content.toString(StandardCharsets.UTF_8)));
            head = null;
        }
    }

    private static List<Part> parse(String body, int... splits) throws IOException {
        return parse(BOUNDARY, MultipartParser.Limits.DEFAULT, body.getBytes(StandardCharsets.UTF_8), splits);
    }

    private static List<Part> parse(String boundary, MultipartParser.Limits limits, byte[] body, int... splits)
            throws IOException {
        Recorder recorder = new Recorder();
        MultipartParser parser = new MultipartParser(boundary, limits, recorder);
        int from = 0;
        for (int split : splits) {
            parser.parse(body, from, split - from);
            from = split;
        }
        parser.parse(body, from, body.length - from);
        parser.finish();
        assertTrue(parser.isComplete());
        return recorder.parts;
    }

    private static HttpException reject(String body) {
        return assertThrows(HttpException.class, () -> parse(body), body);
    }

    private static final List<Part> CURL_PARTS = List.of(
            new Part("title", Optional.empty(), "text/plain", "Holiday"),
            new Part(
                    "photo",
                    Optional.of("beach.txt"),
                    "text/plain",
                    "sand\r\nsea\r\n-- not a boundary\r\n--" + BOUNDARY.substring(0, 20) + " nor this\r\r\n\r\n"));

    @Test
    void parsesTextFieldsAndFiles() throws IOException {
        assertEquals(CURL_PARTS, parse(CURL_BODY));
    }

    @Test
    void everySplitPointGivesTheSameParts() throws IOException {
        int length = CURL_BODY.getBytes(StandardCharsets.UTF_8).length;
        for (int split = 0; split <= length; split++) {
            assertEquals(CURL_PARTS, parse(CURL_BODY, split), "split at " + split);
        }
    }

    @Test
    void everyPairOfSplitPointsGivesTheSameParts() throws IOException {
        int length = CURL_BODY.getBytes(StandardCharsets.UTF_8).length;
        for (int first = 0; first <= length; first += 3) {
            for (int second = first; second <= length; second++) {
                assertEquals(CURL_PARTS, parse(CURL_BODY, first, second), "split at " + first + " and " + second);
            }
        }
    }

    @Test
    void oneByteAtATimeGivesTheSameParts() throws IOException {
        int length = CURL_BODY.getBytes(StandardCharsets.UTF_8).length;
        int[] splits = new int[length - 1];
        for (int i = 0; i < splits.length; i++) {
            splits[i] = i + 1;
        }
        assertEquals(CURL_PARTS, parse(CURL_BODY, splits));
    }

    @Test
    void ignoresThePreambleTheEpilogueAndTransportPadding() throws IOException {
        String body = "This is the preamble.\r\n--XyZ \t\r\n"
                + "Content-Disposition: form-data; name=a\r\n\r\n"
                + "1\r\n--XyZ--\r\nThis is the epilogue, --XyZ and all.";
        assertEquals(
                List.of(new Part("a", Optional.empty(), "text/plain", "1")),
                parse("XyZ", MultipartParser.Limits.DEFAULT, body.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void acceptsEmptyContentAndABodyWithoutTrailingCrlf() throws IOException {
        String body = "--b\r\nContent-Disposition: form-data; name=\"empty\"\r\n\r\n\r\n--b--";
        assertEquals(
                List.of(new Part("empty", Optional.empty(), "text/plain", "")),
                parse("b", MultipartParser.Limits.DEFAULT, body.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void fileNamesAreUtf8QuotedOrExtended() throws IOException {
        String body = "--b\r\n"
                + "Content-Disposition: form-data; name=\"f1\"; filename=\"r\u00e9sum\u00e9 \\\"v2\\\".pdf\"\r\n"
                + "Content-Type: application/pdf\r\n\r\n%PDF\r\n"
                + "--b\r\n"
                + "Content-Disposition: form-data; name=f2; filename=\"fallback.txt\"; filename*=UTF-8''%E2%82%AC%20rates.txt\r\n"
                + "\r\n\r\n"
                + "--b\r\n"
                + "content-disposition: FORM-DATA; filename=\"C:\\dir\\x.txt\"; name=\"f3\"\r\n\r\nx\r\n"
                + "--b--\r\n";
        List<Part> parts = parse("b", MultipartParser.Limits.DEFAULT, body.getBytes(StandardCharsets.UTF_8));
        assertEquals(
                new Part("f1", Optional.of("r\u00e9sum\u00e9 \"v2\".pdf"), "application/pdf", "%PDF"), parts.get(0));
        assertEquals(Optional.of("\u20ac rates.txt"), parts.get(1).filename());
        assertEquals(Optional.of("C:\\dir\\x.txt"), parts.get(2).filename(), "backslashes of a Windows path kept");
    }

    @Test
    void findsTheBoundaryInTheContentType() {
        assertEquals("abc", MultipartParser.boundary(MediaType.parse("multipart/form-data; boundary=abc")));
        assertEquals(
                "with space:and=more",
                MultipartParser.boundary(MediaType.parse("multipart/form-data; boundary=\"with space:and=more\"")));
    }

    @Test
    void aMissingOrInvalidBoundaryIs400AndAnotherMediaType415() {
        for (String contentType : new String[] {
            "multipart/form-data",
            "multipart/form-data; boundary=\"\"",
            "multipart/form-data; boundary=\"ends with space \"",
            "multipart/form-data; boundary=\"a;b\"",
            "multipart/form-data; boundary=" + "x".repeat(71)
        }) {
            HttpException x = assertThrows(
                    HttpException.class, () -> MultipartParser.boundary(MediaType.parse(contentType)), contentType);
            assertEquals(400, x.status(), x::getMessage);
            assertTrue(x.reason().contains("boundary"), x::reason);
        }
        HttpException x = assertThrows(
                HttpException.class, () -> MultipartParser.boundary(MediaType.parse("multipart/mixed; boundary=a")));
        assertEquals(415, x.status());
    }

    @Test
    void aBodyWithoutItsBoundaryIs400() {
        HttpException x = reject("just some text\r\n");
        assertEquals(400, x.status());
        assertTrue(x.reason().contains("without the boundary"), x::reason);
        assertTrue(reject("").reason().contains("without the boundary"));
    }

    @Test
    void aMissingFinalBoundaryIs400() {
        for (String body : new String[] {
            CURL_BODY.substring(0, CURL_BODY.length() - 4),
            "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=a\r\n\r\nno end",
            "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=a\r\n",
            "--" + BOUNDARY + "\r\n",
            "--" + BOUNDARY + "-"
        }) {
            HttpException x = reject(body);
            assertEquals(400, x.status());
            assertTrue(x.reason().contains("ended before its final boundary"), x::reason);
        }
    }

    @Test
    void garbageAfterADelimiterIs400() {
        for (String after : new String[] {"x\r\n", "-x", " x\r\n", "\rx", "\n"}) {
            HttpException x = reject("--" + BOUNDARY + after);
            assertEquals(400, x.status());
            assertTrue(x.reason().contains("after multipart boundary"), x::reason);
        }
    }

    @Test
    void malformedPartHeadersAre400() {
        String[][] cases = {
            {"Content-Type: text/plain\r\n", "no Content-Disposition"},
            {"Content-Disposition: attachment; name=a\r\n", "expected form-data"},
            {"Content-Disposition: form-data; filename=a.txt\r\n", "no name"},
            {"Content-Disposition: form-data; name=a; name\r\n", "invalid parameter"},
            {"Content-Disposition: form-data; name=\"a\r\n", "unterminated quoted string"},
            {"Content-Disposition: form-data; name=a\r\nno colon\r\n", "invalid field name"},
            {"Content-Disposition: form-data; name=a\r\n: empty name\r\n", "no field name"},
            {"Content-Disposition: form-data;\r\n name=a\r\n", "folded line"},
            {"Content-Disposition: form-data; name=a\nX: y\r\n", "bare CR or LF"},
            {"Content-Disposition: form-data; name=a\rX: y\r\n", "control character"},
            {"Content-Disposition: form-data; name=\"\u00ff\"\r\n", "invalid UTF-8"},
            {"Content-Disposition: form-data; name=a; filename*=no-quotes\r\n", "filename*"},
            {"Content-Disposition: form-data; name=a; filename*=KOI8-R''x\r\n", "unsupported charset"},
            {"Content-Disposition: form-data; name=a; filename*=UTF-8''%E2%82\r\n", "invalid UTF-8"},
            {"Content-Disposition: form-data; name=a; filename*=UTF-8''%zz\r\n", "percent-encoding"},
        };
        for (String[] c : cases) {
            String body = "--" + BOUNDARY + "\r\n" + c[0] + "\r\ncontent\r\n--" + BOUNDARY + "--\r\n";
            byte[] bytes =
                    body.getBytes(c[0].contains("\u00ff") ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
            HttpException x = assertThrows(
                    HttpException.class, () -> parse(BOUNDARY, MultipartParser.Limits.DEFAULT, bytes), c[0]);
            assertEquals(400, x.status(), x::getMessage);
            assertTrue(x.reason().contains(c[1]), () -> c[0] + " -> " + x.reason());
        }
    }

    @Test
    void limitsAre413() {
        byte[] body = CURL_BODY.getBytes(StandardCharsets.UTF_8);
        MultipartParser.Limits limits = MultipartParser.Limits.DEFAULT;
        String[][] cases = {
            {"parts", "too many multipart parts: more than 1"},
            {"header", "headers of multipart part 2 larger than 60 bytes"},
            {"part", "multipart part 2 larger than 10 bytes"},
            {"total", "multipart body larger than 100 bytes"},
        };
        for (String[] c : cases) {
            MultipartParser.Limits tight = switch (c[0]) {
                case "parts" -> limits.withMaxParts(1);
                case "header" -> limits.withMaxPartHeaderSize(60);
                case "part" -> limits.withMaxPartSize(10);
                default -> limits.withMaxTotalSize(100);
            };
            HttpException x = assertThrows(HttpException.class, () -> parse(BOUNDARY, tight, body), c[0]);
            assertEquals(413, x.status());
            assertEquals(c[1], x.reason());
        }
        assertEquals(
                CURL_PARTS,
                assertDoesNotThrow(() -> parse(
                        BOUNDARY,
                        limits.withMaxParts(2)
                                .withMaxPartSize(CURL_PARTS.get(1).content().length())
                                .withMaxTotalSize(body.length),
                        body)));
    }

    @Test
    void aLargePartIsParsedWithoutAllocatingPerByte() throws Exception {
        byte[] head = ("--b\r\nContent-Disposition: form-data; name=big; filename=big.bin\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] chunk = new byte[8192];
        for (int i = 0; i < chunk.length; i++) {
            chunk[i] = (byte) (i % 7 == 0 ? '\r' : i % 11 == 0 ? '-' : 'x'); // many false starts of a delimiter
        }
        byte[] tail = "\r\n--b--".getBytes(StandardCharsets.US_ASCII);
        long[] received = new long[1];
        MultipartParser.Listener counter = new MultipartParser.Listener() {
            @Override
            public void onPartBegin(MultipartParser.PartHead h) {}

            @Override
            public void onPartContent(byte[] bytes, int offset, int length) {
                received[0] += length;
            }

            @Override
            public void onPartEnd() {}
        };
        for (int round = 0; round < 3; round++) { // the last round is measured, once the code is compiled
            received[0] = 0;
            MultipartParser parser = new MultipartParser("b", MultipartParser.Limits.DEFAULT, counter);
            parser.parse(head, 0, head.length);
            long before = allocatedBytes();
            for (int i = 0; i < 1024; i++) {
                parser.parse(chunk, 0, chunk.length);
            }
            long allocated = allocatedBytes() - before;
            parser.parse(tail, 0, tail.length);
            parser.finish();
            assertEquals(1024L * chunk.length, received[0]);
            if (round == 2) {
                assertTrue(allocated < 64 * 1024, () -> allocated + " bytes allocated to parse 8 MiB");
            }
        }
    }

    @Test
    void notCompleteBeforeTheCloseDelimiter() throws IOException {
        MultipartParser parser = new MultipartParser("b", MultipartParser.Limits.DEFAULT, new Recorder());
        byte[] start = "--b\r\nContent-Disposition: form-data; name=a\r\n\r\nx".getBytes(StandardCharsets.US_ASCII);
        parser.parse(start, 0, start.length);
        assertFalse(parser.isComplete());
    }

    /**
     * The allocation counter of the current thread, through JMX by reflection: this module does not read
     * java.management, and core reflection needs no readability.
     */
    private static long allocatedBytes() throws ReflectiveOperationException {
        Class<?> factory = Class.forName("java.lang.management.ManagementFactory");
        Object server = factory.getMethod("getPlatformMBeanServer").invoke(null);
        Class<?> objectName = Class.forName("javax.management.ObjectName");
        Object threading = objectName.getConstructor(String.class).newInstance("java.lang:type=Threading");
        Method getAttribute = Class.forName("javax.management.MBeanServerConnection")
                .getMethod("getAttribute", objectName, String.class);
        long bytes = (Long) getAttribute.invoke(server, threading, "CurrentThreadAllocatedBytes");
        org.junit.jupiter.api.Assumptions.assumeTrue(bytes >= 0, "this JVM does not measure thread allocation");
        return bytes;
    }

    private static <T> T assertDoesNotThrow(org.junit.jupiter.api.function.ThrowingSupplier<T> supplier) {
        return org.junit.jupiter.api.Assertions.assertDoesNotThrow(supplier);
    }
}
