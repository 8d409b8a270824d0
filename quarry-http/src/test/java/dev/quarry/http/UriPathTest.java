package dev.quarry.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A table of tricky paths: the decoded, normalised path, or the rejection and what its reason names. */
class UriPathTest {

    static Stream<Arguments> accepted() {
        return Stream.of(
                Arguments.of("/", "/"),
                Arguments.of("/a/b", "/a/b"),
                Arguments.of("/a/../b", "/b"),
                Arguments.of("/a/./b", "/a/b"),
                Arguments.of("/a/b/../../c", "/c"),
                Arguments.of("/a/..", "/"),
                Arguments.of("/a/.", "/a/"),
                Arguments.of("/a/./b/.", "/a/b/"),
                Arguments.of("/./a", "/a"),
                Arguments.of("//a", "//a"),
                Arguments.of("/a//b/", "/a//b/"),
                Arguments.of("/a//../b", "/a/b"),
                Arguments.of("/.hidden/..x/...", "/.hidden/..x/..."),
                Arguments.of("/a;v=1/b;x", "/a;v=1/b;x"),
                Arguments.of("/caf%C3%A9", "/caf\u00e9"),
                Arguments.of("/%E2%82%AC", "/\u20ac"),
                Arguments.of("/%F0%9F%98%80", "/\ud83d\ude00"),
                Arguments.of("/a%20b", "/a b"),
                Arguments.of("/100%25.txt", "/100%.txt"),
                Arguments.of("/100%25", "/100%"),
                Arguments.of("/50%25off/%25%25", "/50%off/%%"),
                Arguments.of("/%25G1/%254/%25", "/%G1/%4/%"),
                Arguments.of("/%41%62", "/Ab"),
                Arguments.of("/a:b@c!$&'()*+,;=-._~", "/a:b@c!$&'()*+,;=-._~"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("accepted")
    void decodesAndNormalises(String raw, String expected) {
        assertEquals(expected, UriPath.decode(raw));
    }

    static Stream<Arguments> rejected() {
        return Stream.of(
                Arguments.of("/%2e%2e/", "encoded dot segment"),
                Arguments.of("/%2E%2E/etc", "encoded dot segment"),
                Arguments.of("/.%2e/", "encoded dot segment"),
                Arguments.of("/a/%2e/b", "encoded dot segment"),
                Arguments.of("/a/%2e%2e", "encoded dot segment"),
                Arguments.of("/..%2f", "encoded slash %2F"),
                Arguments.of("/a%2Fb", "encoded slash %2F"),
                Arguments.of("/a%2fb", "encoded slash %2F"),
                Arguments.of("/a%5Cb", "encoded backslash %5C"),
                Arguments.of("/a\\b", "backslash"),
                Arguments.of("/a%00b", "encoded NUL"),
                Arguments.of("/a\u0000b", "invalid character NUL"),
                Arguments.of("/a%0Ab", "encoded control character LF"),
                Arguments.of("/a%7F", "encoded control character 0x7F"),
                Arguments.of("/a%2541", "encoded percent %25 before two hex digits"),
                Arguments.of("/a%25ff.txt", "encoded percent %25 before two hex digits"),
                Arguments.of("/a%25%34%31", "encoded percent %25 before two hex digits"),
                Arguments.of("/a%25%2541", "encoded percent %25 before two hex digits"),
                Arguments.of("/..;/admin", "dot segment with parameter"),
                Arguments.of("/a/.;x/b", "dot segment with parameter"),
                Arguments.of("/..", "climbs above the root"),
                Arguments.of("/a/../..", "climbs above the root"),
                Arguments.of("/a/b/../../../c", "climbs above the root"),
                Arguments.of("/%C0%AE", "invalid UTF-8"),
                Arguments.of("/%C0%AE%C0%AE/", "invalid UTF-8"),
                Arguments.of("/%ED%A0%80", "invalid UTF-8"),
                Arguments.of("/%FF", "invalid UTF-8"),
                Arguments.of("/%C3", "invalid UTF-8"),
                Arguments.of("/\u00e9", "invalid character 0xE9"),
                Arguments.of("/\u20ac", "invalid character U+20AC"),
                Arguments.of("/a b", "invalid character SP"),
                Arguments.of("/a#b", "invalid character '#'"),
                Arguments.of("/a{b}", "character '{'"),
                Arguments.of("/a|b", "character '|'"),
                Arguments.of("/%zz", "invalid percent-encoding"),
                Arguments.of("/%2", "invalid percent-encoding"),
                Arguments.of("/%", "invalid percent-encoding"),
                Arguments.of("/%u002e", "invalid percent-encoding"),
                Arguments.of("a/b", "does not start with /"),
                Arguments.of("", "does not start with /"));
    }

    @ParameterizedTest(name = "{0} rejected: {1}")
    @MethodSource("rejected")
    void rejectsAmbiguousOrInvalidPaths(String raw, String reason) {
        BadMessageException x = assertThrows(BadMessageException.class, () -> UriPath.decode(raw));
        assertEquals(400, x.status());
        assertTrue(x.reason().contains(reason), () -> "\"" + x.reason() + "\" does not name \"" + reason + "\"");
    }

    @Test
    void plainPathIsReturnedAsIs() {
        String path = "/plaintext/a-b_c.txt";
        assertSame(path, UriPath.decode(path));
    }

    @Test
    void reasonNamesTheViolationAndItsRfcSection() {
        BadMessageException x = assertThrows(BadMessageException.class, () -> UriPath.decode("/a%2Fb"));
        assertTrue(
                x.reason().contains("ENCODED_SLASH, RFC 3986 §2.2")
                        && x.reason().contains("\"/a%2Fb\""),
                x::reason);
    }

    @Test
    void eachViolationIsAcceptedWhenAllowed() {
        assertEquals(
                "/a/b", UriPath.decode("/a%2Fb", UriCompliance.STRICT.with(UriCompliance.Violation.ENCODED_SLASH)));
        assertEquals("/a\\b", UriPath.decode("/a%5Cb", UriCompliance.STRICT.with(UriCompliance.Violation.BACKSLASH)));
        assertEquals("/a\\b", UriPath.decode("/a\\b", UriCompliance.STRICT.with(UriCompliance.Violation.BACKSLASH)));
        assertEquals("/a%41", UriPath.decode("/a%2541", UriCompliance.LEGACY));
        assertEquals("/a{b}", UriPath.decode("/a{b}", UriCompliance.LEGACY));
        assertEquals(
                "/a\nb",
                UriPath.decode("/a%0Ab", UriCompliance.STRICT.with(UriCompliance.Violation.ENCODED_CONTROL_CHARACTER)));
        assertEquals(
                "/..;/admin",
                UriPath.decode(
                        "/..;/admin", UriCompliance.STRICT.with(UriCompliance.Violation.DOT_SEGMENT_WITH_PARAMETER)));
    }

    @Test
    void allowedEncodedDotSegmentsAreResolvedAndStillCannotClimbAboveTheRoot() {
        UriCompliance lenient = UriCompliance.STRICT.with(UriCompliance.Violation.ENCODED_DOT_SEGMENT);
        assertEquals("/b", UriPath.decode("/a/%2e%2e/b", lenient));
        assertEquals("/a/b", UriPath.decode("/a/%2e/b", lenient));
        assertThrows(BadMessageException.class, () -> UriPath.decode("/%2e%2e/etc/passwd", lenient));
    }

    @Test
    void nulIsNeverAllowed() {
        UriCompliance everything = UriCompliance.of("ALL", java.util.EnumSet.allOf(UriCompliance.Violation.class));
        assertThrows(BadMessageException.class, () -> UriPath.decode("/a%00", everything));
        assertThrows(BadMessageException.class, () -> UriPath.decode("/a\u0000", everything));
        assertThrows(BadMessageException.class, () -> UriPath.decode("/%C0%AE", everything));
    }

    @Test
    void everyViolationCitesAnRfcSection() {
        for (UriCompliance.Violation violation : UriCompliance.Violation.values()) {
            assertTrue(violation.rfcSection().startsWith("RFC 3986 §"), violation::rfcSection);
        }
        assertTrue(UriCompliance.STRICT.allowed().isEmpty());
    }
}
