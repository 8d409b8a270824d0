package dev.quarry.http.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.HttpField;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.h2test.FrameEvent;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Decoding header blocks into {@link HeaderBlock}: pseudo-headers, fields, and the first message rule a block breaks
 * (RFC 9113 8.2, 8.3), which the parser records as {@code malformed} without failing the connection.
 */
class HeaderBlockDecodingTest {

    static Stream<Arguments> malformedRequestBlocks() {
        return Stream.of(
                Arguments.of("uppercase name", Frames.with(Frames.get("/"), "X-Upper", "1"), "uppercase"),
                Arguments.of("space in a name", Frames.with(Frames.get("/"), "x bad", "1"), "invalid character"),
                Arguments.of("colon inside a name", Frames.with(Frames.get("/"), "x:y", "1"), "invalid character"),
                Arguments.of("non-ASCII name", Frames.with(Frames.get("/"), "x-\u00e9", "1"), "invalid character"),
                Arguments.of("empty name", Frames.with(Frames.get("/"), "", "1"), "empty field name"),
                Arguments.of("connection", Frames.with(Frames.get("/"), "connection", "close"), "connection-specific"),
                Arguments.of("keep-alive", Frames.with(Frames.get("/"), "keep-alive", "5"), "connection-specific"),
                Arguments.of(
                        "proxy-connection",
                        Frames.with(Frames.get("/"), "proxy-connection", "x"),
                        "connection-specific"),
                Arguments.of(
                        "transfer-encoding",
                        Frames.with(Frames.get("/"), "transfer-encoding", "chunked"),
                        "connection-specific"),
                Arguments.of("upgrade", Frames.with(Frames.get("/"), "upgrade", "h2c"), "connection-specific"),
                Arguments.of("te: gzip", Frames.with(Frames.get("/"), "te", "gzip"), "te other than"),
                Arguments.of(
                        "te: trailers, gzip", Frames.with(Frames.get("/"), "te", "trailers, gzip"), "te other than"),
                Arguments.of(
                        "pseudo-header after a field",
                        new String[] {":method", "GET", ":scheme", "https", "x-a", "1", ":path", "/"},
                        "after a regular field"),
                Arguments.of("unknown pseudo-header", Frames.with(Frames.get("/"), ":foo", "bar"), "unknown pseudo"),
                Arguments.of("lone colon", Frames.with(Frames.get("/"), ":", "bar"), "unknown pseudo"),
                Arguments.of(
                        "duplicated :path",
                        new String[] {":method", "GET", ":scheme", "https", ":path", "/", ":path", "/x"},
                        "duplicated pseudo-header :path"),
                Arguments.of(
                        "duplicated :method",
                        new String[] {":method", "GET", ":method", "GET", ":scheme", "https", ":path", "/"},
                        "duplicated pseudo-header :method"),
                Arguments.of(":status in a request", Frames.with(Frames.get("/"), ":status", "200"), "response pseudo"),
                Arguments.of(
                        ":status first in a request",
                        new String[] {":status", "200", ":method", "GET", ":scheme", "https", ":path", "/"},
                        "response pseudo"),
                Arguments.of("NUL in a value", Frames.with(Frames.get("/"), "x-a", "a\u0000b"), "forbidden character"),
                Arguments.of("CR in a value", Frames.with(Frames.get("/"), "x-a", "a\rb"), "forbidden character"),
                Arguments.of("LF in a value", Frames.with(Frames.get("/"), "x-a", "a\nb"), "forbidden character"),
                Arguments.of("leading space", Frames.with(Frames.get("/"), "x-a", " a"), "whitespace"),
                Arguments.of("trailing tab", Frames.with(Frames.get("/"), "x-a", "a\t"), "whitespace"),
                Arguments.of("LF in :path", Frames.get("/a\nb"), "forbidden character"),
                Arguments.of(
                        "space around :method",
                        new String[] {":method", "GET ", ":scheme", "https", ":path", "/"},
                        "whitespace"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedRequestBlocks")
    void aBlockBreakingAMessageRuleIsMarkedMalformed(String name, String[] fields, String reason) {
        Harness harness = Harness.server();
        HeaderBlock block = harness.decode(fields);
        assertTrue(block.malformed().isPresent(), name + " is malformed");
        assertTrue(block.malformed().get().contains(reason), block.malformed().get());
        assertFalse(harness.parser.isClosed(), "a malformed message is a stream error, not a connection error");
    }

    @Test
    void onlyTheFirstBrokenRuleIsRecorded() {
        HeaderBlock block =
                Harness.server().decode(Frames.with(Frames.get("/"), "X-Upper", "1", "connection", "close"));
        assertTrue(
                block.malformed().orElseThrow().contains("uppercase"),
                block.malformed().orElseThrow());
    }

    @Test
    void teTrailersIsAllowedInAnyCase() {
        assertTrue(Harness.server()
                .decode(Frames.with(Frames.get("/"), "te", "trailers"))
                .malformed()
                .isEmpty());
        assertTrue(Harness.server()
                .decode(Frames.with(Frames.get("/"), "te", "Trailers"))
                .malformed()
                .isEmpty());
    }

    @Test
    void otherControlCharactersAndInnerWhitespaceAreAllowedInValues() {
        // RFC 9113 8.2.1 forbids only NUL, CR, LF and whitespace at the ends; the field's own syntax is not checked.
        HeaderBlock block =
                Harness.server().decode(Frames.with(Frames.get("/"), "x-a", "a \t b\u0001\u00ff", "x-e", ""));
        assertTrue(block.malformed().isEmpty(), () -> block.malformed().get());
        assertEquals("a \t b\u0001\u00ff", block.fields().get("x-a").orElseThrow());
        assertEquals("", block.fields().get("x-e").orElseThrow());
    }

    @Test
    void aResponseBlockOnTheClientSideHasAStatus() {
        Harness harness = Harness.client();
        FrameEvent.Headers headers = assertInstanceOf(
                FrameEvent.Headers.class,
                harness.one(harness.headers(1, 0, ":status", "200", "content-type", "text/plain")));
        assertEquals("200", headers.block().status());
        assertNull(headers.block().method());
        assertTrue(headers.block().malformed().isEmpty());
    }

    @Test
    void requestPseudoHeadersInAResponseAreMalformed() {
        Harness harness = Harness.client();
        FrameEvent.Headers headers = assertInstanceOf(
                FrameEvent.Headers.class, harness.one(harness.headers(1, 0, ":status", "200", ":path", "/")));
        assertTrue(headers.block().malformed().orElseThrow().contains("request pseudo-header :path"));
    }

    @Test
    void protocolIsDecodedAndLeftToTheMessageRules() {
        HeaderBlock block = Harness.server().decode(Frames.with(Frames.get("/"), ":protocol", "websocket"));
        assertEquals("websocket", block.protocol());
        assertTrue(block.malformed().isEmpty());
    }

    @Test
    void fieldsKeepTheirOrderAndRepetitions() {
        HeaderBlock block =
                Harness.server().decode(Frames.with(Frames.get("/"), "cookie", "a=1", "x-a", "1", "cookie", "b=2"));
        assertEquals(3, block.fields().size());
        assertEquals("cookie", block.fields().field(0).name());
        assertEquals("x-a", block.fields().field(1).name());
        assertEquals(java.util.List.of("a=1", "b=2"), block.fields().getAll(HttpHeader.COOKIE));
    }

    @Test
    void aFieldRepeatedFromTheDynamicTableIsTheSameInstanceOnTheNextRequest() {
        Harness harness = Harness.server();
        String[] fields = Frames.with(Frames.get("/"), "user-agent", "h2load nghttp2/1.52.0", "x-custom", "value");
        HeaderBlock first = harness.decode(fields);
        HeaderBlock second = harness.decode(fields);
        HttpField a = first.fields().field(0);
        HttpField b = second.fields().field(0);
        assertSame(a, b, "the field built for the first request is reused: no check, no allocation");
        assertTrue(b.is(HttpHeader.USER_AGENT));
        assertSame(first.fields().field(1), second.fields().field(1));
        assertEquals(first.fields(), second.fields());
        assertTrue(second.malformed().isEmpty());
    }

    @Test
    void aLongFieldIsNotCachedSoThatThePeerCannotMakeTheConnectionHoldMuch() {
        Harness harness = Harness.server();
        String[] fields = Frames.with(Frames.get("/"), "cookie", "c".repeat(600));
        HeaderBlock first = harness.decode(fields);
        HeaderBlock second = harness.decode(fields);
        assertEquals(first.fields(), second.fields());
        assertTrue(first.fields().field(0) != second.fields().field(0), "a long field is built again");
    }

    @Test
    void anInvalidFieldIsNeverServedFromTheCache() {
        Harness harness = Harness.server();
        String[] fields = Frames.with(Frames.get("/"), "x-bad", " padded");
        assertTrue(harness.decode(fields).malformed().isPresent());
        assertTrue(harness.decode(fields).malformed().isPresent(), "the second, table-indexed copy is checked again");
    }

    @Test
    void emptyBlockHasNoPseudoHeaders() {
        Harness harness = Harness.server();
        FrameEvent.Headers headers = assertInstanceOf(
                FrameEvent.Headers.class,
                harness.one(Frames.frame(Frames.HEADERS, Frames.END_HEADERS | Frames.END_STREAM, 1, new byte[0])));
        assertFalse(headers.block().hasPseudoHeaders());
        assertTrue(headers.block().fields().isEmpty());
        assertTrue(headers.block().malformed().isEmpty());
    }
}
