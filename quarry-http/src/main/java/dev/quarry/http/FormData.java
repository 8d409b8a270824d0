package dev.quarry.http;

import dev.quarry.http.internal.HttpChars;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The fields of an {@code application/x-www-form-urlencoded} body (WHATWG URL §5.1, HTML §4.10.21.7): {@code &}-separated
 * {@code name=value} pairs, {@code +} decoded as SP and {@code %XX} as a byte, the bytes decoded with a charset (UTF-8
 * unless the sender said otherwise). Names repeat; a pair without {@code =} has the empty value; empty pairs are
 * skipped.
 *
 * <p>Errors: a {@code %} not followed by two hex digits, or bytes that are not valid in the charset, are a 400 naming
 * the offending pair; more than {@code maxFields} pairs is a 413.
 *
 * <p>Thread-safety: immutable. Cost: O(n) parse, one scratch array of the body's size; names and values are decoded
 * eagerly.
 */
public final class FormData {
    /** The default limit on the number of fields. */
    public static final int DEFAULT_MAX_FIELDS = 1000;

    private static final FormData EMPTY = new FormData(Map.of(), 0);

    private final Map<String, List<String>> fields;
    private final int size;

    private FormData(Map<String, List<String>> fields, int size) {
        this.fields = fields;
        this.size = size;
    }

    /**
     * Parses UTF-8 with {@link #DEFAULT_MAX_FIELDS}.
     *
     * @param body the body
     * @return the fields
     * @throws HttpException 400 or 413 naming the problem
     */
    public static FormData parse(String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return parse(bytes, 0, bytes.length, StandardCharsets.UTF_8, DEFAULT_MAX_FIELDS);
    }

    /**
     * @param bytes the body
     * @param offset where it starts
     * @param length how many bytes
     * @param charset what the percent-decoded bytes are encoded with
     * @param maxFields the most name/value pairs to accept
     * @return the fields
     * @throws HttpException 400 for a malformed body, 413 beyond {@code maxFields}
     */
    public static FormData parse(byte[] bytes, int offset, int length, Charset charset, int maxFields) {
        if (length == 0) {
            return EMPTY;
        }
        Decoder decoder = new Decoder(bytes, offset, length, charset);
        Map<String, List<String>> map = new LinkedHashMap<>();
        int count = 0;
        int end = offset + length;
        int from = offset;
        while (from < end) {
            int to = from;
            while (to < end && bytes[to] != '&') {
                to++;
            }
            if (to > from) {
                if (++count > maxFields) {
                    throw new HttpException(
                            HttpStatus.CONTENT_TOO_LARGE_413, "too many form fields: more than " + maxFields);
                }
                int equals = from;
                while (equals < to && bytes[equals] != '=') {
                    equals++;
                }
                String name = decoder.decode(from, equals, to);
                String value = equals == to ? "" : decoder.decode(equals + 1, to, to);
                map.computeIfAbsent(name, n -> new ArrayList<>(1)).add(value);
            }
            from = to + 1;
        }
        map.replaceAll((name, values) -> Collections.unmodifiableList(values));
        return new FormData(Collections.unmodifiableMap(map), count);
    }

    /** @return the first value of {@code name} */
    public Optional<String> get(String name) {
        List<String> values = fields.get(name);
        return values == null ? Optional.empty() : Optional.of(values.get(0));
    }

    /** @return every value of {@code name}, in order; empty if absent */
    public List<String> getAll(String name) {
        return fields.getOrDefault(name, List.of());
    }

    /** @return the distinct names, in first-arrival order */
    public Set<String> names() {
        return fields.keySet();
    }

    /** @return the names and their values, in first-arrival order; unmodifiable */
    public Map<String, List<String>> asMap() {
        return fields;
    }

    /** @return the number of name/value pairs */
    public int size() {
        return size;
    }

    @Override
    public String toString() {
        return fields.toString();
    }

    /** Percent-decodes components into one scratch array and decodes them strictly with the charset. */
    private static final class Decoder {
        private final byte[] bytes;
        private final byte[] scratch;
        private final int offset;
        private final CharsetDecoder charsetDecoder;
        // Whether plain ASCII bytes mean themselves in the charset: the common case then needs no decoder.
        private final boolean asciiCompatible;

        Decoder(byte[] bytes, int offset, int length, Charset charset) {
            this.bytes = bytes;
            this.offset = offset;
            this.asciiCompatible = charset.equals(StandardCharsets.UTF_8)
                    || charset.equals(StandardCharsets.ISO_8859_1)
                    || charset.equals(StandardCharsets.US_ASCII);
            this.scratch = new byte[length];
            this.charsetDecoder = charset.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT);
        }

        /** Decodes {@code bytes[from, to)}; {@code pairEnd} bounds the excerpt quoted in an error. */
        String decode(int from, int to, int pairEnd) {
            boolean ascii = true;
            for (int i = from; i < to && ascii; i++) {
                byte b = bytes[i];
                ascii = b >= 0 && b != '%' && b != '+';
            }
            if (ascii && asciiCompatible) {
                return new String(bytes, from, to - from, StandardCharsets.ISO_8859_1);
            }
            int n = 0;
            for (int i = from; i < to; i++) {
                byte b = bytes[i];
                if (b == '+') {
                    scratch[n++] = ' ';
                } else if (b == '%') {
                    int hi = i + 2 < to ? HttpChars.hexValue(bytes[i + 1]) : -1;
                    int lo = i + 2 < to ? HttpChars.hexValue(bytes[i + 2]) : -1;
                    if (hi < 0 || lo < 0) {
                        throw new BadMessageException("invalid percent-encoding in form field: "
                                + HttpChars.quote(bytes, pairStart(from), pairEnd));
                    }
                    scratch[n++] = (byte) (hi << 4 | lo);
                    i += 2;
                } else {
                    scratch[n++] = b;
                }
            }
            try {
                return charsetDecoder
                        .reset()
                        .decode(ByteBuffer.wrap(scratch, 0, n))
                        .toString();
            } catch (CharacterCodingException x) {
                throw new BadMessageException(
                        "invalid " + charsetDecoder.charset().name() + " in form field: "
                                + HttpChars.quote(bytes, pairStart(from), pairEnd),
                        x);
            }
        }

        private int pairStart(int from) {
            while (from > offset && bytes[from - 1] != '&') {
                from--;
            }
            return from;
        }
    }
}
