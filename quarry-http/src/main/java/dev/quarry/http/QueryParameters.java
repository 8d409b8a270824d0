package dev.quarry.http;

import dev.quarry.http.internal.HttpChars;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
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
 * The parameters of a query string ({@code application/x-www-form-urlencoded}, WHATWG URL §5.1): {@code &}-separated
 * {@code name=value} pairs, {@code +} decoded as SP and {@code %XX} as UTF-8. Names repeat; a pair without {@code =}
 * has the empty value; empty pairs ({@code a=1&&b=2}) are skipped.
 *
 * <p>Limits: at most {@code maxParameters} pairs (400 beyond, so that a hostile query cannot make the map expensive),
 * and every decoding error is a 400 naming the offending pair: a {@code %} not followed by two hex digits, or invalid
 * UTF-8.
 *
 * <p>Thread-safety: immutable. Cost: O(n) parse; names and values are decoded eagerly.
 */
public final class QueryParameters {
    /** The default limit on the number of parameters. */
    public static final int DEFAULT_MAX_PARAMETERS = 1000;

    private static final QueryParameters EMPTY = new QueryParameters(Map.of(), 0);

    private final Map<String, List<String>> parameters;
    private final int size;

    private QueryParameters(Map<String, List<String>> parameters, int size) {
        this.parameters = parameters;
        this.size = size;
    }

    /** Parses with {@link #DEFAULT_MAX_PARAMETERS}. */
    public static QueryParameters parse(String query) {
        return parse(query, DEFAULT_MAX_PARAMETERS);
    }

    /**
     * @param query the raw query, without the {@code ?}
     * @param maxParameters the most name/value pairs to accept
     * @return the parameters
     * @throws BadMessageException 400 naming the problem
     */
    public static QueryParameters parse(String query, int maxParameters) {
        if (query.isEmpty()) {
            return EMPTY;
        }
        Map<String, List<String>> map = new LinkedHashMap<>();
        int count = 0;
        int from = 0;
        int length = query.length();
        while (from <= length) {
            int amp = query.indexOf('&', from);
            int to = amp < 0 ? length : amp;
            if (to > from) {
                if (++count > maxParameters) {
                    throw new BadMessageException("too many query parameters: more than " + maxParameters);
                }
                int equals = query.indexOf('=', from);
                if (equals < 0 || equals > to) {
                    equals = to;
                }
                String name = decode(query, from, equals);
                String value = equals == to ? "" : decode(query, equals + 1, to);
                map.computeIfAbsent(name, n -> new ArrayList<>(1)).add(value);
            }
            if (amp < 0) {
                break;
            }
            from = amp + 1;
        }
        map.replaceAll((name, values) -> Collections.unmodifiableList(values));
        return new QueryParameters(Collections.unmodifiableMap(map), count);
    }

    /**
     * Decodes one component: {@code +} as SP, {@code %XX} as UTF-8 bytes.
     *
     * @throws BadMessageException 400 on a malformed percent-encoding or invalid UTF-8
     */
    static String decode(String s, int from, int to) {
        boolean plain = true;
        for (int i = from; i < to && plain; i++) {
            char c = s.charAt(i);
            plain = c != '%' && c != '+';
        }
        if (plain) {
            return s.substring(from, to);
        }
        byte[] bytes = new byte[(to - from) * 3];
        int n = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c == '+') {
                bytes[n++] = ' ';
            } else if (c == '%') {
                int hi = i + 2 < to ? hex(s.charAt(i + 1)) : -1;
                int lo = i + 2 < to ? hex(s.charAt(i + 2)) : -1;
                if (hi < 0 || lo < 0) {
                    throw new BadMessageException(
                            "invalid percent-encoding in query: " + HttpChars.quote(s.substring(from, to)));
                }
                bytes[n++] = (byte) (hi << 4 | lo);
                i += 2;
            } else if (c < 0x80) {
                bytes[n++] = (byte) c;
            } else {
                byte[] utf8 = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                System.arraycopy(utf8, 0, bytes, n, utf8.length);
                n += utf8.length;
            }
        }
        CharsetDecoder decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            return decoder.decode(ByteBuffer.wrap(bytes, 0, n)).toString();
        } catch (CharacterCodingException x) {
            throw new BadMessageException("invalid UTF-8 in query: " + HttpChars.quote(s.substring(from, to)), x);
        }
    }

    private static int hex(char c) {
        return c < 128 ? HttpChars.hexValue(c) : -1;
    }

    /** @return the first value of {@code name} */
    public Optional<String> get(String name) {
        List<String> values = parameters.get(name);
        return values == null ? Optional.empty() : Optional.of(values.get(0));
    }

    /** @return every value of {@code name}, in order; empty if absent */
    public List<String> getAll(String name) {
        return parameters.getOrDefault(name, List.of());
    }

    /** @return the distinct names, in first-arrival order */
    public Set<String> names() {
        return parameters.keySet();
    }

    /** @return the names and their values, in first-arrival order; unmodifiable */
    public Map<String, List<String>> asMap() {
        return parameters;
    }

    /** @return the number of name/value pairs */
    public int size() {
        return size;
    }

    @Override
    public String toString() {
        return parameters.toString();
    }
}
