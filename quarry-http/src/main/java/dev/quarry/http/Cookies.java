package dev.quarry.http;

import dev.quarry.http.internal.HttpChars;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses the Cookie request field (RFC 6265 §4.2, §5.4) the lenient way that servers must, because user agents send
 * what they stored: {@code name=value} pairs separated by {@code ;} and optional whitespace, across one or more
 * Cookie field lines (HTTP/2 splits them, RFC 9113 §8.2.3).
 *
 * <p>Leniency, on purpose: a pair without {@code =}, with an empty name, or with a name that is not a token is skipped
 * rather than failing the request (one bad cookie set by another application on the same domain must not lock a user
 * out); whitespace around names and values is trimmed; a value in double quotes is unquoted; other characters in a
 * value are kept as sent (no percent-decoding: the encoding of a value is the application's). A pair containing a
 * control character is skipped. When a name repeats, the first wins: user agents send the most specific cookie (longest
 * path) first (RFC 6265 §5.4).
 *
 * <p>Thread-safety: stateless. Cost: O(length); one map and two strings per cookie.
 */
public final class Cookies {
    private Cookies() {}

    /**
     * @param fieldValues the values of every Cookie field line, in order
     * @return the cookies by name, in order; unmodifiable
     */
    public static Map<String, String> parse(List<String> fieldValues) {
        if (fieldValues.isEmpty()) {
            return Map.of();
        }
        Map<String, String> cookies = new LinkedHashMap<>();
        for (String value : fieldValues) {
            parse(value, cookies);
        }
        return Collections.unmodifiableMap(cookies);
    }

    /**
     * @param fieldValue one Cookie field value
     * @return the cookies by name, in order; unmodifiable
     */
    public static Map<String, String> parse(String fieldValue) {
        return parse(List.of(fieldValue));
    }

    private static void parse(String s, Map<String, String> into) {
        int length = s.length();
        int from = 0;
        while (from < length) {
            int semicolon = s.indexOf(';', from);
            int to = semicolon < 0 ? length : semicolon;
            pair(s, from, to, into);
            from = to + 1;
        }
    }

    private static void pair(String s, int from, int to, Map<String, String> into) {
        int equals = s.indexOf('=', from);
        if (equals < 0 || equals >= to) {
            return;
        }
        int nameStart = skipWhitespace(s, from, equals);
        int nameEnd = trimWhitespace(s, nameStart, equals);
        if (nameStart == nameEnd) {
            return;
        }
        for (int i = nameStart; i < nameEnd; i++) {
            char c = s.charAt(i);
            if (c >= 0x80 || !HttpChars.isTChar(c)) {
                return;
            }
        }
        int valueStart = skipWhitespace(s, equals + 1, to);
        int valueEnd = trimWhitespace(s, valueStart, to);
        for (int i = valueStart; i < valueEnd; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7F) {
                return;
            }
        }
        if (valueEnd - valueStart >= 2 && s.charAt(valueStart) == '"' && s.charAt(valueEnd - 1) == '"') {
            valueStart++;
            valueEnd--;
        }
        into.putIfAbsent(s.substring(nameStart, nameEnd), s.substring(valueStart, valueEnd));
    }

    private static int skipWhitespace(String s, int from, int to) {
        while (from < to && HttpChars.isWhitespace(s.charAt(from))) {
            from++;
        }
        return from;
    }

    private static int trimWhitespace(String s, int from, int to) {
        while (to > from && HttpChars.isWhitespace(s.charAt(to - 1))) {
            to--;
        }
        return to;
    }
}
