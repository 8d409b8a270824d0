package dev.quarry.http;

import dev.quarry.http.internal.HttpChars;
import java.util.OptionalInt;

/**
 * A host and optional port, as in a Host field or an authority: {@code uri-host [ ":" port ]} (RFC 9110 §7.2,
 * RFC 3986 §3.2.2-3.2.3).
 *
 * <p>The host is an IP literal in brackets ({@code [::1]}, {@code [v1.x]}) or a reg-name (which covers IPv4 addresses
 * and DNS names): unreserved characters, sub-delims and percent-encodings. It may be empty, as in {@code Host: } for a
 * target without authority (RFC 9112 §3.2). The port is at most 5 digits and at most 65535; an empty port after the
 * colon is accepted as no port (RFC 3986 §3.2.3). User information ({@code user@host}) is rejected: it is deprecated
 * for http(s) (RFC 9110 §4.2.4) and a classic way to disguise a host.
 *
 * <p>Thread-safety: immutable. Cost: O(n) parse; {@link #validate(String)} is allocation-free for a valid value.
 *
 * @param host the host, with brackets for an IP literal, never null
 * @param port the port 0-65535, or -1 when absent
 */
public record HostPort(String host, int port) {

    /** @return the port, or empty when absent */
    public OptionalInt optionalPort() {
        return port < 0 ? OptionalInt.empty() : OptionalInt.of(port);
    }

    /**
     * Parses {@code host[:port]}.
     *
     * @param authority the text, e.g. {@code example.com:8080}
     * @return the host and port
     * @throws BadMessageException 400 naming the problem when {@code authority} is not valid
     */
    public static HostPort parse(String authority) {
        int colon = portColon(authority);
        int port = colon < 0 ? -1 : parsePort(authority, colon + 1);
        String host = colon < 0 ? authority : authority.substring(0, colon);
        return new HostPort(host, port);
    }

    /**
     * Parses the authority-form target of CONNECT, {@code host:port}, where the port is required (RFC 9112 §3.2.3).
     *
     * @throws BadMessageException 400 naming the problem when {@code authority} is not valid or has no port
     */
    public static HostPort parseWithPort(String authority) {
        HostPort result = parse(authority);
        if (result.port < 0 || result.host.isEmpty()) {
            throw new BadMessageException("authority-form target needs host:port: " + HttpChars.quote(authority));
        }
        return result;
    }

    /**
     * Validates a Host field value; allocation-free when it is valid.
     *
     * @param value the value
     * @throws BadMessageException 400 naming the problem when it is not {@code uri-host [ ":" port ]}
     */
    public static void validate(String value) {
        int colon = portColon(value);
        if (colon >= 0) {
            parsePort(value, colon + 1);
        }
    }

    /**
     * @param value a Host field value
     * @return whether it is {@code uri-host [ ":" port ]}
     */
    public static boolean isValid(String value) {
        try {
            validate(value);
            return true;
        } catch (BadMessageException x) {
            return false;
        }
    }

    // Validates the host part and returns the index of the colon before the port, or -1.
    private static int portColon(String authority) {
        int length = authority.length();
        if (length > 0 && authority.charAt(0) == '[') {
            int close = authority.indexOf(']');
            if (close < 0) {
                throw bad("unterminated IP literal", authority);
            }
            validateIpLiteral(authority, 1, close);
            if (close + 1 == length) {
                return -1;
            }
            if (authority.charAt(close + 1) != ':') {
                throw bad("unexpected character after IP literal", authority);
            }
            return close + 1;
        }
        for (int i = 0; i < length; i++) {
            char c = authority.charAt(i);
            if (c == ':') {
                return i;
            }
            if (c == '%') {
                if (i + 2 >= length
                        || HttpChars.hexValue(authority.charAt(i + 1)) < 0
                        || HttpChars.hexValue(authority.charAt(i + 2)) < 0) {
                    throw bad("invalid percent-encoding in host", authority);
                }
                i += 2;
            } else if (!isRegNameChar(c)) {
                throw bad(c == '@' ? "user information in authority" : "invalid character in host", authority);
            }
        }
        return -1;
    }

    private static int parsePort(String authority, int from) {
        int length = authority.length();
        if (length - from > 5) {
            throw bad("invalid port", authority);
        }
        int port = 0;
        for (int i = from; i < length; i++) {
            char c = authority.charAt(i);
            if (c < '0' || c > '9') {
                throw bad("invalid port", authority);
            }
            port = port * 10 + (c - '0');
        }
        if (port > 65535) {
            throw bad("port out of range", authority);
        }
        return from == length ? -1 : port;
    }

    // IPv6address (hex digits, colons, an embedded IPv4 with dots) or IPvFuture "v" 1*HEXDIG "." 1*(unreserved /
    // sub-delims / ":"). Zone identifiers (RFC 6874) are not accepted in a Host.
    private static void validateIpLiteral(String authority, int from, int to) {
        if (from == to) {
            throw bad("empty IP literal", authority);
        }
        char first = authority.charAt(from);
        if (first == 'v' || first == 'V') {
            int dot = authority.indexOf('.', from);
            if (dot < 0 || dot >= to - 1 || dot == from + 1) {
                throw bad("invalid IPvFuture literal", authority);
            }
            for (int i = from + 1; i < dot; i++) {
                if (HttpChars.hexValue(authority.charAt(i)) < 0) {
                    throw bad("invalid IPvFuture literal", authority);
                }
            }
            for (int i = dot + 1; i < to; i++) {
                char c = authority.charAt(i);
                if (c != ':' && (c == '%' || !isRegNameChar(c))) {
                    throw bad("invalid IPvFuture literal", authority);
                }
            }
            return;
        }
        int colons = 0;
        for (int i = from; i < to; i++) {
            char c = authority.charAt(i);
            if (c == ':') {
                colons++;
            } else if (c != '.' && HttpChars.hexValue(c) < 0) {
                throw bad("invalid IPv6 literal", authority);
            }
        }
        if (colons < 2) {
            throw bad("invalid IPv6 literal", authority);
        }
    }

    // unreserved / sub-delims (RFC 3986 §2.2-2.3); '%' is handled by the caller.
    private static boolean isRegNameChar(char c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || "-._~!$&'()*+,;=".indexOf(c) >= 0;
    }

    private static BadMessageException bad(String problem, String authority) {
        return new BadMessageException(problem + ": " + HttpChars.quote(authority));
    }

    @Override
    public String toString() {
        return port < 0 ? host : host + ":" + port;
    }
}
