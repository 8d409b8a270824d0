package dev.quarry.http.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.HttpFields;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The request and trailer rules of RFC 9113 8.1-8.3 and 8.5, on blocks decoded by a server-side parser. */
class Http2MessagesTest {

    private static HeaderBlock decode(String... fields) {
        return Harness.server().decode(fields);
    }

    private static void assertMalformed(String reason, String... fields) {
        Http2Exception error = assertThrows(Http2Exception.class, () -> Http2Messages.request(7, decode(fields)));
        assertEquals(ErrorCode.PROTOCOL_ERROR, error.error());
        assertEquals(7, error.streamId(), "a stream error");
        assertTrue(error.getMessage().contains(reason), error.getMessage());
    }

    @Test
    void aMinimalGetIsARequest() {
        RequestHead head = Http2Messages.request(1, decode(Frames.get("/index.html?x=1")));
        assertEquals("GET", head.method());
        assertEquals("https", head.scheme());
        assertEquals("example.com", head.authority());
        assertEquals("/index.html?x=1", head.path());
        assertEquals(-1, head.contentLength());
        assertTrue(head.fields().isEmpty());
    }

    static Stream<Arguments> malformedRequests() {
        return Stream.of(
                Arguments.of("missing :method", new String[] {":scheme", "https", ":path", "/"}),
                Arguments.of("missing :scheme", new String[] {":method", "GET", ":path", "/"}),
                Arguments.of("missing :path", new String[] {":method", "GET", ":scheme", "https"}),
                Arguments.of("empty :path", Frames.get("")),
                Arguments.of(":path must begin with", Frames.get("index.html")),
                Arguments.of("only OPTIONS", Frames.get("*")),
                Arguments.of(
                        ":method is not a token", new String[] {":method", "G T", ":scheme", "https", ":path", "/"}),
                Arguments.of(":method is not a token", new String[] {":method", "", ":scheme", "https", ":path", "/"}),
                Arguments.of("invalid :scheme", new String[] {":method", "GET", ":scheme", "1ttp", ":path", "/"}),
                Arguments.of("invalid :scheme", new String[] {":method", "GET", ":scheme", "", ":path", "/"}),
                Arguments.of(
                        "SETTINGS_ENABLE_CONNECT_PROTOCOL", Frames.with(Frames.get("/"), ":protocol", "websocket")),
                Arguments.of(
                        "CONNECT with :scheme or :path",
                        new String[] {":method", "CONNECT", ":authority", "example.com:443", ":path", "/"}),
                Arguments.of(
                        "CONNECT with :scheme or :path",
                        new String[] {":method", "CONNECT", ":scheme", "https", ":authority", "example.com:443"}),
                Arguments.of("CONNECT without :authority", new String[] {":method", "CONNECT"}),
                Arguments.of("differs from :authority", Frames.with(Frames.get("/"), "host", "other.example.com")),
                Arguments.of("more than one host", new String[] {
                    ":method", "GET", ":scheme", "https", ":path", "/", "host", "a.com", "host", "a.com"
                }),
                Arguments.of("userinfo", new String[] {
                    ":method", "GET", ":scheme", "https", ":authority", "user@example.com", ":path", "/"
                }),
                Arguments.of(
                        "empty :authority",
                        new String[] {":method", "GET", ":scheme", "https", ":authority", "", ":path", "/"}),
                Arguments.of("invalid content-length", Frames.with(Frames.get("/"), "content-length", "12a")),
                Arguments.of("invalid content-length", Frames.with(Frames.get("/"), "content-length", "")),
                Arguments.of("invalid content-length", Frames.with(Frames.get("/"), "content-length", "+12")),
                Arguments.of("invalid content-length", Frames.with(Frames.get("/"), "content-length", "1, 1")),
                Arguments.of("invalid content-length", Frames.with(Frames.get("/"), "content-length", "1".repeat(19))),
                Arguments.of(
                        "conflicting content-length",
                        Frames.with(Frames.get("/"), "content-length", "1", "content-length", "2")),
                Arguments.of("uppercase", Frames.with(Frames.get("/"), "Accept", "*/*")),
                Arguments.of("te other than", Frames.with(Frames.get("/"), "te", "deflate")),
                Arguments.of("response pseudo-header", Frames.with(Frames.get("/"), ":status", "200")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedRequests")
    void aMalformedRequestIsAStreamProtocolErrorNamingTheRule(String reason, String[] fields) {
        assertMalformed(reason, fields);
    }

    @Test
    void optionsMayUseTheAsteriskForm() {
        RequestHead head = Http2Messages.request(
                1, decode(":method", "OPTIONS", ":scheme", "https", ":authority", "example.com", ":path", "*"));
        assertEquals("*", head.path());
    }

    @Test
    void connectNeedsOnlyMethodAndAuthority() {
        RequestHead head = Http2Messages.request(1, decode(":method", "CONNECT", ":authority", "example.com:443"));
        assertEquals("CONNECT", head.method());
        assertNull(head.scheme());
        assertNull(head.path());
        assertEquals("example.com:443", head.authority());
    }

    @Test
    void theHostFieldStandsInForAMissingAuthority() {
        RequestHead head = Http2Messages.request(
                1, decode(":method", "GET", ":scheme", "http", ":path", "/", "host", "example.org:8080"));
        assertEquals("example.org:8080", head.authority());
        assertEquals("example.org:8080", head.fields().get("host").orElseThrow(), "Host stays in the fields");
    }

    @Test
    void hostEqualToTheAuthorityIgnoringCaseIsAccepted() {
        RequestHead head = Http2Messages.request(1, decode(Frames.with(Frames.get("/"), "host", "EXAMPLE.com")));
        assertEquals("example.com", head.authority());
    }

    @Test
    void noAuthorityAtAllIsAnEmptyAuthority() {
        RequestHead head = Http2Messages.request(1, decode(":method", "GET", ":scheme", "http", ":path", "/"));
        assertEquals("", head.authority());
    }

    @Test
    void contentLengthIsParsedAndRepeatedEqualValuesAreAccepted() {
        RequestHead head = Http2Messages.request(
                1, decode(Frames.with(Frames.get("/"), "content-length", "123", "content-length", "123")));
        assertEquals(123, head.contentLength());
        assertEquals(
                0,
                Http2Messages.request(1, decode(Frames.with(Frames.get("/"), "content-length", "0")))
                        .contentLength());
    }

    @Test
    void otherSchemesMayHaveAnyNonEmptyPath() {
        RequestHead head =
                Http2Messages.request(1, decode(":method", "GET", ":scheme", "foo+bar", ":path", "opaque-thing"));
        assertEquals("opaque-thing", head.path());
    }

    @Test
    void trailersAreTheRegularFields() {
        HttpFields trailers = Http2Messages.trailers(3, decode("x-checksum", "abc", "grpc-status", "0"));
        assertEquals(2, trailers.size());
        assertEquals("abc", trailers.get("x-checksum").orElseThrow());
    }

    @Test
    void emptyTrailersAreValid() {
        assertTrue(Http2Messages.trailers(3, decode()).isEmpty());
    }

    @Test
    void aPseudoHeaderInTrailersIsMalformed() {
        Http2Exception error =
                assertThrows(Http2Exception.class, () -> Http2Messages.trailers(3, decode(":path", "/", "x-a", "1")));
        assertEquals(ErrorCode.PROTOCOL_ERROR, error.error());
        assertEquals(3, error.streamId());
        assertTrue(error.getMessage().contains("pseudo-header in trailers"), error.getMessage());
    }

    @Test
    void trailersFollowTheFieldRules() {
        Http2Exception error = assertThrows(
                Http2Exception.class, () -> Http2Messages.trailers(3, decode("transfer-encoding", "chunked")));
        assertTrue(error.getMessage().contains("connection-specific"), error.getMessage());
        error = assertThrows(Http2Exception.class, () -> Http2Messages.trailers(3, decode("X-Upper", "1")));
        assertTrue(error.getMessage().contains("uppercase"), error.getMessage());
    }

    @Test
    void aFieldForbiddenInTrailersIsMalformed() {
        Http2Exception error =
                assertThrows(Http2Exception.class, () -> Http2Messages.trailers(3, decode("content-length", "5")));
        assertTrue(error.getMessage().contains("not allowed in trailers"), error.getMessage());
    }
}
