package dev.quarry.http.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.HttpCompliance;
import dev.quarry.http.HttpCompliance.Violation;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each named violation: rejected by default, accepted when allowed, and never where it would enable smuggling. */
class HttpParserComplianceTest {

    private static HttpParserConfig allowing(Violation... violations) {
        return HttpParserConfig.builder()
                .compliance(HttpCompliance.STRICT.with(violations))
                .build();
    }

    /** Parses whole and at every split point; asserts they agree and returns the whole result. */
    private static Recorder parseEverySplit(String message, HttpParserConfig config) {
        Recorder whole = Feeder.parse(message, config);
        byte[] bytes = Feeder.bytes(message);
        for (int split = 1; split < bytes.length; split++) {
            Recorder r = Feeder.parse(bytes, config, List.of(split), split % 2 == 1, false);
            assertEquals(whole.events, r.events, "split at " + split);
        }
        return whole;
    }

    private static void assertRejected(String message, HttpParserConfig config, String reason) {
        Recorder r = parseEverySplit(message, config);
        assertNotNull(r.failure, () -> "accepted: " + r.events);
        assertEquals(400, r.failure.status());
        assertTrue(r.failure.reason().contains(reason), r.failure::reason);
    }

    @Test
    void strictAllowsNothingAndIsTheDefault() {
        assertTrue(HttpCompliance.STRICT.allowed().isEmpty());
        assertEquals(HttpCompliance.STRICT, HttpParserConfig.DEFAULT.compliance());
    }

    @Test
    void everyViolationCitesAnRfcSection() {
        for (Violation violation : Violation.values()) {
            assertTrue(violation.rfcSection().matches("RFC 91\\d\\d §[0-9.]+"), violation::rfcSection);
            assertFalse(violation.description().isBlank());
        }
    }

    @Test
    void legacyAllowsOnlyTheLeniencesThatCannotChangeFraming() {
        assertEquals(
                EnumSet.of(
                        Violation.LF_LINE_TERMINATOR, Violation.DUPLICATE_IDENTICAL_CONTENT_LENGTH, Violation.OBS_FOLD),
                HttpCompliance.LEGACY.allowed());
        assertFalse(HttpCompliance.LEGACY.allows(Violation.WHITESPACE_AFTER_FIELD_NAME));
    }

    @Test
    void withAndWithoutDeriveNamedModes() {
        HttpCompliance mode = HttpCompliance.LEGACY.without(Violation.OBS_FOLD);
        assertFalse(mode.allows(Violation.OBS_FOLD));
        assertTrue(mode.allows(Violation.LF_LINE_TERMINATOR));
        assertTrue(mode.name().startsWith("LEGACY-"));
        assertTrue(HttpCompliance.of("X", EnumSet.of(Violation.OBS_FOLD)).allows(Violation.OBS_FOLD));
    }

    @Test
    void lfLineTerminatorIsAcceptedInRequestLineAndHeadersWhenAllowed() {
        Recorder r = parseEverySplit("\nGET / HTTP/1.1\nHost: h\nX-A: b\r\n\n", allowing(Violation.LF_LINE_TERMINATOR));
        assertNull(r.failure);
        assertEquals(
                List.of(
                        "request GET / HTTP/1.1",
                        "header Host: h",
                        "header X-A: b",
                        "headerComplete",
                        "contentComplete",
                        "messageComplete"),
                r.events);
    }

    @Test
    void lfLineTerminatorNeverAppliesToChunkedFramingOrTrailers() {
        HttpParserConfig config = allowing(Violation.LF_LINE_TERMINATOR);
        String head = "POST / HTTP/1.1\nHost: h\nTransfer-Encoding: chunked\n\n";
        assertRejected(head + "5\nhello\r\n0\r\n\r\n", config, "line ended by LF without CR (RFC 9112 §2.2)");
        assertRejected(head + "5\r\nhello\n0\r\n\r\n", config, "missing CRLF after chunk data");
        assertRejected(head + "0\r\nX: y\n\r\n", config, "line ended by LF without CR");
    }

