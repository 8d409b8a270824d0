package dev.quarry.http;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Which departures from the HTTP/1.1 message grammar (RFC 9112, RFC 9110) the parser allows. The default,
 * {@link #STRICT}, allows none.
 *
 * <p>Some leniencies are deliberately not offered, because every one of them enables request smuggling or is forbidden
 * by a MUST: both Content-Length and Transfer-Encoding (always 400, RFC 9112 §6.1 and §6.3), more than one Host or a
 * missing Host in HTTP/1.1 (always 400, RFC 9112 §3.2), Transfer-Encoding in HTTP/1.0 (RFC 9112 §6.1), differing
 * Content-Length values (RFC 9110 §8.6), a bare CR (RFC 9112 §2.2), a line feed alone in chunked framing, and
 * whitespace before the colon of a framing or routing field even when {@link Violation#WHITESPACE_AFTER_FIELD_NAME} is
 * allowed.
 *
 * <p>Thread-safety: immutable. Cost: {@link #allows} is one bit test.
 */
public final class HttpCompliance extends ComplianceMode<HttpCompliance.Violation> {

    /** A leniency of the HTTP/1.1 parser. */
    public enum Violation implements ComplianceViolation {
        /**
         * A line ended by LF alone in the request line or the header section. A recipient MAY accept it (RFC 9112
         * §2.2); chunked framing and trailers always require CRLF, and a bare CR is always rejected.
         */
        LF_LINE_TERMINATOR("RFC 9112 §2.2", "a request line or header field line ended by LF without CR"),
        /**
         * Several Content-Length field lines, or a list, whose values are all the same valid number; a recipient MAY
         * replace them with the single value (RFC 9110 §8.6). Different values are always rejected.
         */
        DUPLICATE_IDENTICAL_CONTENT_LENGTH(
                "RFC 9110 §8.6", "repeated Content-Length values that are identical, e.g. \"Content-Length: 5, 5\""),
        /**
         * A field value continued on the next line (obsolete line folding): the server MAY replace each fold with SP
         * instead of rejecting it (RFC 9112 §5.2). A fold in Content-Length, Transfer-Encoding or Host, and a fold
         * before the first field, are always rejected.
         */
        OBS_FOLD("RFC 9112 §5.2", "a field value folded onto a continuation line starting with SP or HTAB"),
        /**
         * Whitespace between a field name and its colon, which the server MUST reject (RFC 9112 §5.1); allowing it
         * drops the whitespace, except for Content-Length, Transfer-Encoding and Host, which are always rejected
         * because a proxy that keeps the whitespace in the name would frame or route the message differently.
         */
        WHITESPACE_AFTER_FIELD_NAME("RFC 9112 §5.1", "whitespace between a field name and the colon");

        private final String section;
        private final String description;

        Violation(String section, String description) {
            this.section = section;
            this.description = description;
        }

        @Override
        public String rfcSection() {
            return section;
        }

        @Override
        public String description() {
            return description;
        }
    }

    /** Nothing allowed: the default. */
    public static final HttpCompliance STRICT = new HttpCompliance("STRICT", EnumSet.noneOf(Violation.class));

    /**
     * The leniencies that the RFCs permit and that cannot change how a message is framed: LF line terminators,
     * identical duplicate Content-Length values and obs-fold outside framing fields. For old clients behind no proxy.
     */
    public static final HttpCompliance LEGACY = new HttpCompliance(
            "LEGACY",
            EnumSet.of(Violation.LF_LINE_TERMINATOR, Violation.DUPLICATE_IDENTICAL_CONTENT_LENGTH, Violation.OBS_FOLD));

    private HttpCompliance(String name, EnumSet<Violation> allowed) {
        super(name, allowed);
    }

    /**
     * @param name a name for logs and {@code toString()}
     * @param allowed the leniencies to allow
     * @return a custom mode
     */
    public static HttpCompliance of(String name, Set<Violation> allowed) {
        return new HttpCompliance(name, combine(Violation.class, allowed, List.of(), List.of()));
    }

    /** @return a mode that also allows {@code violations}, named after this one */
    public HttpCompliance with(Violation... violations) {
        return new HttpCompliance(
                name() + "+" + Arrays.toString(violations),
                combine(Violation.class, allowed(), List.of(violations), List.of()));
    }

    /** @return a mode that no longer allows {@code violations}, named after this one */
    public HttpCompliance without(Violation... violations) {
        return new HttpCompliance(
                name() + "-" + Arrays.toString(violations),
                combine(Violation.class, allowed(), List.of(), List.of(violations)));
    }
}
