package dev.quarry.http;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Which ambiguous request-target paths {@link UriPath} accepts. The default, {@link #STRICT}, rejects every path whose
 * decoded form could be read differently by another component (a proxy, a file system, an application splitting on
 * {@code /}), which is how path-confusion attacks get past access rules.
 *
 * <p>Never offered: NUL ({@code %00} or raw), a {@code ..} that climbs above the root, invalid UTF-8 (overlong forms
 * included), a malformed percent-encoding, a fragment, raw non-ASCII or control characters. Empty segments
 * ({@code //a}) are always accepted and kept; {@code ;} path parameters are always kept as part of their segment.
 *
 * <p>Thread-safety: immutable. Cost: {@link #allows} is one bit test.
 */
public final class UriCompliance extends ComplianceMode<UriCompliance.Violation> {

    /** An ambiguity of a request-target path. */
    public enum Violation implements ComplianceViolation {
        /**
         * {@code %2F}: an encoded slash is data, not a separator (RFC 3986 §2.2), but decoding it makes one. Allowed,
         * the decoded path contains a {@code /} that did not separate segments when dot segments were resolved: the
         * application must not split the decoded path.
         */
        ENCODED_SLASH("RFC 3986 §2.2", "an encoded slash %2F in the path"),
        /**
         * {@code %5C} or a raw {@code \}: not a URI character (RFC 3986 §2), a path separator on some systems (RFC 3986
         * §7.3).
         */
        BACKSLASH("RFC 3986 §7.3", "a backslash, raw or encoded as %5C, in the path"),
        /**
         * A dot segment written with an encoded dot, e.g. {@code %2e%2e}: RFC 3986 §6.2.2.2 makes it equivalent to
         * {@code ..} only after decoding, after dot segments were removed (§5.2.4). Allowed, it is resolved like a
         * literal dot segment, so it still cannot climb above the root.
         */
        ENCODED_DOT_SEGMENT("RFC 3986 §6.2.2.3", "a dot segment with an encoded dot, e.g. /%2e%2e/"),
        /**
         * A dot segment with a path parameter, e.g. {@code /..;x/}: kept as a literal segment here, but resolved as
         * {@code ..} by servers that strip parameters first (RFC 3986 §3.3).
         */
        DOT_SEGMENT_WITH_PARAMETER("RFC 3986 §3.3", "a dot segment followed by a ;parameter, e.g. /..;/"),
        /**
         * {@code %25} followed by two hex digits, e.g. {@code %2541}: decodes to {@code %41}, which a second decoding
         * by another component would read as {@code A} (RFC 3986 §2.4: never decode twice). A {@code %25} that is not
         * followed by two hex digits ({@code /100%25.txt}) decodes to a {@code %} that no decoding reads again, so it
         * is not ambiguous and always accepted.
         */
        ENCODED_PERCENT("RFC 3986 §2.4", "an encoded percent sign %25 followed by two hex digits, e.g. %2541"),
        /** An encoded control character {@code %01}-{@code %1F} or {@code %7F} (never NUL). */
        ENCODED_CONTROL_CHARACTER("RFC 3986 §2.1", "an encoded control character, e.g. %0A, in the path"),
        /**
         * A raw character that RFC 3986 §2 does not allow in a path but that browsers send: one of
         * {@code " < > [ ] ^ ` { | }}.
         */
        ILLEGAL_PATH_CHARACTER("RFC 3986 §3.3", "a raw \" < > [ ] ^ ` { | or } in the path");

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

    /** Nothing ambiguous allowed: the default. */
    public static final UriCompliance STRICT = new UriCompliance("STRICT", EnumSet.noneOf(Violation.class));

    /**
     * Also allows what browsers and old clients send without ambiguity for this server: raw {@code " < > [ ] ^ ` { | }}
     * and {@code %25} before two hex digits (a file named {@code 50%41.txt}).
     */
    public static final UriCompliance LEGACY =
            new UriCompliance("LEGACY", EnumSet.of(Violation.ILLEGAL_PATH_CHARACTER, Violation.ENCODED_PERCENT));

    private UriCompliance(String name, EnumSet<Violation> allowed) {
        super(name, allowed);
    }

    /**
     * @param name a name for logs and {@code toString()}
     * @param allowed the ambiguities to allow
     * @return a custom mode
     */
    public static UriCompliance of(String name, Set<Violation> allowed) {
        return new UriCompliance(name, combine(Violation.class, allowed, List.of(), List.of()));
    }

    /** @return a mode that also allows {@code violations}, named after this one */
    public UriCompliance with(Violation... violations) {
        return new UriCompliance(
                name() + "+" + Arrays.toString(violations),
                combine(Violation.class, allowed(), List.of(violations), List.of()));
    }
}