    @Test
    void bareCrIsRejectedEvenWithLfLineTerminator() {
        assertRejected("GET / HTTP/1.1\nHost: h\rX: y\n\n", allowing(Violation.LF_LINE_TERMINATOR), "bare CR");
    }

    @Test
    void identicalDuplicateContentLengthIsFoldedWhenAllowed() {
        HttpParserConfig config = allowing(Violation.DUPLICATE_IDENTICAL_CONTENT_LENGTH);
        Recorder lines = parseEverySplit(
                "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello", config);
        assertTrue(lines.events.contains("content hello"), lines.events::toString);
        Recorder list = parseEverySplit("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5 ,5\r\n\r\nhello", config);
        assertTrue(list.events.contains("content hello"), list.events::toString);
    }

    @Test
    void differentContentLengthsAreRejectedEvenWhenDuplicatesAreAllowed() {
        HttpParserConfig config = allowing(Violation.DUPLICATE_IDENTICAL_CONTENT_LENGTH);
        assertRejected(
                "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
                config,
                "conflicting Content-Length values");
        assertRejected(
                "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 6\r\n\r\nhello!",
                config,
                "conflicting Content-Length values");
    }

    @Test
    void obsFoldIsReplacedBySpaceWhenAllowed() {
        Recorder r = parseEverySplit(
                "GET / HTTP/1.1\r\nHost: h\r\nX-A: one\r\n  two\r\n\tthree \r\nX-B: b\r\n\r\n",
                allowing(Violation.OBS_FOLD));
        assertNull(r.failure);
        assertTrue(r.events.contains("header X-A: one two three"), r.events::toString);
        assertTrue(r.events.contains("header X-B: b"));
    }

    @Test
    void obsFoldIsNeverAcceptedInFramingOrRoutingFieldsNorBeforeTheFirstField() {
        HttpParserConfig config = allowing(Violation.OBS_FOLD);
        assertRejected(
                "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n",
                config,
                "obsolete line folding");
        assertRejected(
                "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n 0\r\n\r\n", config, "obsolete line folding");
        assertRejected("GET / HTTP/1.1\r\nHost: a\r\n .evil\r\n\r\n", config, "obsolete line folding");
        assertRejected("GET / HTTP/1.1\r\n Host: h\r\n\r\n", config, "whitespace before the first field line");
    }

    @Test
    void obsFoldContinuationIsValidatedLikeAValue() {
        assertRejected(
                "GET / HTTP/1.1\r\nHost: h\r\nX-A: b\r\n c\u0000\r\n\r\n",
                allowing(Violation.OBS_FOLD),
                "invalid character NUL");
    }

    @Test
    void whitespaceAfterFieldNameIsDroppedWhenAllowed() {
        Recorder r = parseEverySplit(
                "GET / HTTP/1.1\r\nHost: h\r\nX-A \t: b\r\n\r\n", allowing(Violation.WHITESPACE_AFTER_FIELD_NAME));
        assertNull(r.failure);
        assertTrue(r.events.contains("header X-A: b"), r.events::toString);
    }

    @Test
    void whitespaceAfterFieldNameNeverEnablesSmuggling() {
        HttpParserConfig config = allowing(Violation.values());
        assertRejected(
                "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n",
                config,
                "whitespace between field name and colon");
        assertRejected(
                "POST / HTTP/1.1\r\nHost: h\r\nContent-Length : 5\r\n\r\nhello",
                config,
                "whitespace between field name and colon");
        assertRejected("GET / HTTP/1.1\r\nHost : evil\r\n\r\n", config, "whitespace between field name and colon");
    }

    @Test
    void neverOfferedRulesStayStrictWithEveryViolationAllowed() {
        HttpParserConfig config = allowing(Violation.values());
        assertRejected(
                "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                config,
                "both Content-Length and Transfer-Encoding");
        assertRejected("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", config, "more than one Host");
        assertRejected("GET / HTTP/1.1\r\n\r\n", config, "missing Host");
        assertRejected("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", config, "HTTP/1.0");
    }
}
