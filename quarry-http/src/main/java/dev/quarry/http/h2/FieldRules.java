package dev.quarry.http.h2;

import dev.quarry.http.HttpHeader;
import dev.quarry.http.internal.HttpChars;

/**
 * The generic field syntax of HTTP/2 (RFC 9113 8.2.1, 8.2.2) as checks that return the broken rule as a reason, or
 * null when the field is valid. Shared by the header block decoder (which records the first reason as the block's
 * {@code malformed}), {@link Http2Messages} and the generator's checks of what it is asked to send.
 *
 * <p>Thread-safety: stateless. Cost: O(length) with one table lookup per character; no allocation unless a rule is
 * broken.
 */
final class FieldRules {

    /** tchar of RFC 9110 5.6.2 without uppercase letters (RFC 9113 8.2.1): the characters of an HTTP/2 name. */
    private static final boolean[] NAME_CHARS = new boolean[128];

    static {
        for (char c = '0'; c <= '9'; c++) {
            NAME_CHARS[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            NAME_CHARS[c] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            NAME_CHARS[c] = true;
        }
    }

    private FieldRules() {}

    /**
     * @param name a regular (not pseudo-) field name as received
     * @return why it may not appear in HTTP/2, or null
     */
    static String checkName(String name) {
        int length = name.length();
        if (length == 0) {
            return "empty field name (RFC 9113 8.2.1)";
        }
        for (int i = 0; i < length; i++) {
            char c = name.charAt(i);
            if (c >= 128 || !NAME_CHARS[c]) {
                return c >= 'A' && c <= 'Z'
                        ? "uppercase character in field name " + HttpChars.quote(name) + " (RFC 9113 8.2.1)"
                        : "invalid character " + describe(c) + " in field name " + HttpChars.quote(name)
                                + " (RFC 9113 8.2.1)";
            }
        }
        return null;
    }

    /**
     * @param name the field's name, for the reason
     * @param value a field value as received
     * @return why it may not appear in HTTP/2 (NUL, CR, LF anywhere; SP or HTAB at either end), or null
     */
    static String checkValue(String name, String value) {
        int length = value.length();
        if (length == 0) {
            return null;
        }
        char first = value.charAt(0);
        char last = value.charAt(length - 1);
        if (first == ' ' || first == '\t' || last == ' ' || last == '\t') {
            return "leading or trailing whitespace in the value of " + HttpChars.quote(name) + ": "
                    + HttpChars.quote(value) + " (RFC 9113 8.2.1)";
        }
        for (int i = 0; i < length; i++) {
            char c = value.charAt(i);
            if (c == 0 || c == '\r' || c == '\n') {
                return "forbidden character " + describe(c) + " in the value of " + HttpChars.quote(name) + ": "
                        + HttpChars.quote(value) + " (RFC 9113 8.2.1)";
            }
        }
        return null;
    }

    /**
     * @param header a well-known field
     * @param value its value
     * @return why the field may not appear in HTTP/2 as a connection-specific field (RFC 9113 8.2.2), or null
     */
    static String checkConnectionSpecific(HttpHeader header, String value) {
        return switch (header) {
            case CONNECTION, KEEP_ALIVE, PROXY_CONNECTION, TRANSFER_ENCODING, UPGRADE ->
                "connection-specific field " + header.lowerCaseName() + " (RFC 9113 8.2.2)";
            case TE ->
                "trailers".equalsIgnoreCase(value)
                        ? null
                        : "te other than \"trailers\": " + HttpChars.quote(value) + " (RFC 9113 8.2.2)";
            default -> null;
        };
    }

    /**
     * The stricter check of a value about to be sent: only field content (VCHAR, obs-text, SP, HTAB: RFC 9110 5.5), so
     * that no control character reaches the peer (a CR or LF could split a line when an intermediary converts the
     * message to HTTP/1.1), and no whitespace at either end (RFC 9113 8.2.1).
     *
     * @param name the field's name, for the reason
     * @param value the value to send
     * @return why it may not be sent, or null
     */
    static String checkOutgoingValue(String name, String value) {
        int length = value.length();
        for (int i = 0; i < length; i++) {
            char c = value.charAt(i);
            if (c > 0xFF || !HttpChars.isFieldContent(c)) {
                return (c == '\r' || c == '\n' ? "header injection: " : "") + "invalid character " + describe(c)
                        + " in the value of " + HttpChars.quote(name) + ": " + HttpChars.quote(value);
            }
        }
        if (length > 0) {
            char first = value.charAt(0);
            char last = value.charAt(length - 1);
            if (first == ' ' || first == '\t' || last == ' ' || last == '\t') {
                return "leading or trailing whitespace in the value of " + HttpChars.quote(name) + ": "
                        + HttpChars.quote(value) + " (RFC 9113 8.2.1)";
            }
        }
        return null;
    }

    /**
     * @param header a well-known field, or null
     * @param value its value
     * @return whether the generator must not send it: the connection-specific fields, and TE other than trailers
     */
    static boolean isConnectionSpecific(HttpHeader header, String value) {
        if (header == null) {
            return false;
        }
        return switch (header) {
            case CONNECTION, KEEP_ALIVE, PROXY_CONNECTION, TRANSFER_ENCODING, UPGRADE -> true;
            case TE -> !"trailers".equalsIgnoreCase(value);
            default -> false;
        };
    }

    /**
     * @param s a candidate token (a method)
     * @return whether it is a non-empty token of RFC 9110 5.6.2
     */
    static boolean isToken(String s) {
        return HttpChars.isToken(s);
    }

    private static String describe(char c) {
        return c > 0xFF ? String.format("U+%04X", (int) c) : HttpChars.describe(c);
    }
}
