package dev.quarry.http.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.PreEncodedHttpField;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class HttpGeneratorTest {
    private static final HttpVersion V10 = HttpVersion.HTTP_1_0;
    private static final HttpVersion V11 = HttpVersion.HTTP_1_1;

    private static String text(ByteBuffer buffer) {
        buffer.flip();
        return StandardCharsets.ISO_8859_1.decode(buffer).toString();
    }

    /**
     * One framing decision: the request (version, method, persistence), the response (status, known length), and the
     * expected framing, framing field, Connection field and persistence.
     */
    record Row(
            HttpVersion version,
            String method,
            int status,
            long length,
            boolean persistentRequest,
            Framing framing,
            String framingField,
            String connectionField,
            boolean persistent) {
        @Override
        public String toString() {
            return version + " " + method + " -> " + status + " length=" + length + " persistent=" + persistentRequest;
        }
    }

    private static Row row(
            HttpVersion v, String m, int s, long len, boolean p, Framing f, String ff, String cf, boolean persistent) {
        return new Row(v, m, s, len, p, f, ff, cf, persistent);
    }

    static Stream<Row> framingTable() {
        String cl5 = "Content-Length: 5";
        String chunked = "Transfer-Encoding: chunked";
        String close = "Connection: close";
        String keepAlive = "Connection: keep-alive";
        return Stream.of(
                row(V11, "GET", 200, 5, true, Framing.CONTENT_LENGTH, cl5, null, true),
                row(V11, "GET", 200, -1, true, Framing.CHUNKED, chunked, null, true),
                row(V11, "GET", 200, 5, false, Framing.CONTENT_LENGTH, cl5, close, false),
                row(V11, "GET", 200, -1, false, Framing.CHUNKED, chunked, close, false),
                row(V11, "GET", 200, 0, true, Framing.CONTENT_LENGTH, "Content-Length: 0", null, true),
                row(V10, "GET", 200, 5, true, Framing.CONTENT_LENGTH, cl5, keepAlive, true),
                row(V10, "GET", 200, 5, false, Framing.CONTENT_LENGTH, cl5, close, false),
                row(V10, "GET", 200, -1, true, Framing.CLOSE_DELIMITED, null, close, false),
                row(V10, "GET", 200, -1, false, Framing.CLOSE_DELIMITED, null, close, false),
                row(V11, "HEAD", 200, 5, true, Framing.NONE, cl5, null, true),
                row(V11, "HEAD", 200, -1, true, Framing.NONE, null, null, true),
                row(V10, "HEAD", 200, -1, true, Framing.NONE, null, keepAlive, true),
                row(V11, "HEAD", 404, 5, false, Framing.NONE, cl5, close, false),
                row(V11, "GET", 204, 5, true, Framing.NONE, null, null, true),
                row(V11, "GET", 204, -1, true, Framing.NONE, null, null, true),
                row(V10, "GET", 204, -1, true, Framing.NONE, null, keepAlive, true),
                row(V11, "GET", 304, 5, true, Framing.NONE, cl5, null, true),
                row(V11, "GET", 304, -1, true, Framing.NONE, null, null, true),
                row(V11, "CONNECT", 200, 5, true, Framing.NONE, null, null, true),
                row(V11, "CONNECT", 200, -1, true, Framing.NONE, null, null, true),
                row(V11, "CONNECT", 407, 5, true, Framing.CONTENT_LENGTH, cl5, null, true),
                row(V11, "POST", 500, -1, false, Framing.CHUNKED, chunked, close, false),
                row(V11, "POST", 201, 5, true, Framing.CONTENT_LENGTH, cl5, null, true),
                row(V11, "PROPFIND", 207, -1, true, Framing.CHUNKED, chunked, null, true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("framingTable")
    void decidesFramingAndPersistence(Row row) {
        assertEquals(row.framing, HttpGenerator.framing(row.version, row.method, row.status, row.length));
        HttpGenerator generator = new HttpGenerator();
        ByteBuffer out = ByteBuffer.allocate(512);
        Framing framing = generator.writeResponseHead(
                out, row.version, row.method, row.status, new HttpFields(), row.length, row.persistentRequest);
        assertEquals(row.framing, framing);
        assertEquals(row.persistent, generator.isPersistent());
        assertEquals(!row.persistent, generator.mustClose());
        String head = text(out);
        assertTrue(head.startsWith("HTTP/1.1 " + row.status + " "), head);
        assertTrue(head.endsWith("\r\n\r\n"), head);
        assertLine(
                head,
                "Content-Length",
                row.framingField != null && row.framingField.startsWith("Content-Length") ? row.framingField : null);
        assertLine(
                head,
                "Transfer-Encoding",
                row.framingField != null && row.framingField.startsWith("Transfer") ? row.framingField : null);
        assertLine(head, "Connection", row.connectionField);
        assertEquals(row.framing == Framing.NONE, generator.isComplete());
    }

    private static void assertLine(String head, String name, String expected) {
        String line =
                head.lines().filter(l -> l.startsWith(name + ":")).findFirst().orElse(null);
        assertEquals(expected, line, () -> name + " in\n" + head);
    }

    @Test
    void writesThePlaintextResponseExactly() {
        HttpFields fields = HttpFields.of(
                new PreEncodedHttpField(HttpHeader.SERVER, "Quarry"),
                new PreEncodedHttpField(HttpHeader.DATE, "Wed, 01 Jan 2025 00:00:00 GMT"),
                new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "text/plain"));
        ByteBuffer out = ByteBuffer.allocateDirect(256);
        new HttpGenerator().writeResponseHead(out, V11, "GET", 200, fields, 13, true);
        assertEquals(
                "HTTP/1.1 200 OK\r\nServer: Quarry\r\nDate: Wed, 01 Jan 2025 00:00:00 GMT\r\nContent-Type: text/plain\r\n"
                        + "Content-Length: 13\r\n\r\n",
                text(out));
    }

    @Test
    void writesOrdinaryFieldsInOrderWithCanonicalWellKnownNames() {
        HttpFields fields = new HttpFields()
                .add("x-custom", "a b")
                .add("content-type", "text/html")
                .add(HttpHeader.SET_COOKIE, "a=1")
                .add(HttpHeader.SET_COOKIE, "b=2");
        ByteBuffer out = ByteBuffer.allocate(256);
        new HttpGenerator().writeResponseHead(out, V11, "GET", 404, fields, 0, true);
        assertEquals(
                "HTTP/1.1 404 Not Found\r\nx-custom: a b\r\nContent-Type: text/html\r\nSet-Cookie: a=1\r\n"
                        + "Set-Cookie: b=2\r\nContent-Length: 0\r\n\r\n",
                text(out));
    }

    @Test
    void anUnregisteredStatusGetsTheReasonPhraseOfItsClass() {
        ByteBuffer out = ByteBuffer.allocate(64);
        new HttpGenerator().writeResponseHead(out, V11, "GET", 299, new HttpFields(), 0, true);
        assertTrue(text(out).startsWith("HTTP/1.1 299 Success\r\n"), text(out));
    }

    @Test
    void framingFieldsFromTheApplicationAreOwnedByTheGenerator() {
        HttpFields fields =
                new HttpFields().add(HttpHeader.CONTENT_LENGTH, "7").add(HttpHeader.TRANSFER_ENCODING, "gzip");
        ByteBuffer out = ByteBuffer.allocate(256);
        HttpGenerator generator = new HttpGenerator();
        assertEquals(Framing.CONTENT_LENGTH, generator.writeResponseHead(out, V11, "GET", 200, fields, -1, true));
        String head = text(out);
        assertFalse(head.contains("Transfer-Encoding"), head);
        assertEquals(
                1, head.lines().filter(l -> l.startsWith("Content-Length: 7")).count(), head);
    }

    @Test
    void invalidContentLengthFieldIsRejected() {
        HttpFields fields = new HttpFields().add(HttpHeader.CONTENT_LENGTH, "-1");
        assertThrows(
                IllegalArgumentException.class,
                () -> new HttpGenerator()
                        .writeResponseHead(ByteBuffer.allocate(256), V11, "GET", 200, fields, -1, true));
    }

    @Test
    void applicationConnectionCloseClosesWithoutDuplicatingTheField() {
        HttpFields fields = new HttpFields().add(HttpHeader.CONNECTION, "close");
        ByteBuffer out = ByteBuffer.allocate(256);
        HttpGenerator generator = new HttpGenerator();
        generator.writeResponseHead(out, V11, "GET", 200, fields, 0, true);
        assertTrue(generator.mustClose());
        assertEquals(
                1, text(out).lines().filter(l -> l.startsWith("Connection")).count());
    }

    @Test
    void upgradeResponseKeepsTheApplicationsConnectionField() {
        HttpFields fields =
                new HttpFields().add(HttpHeader.CONNECTION, "Upgrade").add(HttpHeader.UPGRADE, "h2c");
        ByteBuffer out = ByteBuffer.allocate(256);
        HttpGenerator generator = new HttpGenerator();
        assertEquals(Framing.NONE, generator.writeResponseHead(out, V11, "GET", 101, fields, -1, true));
        assertEquals("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n", text(out));
    }

    @Test
    void interimResponsesDoNotCommit() {
        HttpGenerator generator = new HttpGenerator();
        ByteBuffer out = ByteBuffer.allocate(512);
        HttpFields hints = new HttpFields().add(HttpHeader.LINK, "</style.css>; rel=preload");
        assertEquals(Framing.NONE, generator.writeResponseHead(out, V11, "GET", 103, hints, -1, false));
        assertFalse(generator.isCommitted());
        generator.writeResponseHead(out, V11, "GET", 200, new HttpFields(), 2, true);
        assertTrue(generator.isCommitted());
        assertEquals(
                "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
                        + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n",
                text(out));
        assertThrows(
                IllegalStateException.class,
                () -> generator.writeResponseHead(
                        ByteBuffer.allocate(256), V11, "GET", 200, new HttpFields(), 2, true));
    }

    @Test
    void continueInterimResponseBytes() {
        ByteBuffer out = ByteBuffer.allocate(64);
        HttpGenerator.writeContinue(out);
        assertEquals("HTTP/1.1 100 Continue\r\n\r\n", text(out));
        assertEquals(
                "HTTP/1.1 100 Continue\r\n\r\n", new String(HttpGenerator.continueBytes(), StandardCharsets.US_ASCII));
    }

    @Test
    void headerInjectionThroughAValueIsImpossible() {
        for (String value :
                new String[] {"a\r\nSet-Cookie: evil=1", "a\nb", "a\rb", "a\u0000b", "a\u0001b", "a\u2028b"}) {
            HttpFields fields = new HttpFields().add("X-User", value);
            ByteBuffer out = ByteBuffer.allocate(256);
            IllegalArgumentException x = assertThrows(
                    IllegalArgumentException.class,
                    () -> new HttpGenerator().writeResponseHead(out, V11, "GET", 200, fields, 0, true));
            assertTrue(x.getMessage().contains("in value of X-User"), x::getMessage);
            assertEquals(0, out.position(), "nothing written");
        }
        IllegalArgumentException crlf = assertThrows(
                IllegalArgumentException.class,
                () -> new HttpGenerator()
                        .writeResponseHead(
                                ByteBuffer.allocate(256),
                                V11,
                                "GET",
                                200,
                                new HttpFields().add("X", "a\r\nb"),
                                0,
                                true));
        assertTrue(crlf.getMessage().startsWith("header injection: invalid character CR"), crlf::getMessage);
    }

    @Test
    void headerInjectionThroughANameIsImpossible() {
        for (String name : new String[] {"X-A\r\nB", "X A", "X:A", "X\u0000"}) {
            HttpFields fields = new HttpFields().add(name, "v");
            assertThrows(
                    IllegalArgumentException.class,
                    () -> new HttpGenerator()
                            .writeResponseHead(ByteBuffer.allocate(256), V11, "GET", 200, fields, 0, true),
                    name);
        }
        assertThrows(IllegalArgumentException.class, () -> new PreEncodedHttpField("X-A", "a\r\nb"));
        assertThrows(IllegalArgumentException.class, () -> new PreEncodedHttpField("X A", "b"));
    }

    @Test
    void chunkedContentRoundTripsThroughTheParser() {
        HttpGenerator generator = new HttpGenerator();
        ByteBuffer head = ByteBuffer.allocate(256);
        assertEquals(Framing.CHUNKED, generator.writeResponseHead(head, V11, "GET", 200, new HttpFields(), -1, true));
        ByteBuffer body = ByteBuffer.allocate(512);
        generator.writeChunkHeader(body, 5);
        body.put("hello".getBytes(StandardCharsets.US_ASCII));
        generator.writeChunkHeader(body, 0x1B);
        body.put(" world, and 27 more bytes!!".getBytes(StandardCharsets.US_ASCII));
        generator.writeLastChunk(body, new HttpFields().add("X-Checksum", "abc"));
        assertTrue(generator.isComplete());
        String chunked = text(body);
        assertEquals("5\r\nhello\r\n1b\r\n world, and 27 more bytes!!\r\n0\r\nX-Checksum: abc\r\n\r\n", chunked);

        Recorder r = Feeder.parse("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked);
        assertNull(r.failure);
        assertTrue(r.events.contains("content hello world, and 27 more bytes!!"), r.events::toString);
        assertTrue(r.events.contains("trailer X-Checksum: abc"));
    }

    @Test
    void lastChunkWithoutDataAndTrailers() {
        HttpGenerator generator = new HttpGenerator();
        generator.writeResponseHead(ByteBuffer.allocate(256), V11, "GET", 200, new HttpFields(), -1, true);
        ByteBuffer body = ByteBuffer.allocate(16);
        generator.writeLastChunk(body, new HttpFields());
        assertEquals("0\r\n\r\n", text(body));
        assertThrows(IllegalStateException.class, () -> generator.writeChunkHeader(ByteBuffer.allocate(16), 1));
    }

    @Test
    void forbiddenTrailersAreRejected() {
        HttpGenerator generator = new HttpGenerator();
        generator.writeResponseHead(ByteBuffer.allocate(256), V11, "GET", 200, new HttpFields(), -1, true);
        assertThrows(
                IllegalArgumentException.class,
                () -> generator.writeLastChunk(
                        ByteBuffer.allocate(64), new HttpFields().add(HttpHeader.CONTENT_LENGTH, "5")));
    }

    @Test
    void chunkMethodsNeedChunkedFraming() {
        HttpGenerator generator = new HttpGenerator();
        generator.writeResponseHead(ByteBuffer.allocate(256), V11, "GET", 200, new HttpFields(), 5, true);
        assertThrows(IllegalStateException.class, () -> generator.writeChunkHeader(ByteBuffer.allocate(16), 5));
        generator.completeContent();
        assertTrue(generator.isComplete());
    }

    @Test
    void tooSmallBufferWritesNothingAndARetrySucceeds() {
        HttpGenerator generator = new HttpGenerator();
        HttpFields fields = new HttpFields().add("X-Long", "v".repeat(100));
        ByteBuffer small = ByteBuffer.allocate(64);
        assertThrows(
                BufferOverflowException.class,
                () -> generator.writeResponseHead(small, V11, "GET", 200, fields, 0, true));
        assertEquals(0, small.position());
        assertFalse(generator.isCommitted());
        ByteBuffer large = ByteBuffer.allocate(256);
        generator.writeResponseHead(large, V11, "GET", 200, fields, 0, true);
        assertTrue(generator.isCommitted());
    }

    @Test
    void resetAllowsTheNextResponse() {
        HttpGenerator generator = new HttpGenerator();
        generator.writeResponseHead(ByteBuffer.allocate(256), V11, "GET", 200, new HttpFields(), 0, true);
        generator.reset();
        assertFalse(generator.isCommitted());
        assertTrue(generator.framing().isEmpty());
        generator.writeResponseHead(ByteBuffer.allocate(256), V11, "GET", 200, new HttpFields(), 0, true);
        assertTrue(generator.toString().contains("CONTENT_LENGTH"));
    }

    @Test
    void invalidStatusIsRejected() {
        assertThrows(
                IllegalArgumentException.class,
                () -> new HttpGenerator()
                        .writeResponseHead(ByteBuffer.allocate(64), V11, "GET", 99, new HttpFields(), 0, true));
        assertThrows(
                IllegalArgumentException.class,
                () -> new HttpGenerator()
                        .writeResponseHead(ByteBuffer.allocate(64), V11, "GET", 600, new HttpFields(), 0, true));
    }
}
