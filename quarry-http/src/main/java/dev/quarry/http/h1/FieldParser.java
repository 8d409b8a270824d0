package dev.quarry.http.h1;

import dev.quarry.http.BadMessageException;
import dev.quarry.http.HttpCompliance;
import dev.quarry.http.HttpField;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.internal.HttpChars;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Parses one field line {@code field-name ":" OWS field-value OWS} (RFC 9112 §5) from bytes, validating every byte.
 *
 * <p>The name must be a non-empty token followed directly by the colon; the value may contain VCHAR, obs-text, SP and
 * HTAB only, so CR, LF, NUL and the other control characters are rejected with a reason that names them. A well-known
 * name costs no allocation; a cached value costs none either (see {@link FieldCache}); otherwise one string per name
 * and per value (ISO-8859-1, RFC 9110 §5.5).
 *
 * <p>Thread-safety: confined to its parser's thread.
 */
final class FieldParser {
    private final HttpCompliance compliance;
    private final FieldCache cache = new FieldCache();
    /** Whether the last parsed field came from the cache. */
    private boolean cached;

    FieldParser(HttpCompliance compliance) {
        this.compliance = compliance;
    }

    /**
     * @param bytes holds the line
     * @param from its first byte, not SP or HTAB (the caller handles obs-fold)
     * @param to the index after its last byte, CRLF excluded
     * @return the field
     * @throws BadMessageException 400 naming the problem
     */
    HttpField parse(byte[] bytes, int from, int to) {
        int i = from;
        while (i < to && HttpChars.isTChar(bytes[i])) {
            i++;
        }
        int nameEnd = i;
        if (i == to) {
            throw new BadMessageException("field line without colon: " + HttpChars.quote(bytes, from, to));
        }
        if (bytes[i] != ':') {
            if (!HttpChars.isWhitespace(bytes[i])) {
                throw new BadMessageException("invalid character " + HttpChars.describe(bytes[i]) + " in field name: "
                        + HttpChars.quote(bytes, from, to));
            }
            while (i < to && HttpChars.isWhitespace(bytes[i])) {
                i++;
            }
            if (i == to || bytes[i] != ':' || nameEnd == from) {
                throw new BadMessageException("whitespace in field name: " + HttpChars.quote(bytes, from, to));
            }
            HttpHeader header = HttpHeader.lookup(bytes, from, nameEnd).orElse(null);
            if (!compliance.allows(HttpCompliance.Violation.WHITESPACE_AFTER_FIELD_NAME)
                    || isFramingOrRouting(header)) {
                throw new BadMessageException("whitespace between field name and colon ("
                        + HttpCompliance.Violation.WHITESPACE_AFTER_FIELD_NAME.rfcSection() + "): "
                        + HttpChars.quote(bytes, from, to));
            }
        }
        if (nameEnd == from) {
            throw new BadMessageException("empty field name: " + HttpChars.quote(bytes, from, to));
        }
        int valueStart = i + 1;
        int valueEnd = to;
        while (valueStart < valueEnd && HttpChars.isWhitespace(bytes[valueStart])) {
            valueStart++;
        }
        while (valueEnd > valueStart && HttpChars.isWhitespace(bytes[valueEnd - 1])) {
            valueEnd--;
        }
        checkValue(bytes, valueStart, valueEnd, from, nameEnd);
        Optional<HttpHeader> known = HttpHeader.lookup(bytes, from, nameEnd);
        if (known.isPresent()) {
            HttpHeader header = known.get();
            HttpField field = cache.lookup(header, bytes, valueStart, valueEnd);
            if (field != null) {
                cached = true;
                return field;
            }
            cached = false;
            return new HttpField(
                    header, new String(bytes, valueStart, valueEnd - valueStart, StandardCharsets.ISO_8859_1));
        }
        cached = false;
        return HttpField.of(
                known,
                new String(bytes, from, nameEnd - from, StandardCharsets.ISO_8859_1),
                new String(bytes, valueStart, valueEnd - valueStart, StandardCharsets.ISO_8859_1));
    }

    /**
     * Validates an obs-fold continuation line and returns its value, trimmed.
     *
     * @throws BadMessageException 400 naming the problem
     */
    String continuation(byte[] bytes, int from, int to) {
        int s = from;
        int e = to;
        while (s < e && HttpChars.isWhitespace(bytes[s])) {
            s++;
        }
        while (e > s && HttpChars.isWhitespace(bytes[e - 1])) {
            e--;
        }
        checkValue(bytes, s, e, from, from);
        return new String(bytes, s, e - s, StandardCharsets.ISO_8859_1);
    }

    private static void checkValue(byte[] bytes, int from, int to, int nameFrom, int nameTo) {
        int invalid = HttpChars.indexOfInvalidFieldContent(bytes, from, to);
        if (invalid >= 0) {
            byte b = bytes[invalid];
            String where = nameTo > nameFrom
                    ? " in value of " + new String(bytes, nameFrom, nameTo - nameFrom, StandardCharsets.ISO_8859_1)
                    : " in field value";
            throw new BadMessageException((b == '\r' ? "bare CR" : "invalid character " + HttpChars.describe(b)) + where
                    + ": " + HttpChars.quote(bytes, from, to));
        }
    }

    /** Learns a validated field that missed the cache, for the next requests of this connection. */
    void learn(HttpHeader header, HttpField field) {
        cache.learn(header, field);
    }

    /** @return whether the last field returned by {@link #parse} came from the cache */
    boolean lastWasCached() {
        return cached;
    }

    /** @return the number of fields learned by this connection */
    int learnedCount() {
        return cache.learnedCount();
    }

    /**
     * Fields whose lenient parsing could make a proxy and this server disagree on framing or routing: whitespace before
     * the colon and obs-fold are never accepted for them.
     */
    static boolean isFramingOrRouting(HttpHeader header) {
        return header == HttpHeader.CONTENT_LENGTH
                || header == HttpHeader.TRANSFER_ENCODING
                || header == HttpHeader.HOST;
    }
}
