package dev.quarry.http;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * One field line: a name and a value (RFC 9110 §5), shared by HTTP/1.1 and HTTP/2.
 *
 * <p>A field whose name is well-known carries its {@link HttpHeader}, so that lookups compare enum identity instead of
 * strings; the invariant is that {@link #header()} is present exactly when the name is a well-known one, whatever its
 * case. The name keeps the spelling it was given; encoders of well-known fields use the canonical spelling.
 *
 * <p>Construction does not validate the characters of the name or the value: the parser validated what it received,
 * and the generator rejects CR, LF and other control characters when it encodes, so that header injection is
 * impossible on the wire. {@link PreEncodedHttpField} validates at construction.
 *
 * <p>Thread-safety: immutable (the lower-case name of a field that is not well-known is computed lazily and cached with
 * a benign race).
 */
public class HttpField {
    private final HttpHeader header;
    private final String name;
    private final String value;
    private String lowerCaseName;

    /**
     * A well-known field, named with the canonical spelling.
     *
     * @param header the field's name
     * @param value its value, without leading or trailing whitespace
     */
    public HttpField(HttpHeader header, String value) {
        this(Objects.requireNonNull(header, "header"), header.asString(), value);
    }

    /**
     * A field by name; a well-known name is recognised whatever its case.
     *
     * @param name the field name, not empty
     * @param value its value, without leading or trailing whitespace
     */
    public HttpField(String name, String value) {
        this(HttpHeader.lookup(name).orElse(null), name, value);
    }

    /**
     * @param header the well-known header that {@code name} spells, or null when it is not well-known: the caller
     *     guarantees the invariant (the parser, which already looked the name up)
     * @param name the field name as received
     * @param value its value
     */
    protected HttpField(HttpHeader header, String name, String value) {
        this.header = header;
        this.name = Objects.requireNonNull(name, "name");
        this.value = Objects.requireNonNull(value, "value");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("empty field name");
        }
        if (header != null) {
            lowerCaseName = header.lowerCaseName();
        }
    }

    /**
     * A field whose header was already looked up, for decoders (HTTP/1 parser, HPACK) that recognise the name from
     * its bytes; {@code header} must be the lookup result of {@code name}.
     *
     * @param header the well-known header, or empty when {@code name} is not well-known
     * @param name the name as received
     * @param value the value
     * @return the field
     */
    public static HttpField of(Optional<HttpHeader> header, String name, String value) {
        return new HttpField(header.orElse(null), name, value);
    }

    /** @return the well-known header this field is, or empty */
    public final Optional<HttpHeader> header() {
        return header == null ? Optional.empty() : header.asOptional();
    }

    /** @return whether this field is the given well-known header (an identity comparison) */
    public final boolean is(HttpHeader header) {
        return this.header == header;
    }

    /** @return whether this field has the given name, ignoring case */
    public final boolean is(String name) {
        return this.name.equalsIgnoreCase(name);
    }

    /** @return the name as given or received */
    public final String name() {
        return name;
    }

    /** @return the value, without leading or trailing whitespace */
    public final String value() {
        return value;
    }

    /** @return the name in lower case, as HTTP/2 sends it */
    public final String lowerCaseName() {
        String lower = lowerCaseName;
        if (lower == null) {
            lower = name.toLowerCase(Locale.ROOT);
            lowerCaseName = lower;
        }
        return lower;
    }

    /** The well-known header or null; for encoders in this module that switch on it. */
    final HttpHeader headerOrNull() {
        return header;
    }

    /**
     * Whether the value, read as a comma-separated list (RFC 9110 §5.6.1), has an element equal to {@code token},
     * ignoring case and parameters, e.g. {@code close} in {@code Connection: Upgrade, close}.
     *
     * @param token the token to find
     * @return whether it is an element of the list
     */
    public final boolean containsToken(String token) {
        String v = value;
        int length = v.length();
        int start = 0;
        while (start <= length) {
            int comma = v.indexOf(',', start);
            int end = comma < 0 ? length : comma;
            int elementEnd = v.indexOf(';', start);
            if (elementEnd < 0 || elementEnd > end) {
                elementEnd = end;
            }
            int s = start;
            int e = elementEnd;
            while (s < e && (v.charAt(s) == ' ' || v.charAt(s) == '\t')) {
                s++;
            }
            while (e > s && (v.charAt(e - 1) == ' ' || v.charAt(e - 1) == '\t')) {
                e--;
            }
            if (e - s == token.length() && v.regionMatches(true, s, token, 0, token.length())) {
                return true;
            }
            if (comma < 0) {
                return false;
            }
            start = comma + 1;
        }
        return false;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof HttpField field
                && (header != null ? header == field.header : name.equalsIgnoreCase(field.name))
                && value.equals(field.value);
    }

    @Override
    public int hashCode() {
        return lowerCaseName().hashCode() * 31 + value.hashCode();
    }

    @Override
    public String toString() {
        return name + ": " + value;
    }
}
