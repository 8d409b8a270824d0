package dev.quarry.http.internal;

import dev.quarry.http.BadMessageException;
import java.util.Map;

/**
 * Parses the parameters that follow a value in a field such as Content-Type or Content-Disposition (RFC 9110 §5.6.6):
 * {@code *( OWS ";" OWS [ name "=" ( token / quoted-string ) ] )}. Names are lower-cased (they are case-insensitive);
 * the first occurrence of a repeated name wins; empty parameters ({@code ;;}, a trailing {@code ;}) are skipped, as
 * senders produce them.
 *
 * <p>Inside a quoted string a backslash escapes only {@code "} and {@code \}; before any other character it is kept,
 * because browsers send Windows file names with unescaped backslashes.
 *
 * <p>Thread-safety: stateless. Cost: O(length).
 */
public final class FieldParameters {
    private FieldParameters() {}

    /**
     * @param value the whole field value, for error reasons
     * @param from where the parameters start (at an OWS or {@code ;})
     * @param into receives the parameters, names lower-cased
     * @param what what the value is, for error reasons, e.g. {@code "Content-Type"}
     * @throws BadMessageException 400 naming the problem
     */
    public static void parse(String value, int from, Map<String, String> into, String what) {
        int i = skipOws(value, from);
        int length = value.length();
        while (i < length) {
            if (value.charAt(i) != ';') {
                throw new BadMessageException(
                        "expected ';' before a parameter in " + what + ": " + HttpChars.quote(value));
            }
            i = skipOws(value, i + 1);
            if (i >= length || value.charAt(i) == ';') {
                continue;
            }
            int nameStart = i;
            while (i < length && value.charAt(i) < 0x80 && HttpChars.isTChar(value.charAt(i))) {
                i++;
            }
            if (i == nameStart || i >= length || value.charAt(i) != '=') {
                throw new BadMessageException("invalid parameter in " + what + ": " + HttpChars.quote(value));
            }
            String name = value.substring(nameStart, i).toLowerCase(java.util.Locale.ROOT);
            i++;
            String parameter;
            if (i < length && value.charAt(i) == '"') {
                StringBuilder text = new StringBuilder();
                i++;
                while (true) {
                    if (i >= length) {
                        throw new BadMessageException(
                                "unterminated quoted string in " + what + ": " + HttpChars.quote(value));
                    }
                    char c = value.charAt(i++);
                    if (c == '"') {
                        break;
                    }
                    if (c == '\\' && i < length && (value.charAt(i) == '"' || value.charAt(i) == '\\')) {
                        c = value.charAt(i++);
                    }
                    text.append(c);
                }
                parameter = text.toString();
            } else {
                int valueStart = i;
                while (i < length && value.charAt(i) != ';' && !HttpChars.isWhitespace(value.charAt(i))) {
                    char c = value.charAt(i);
                    if (c >= 0x80 || !HttpChars.isTChar(c)) {
                        throw new BadMessageException("invalid character " + HttpChars.describe(c) + " in parameter '"
                                + name + "' of " + what + ": " + HttpChars.quote(value));
                    }
                    i++;
                }
                if (i == valueStart) {
                    throw new BadMessageException(
                            "empty parameter '" + name + "' in " + what + ": " + HttpChars.quote(value));
                }
                parameter = value.substring(valueStart, i);
            }
            into.putIfAbsent(name, parameter);
            i = skipOws(value, i);
        }
    }

    private static int skipOws(String s, int i) {
        while (i < s.length() && HttpChars.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }
}
