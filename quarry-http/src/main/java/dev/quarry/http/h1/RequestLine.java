package dev.quarry.http.h1;

import dev.quarry.http.BadMessageException;
import dev.quarry.http.HttpMethod;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.internal.HttpChars;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Parses a request line {@code method SP request-target SP HTTP-version} (RFC 9112 §3), CRLF excluded, strictly:
 * exactly one SP between the parts, a token method, a target of visible ASCII only, and {@code HTTP/1.0} or
 * {@code HTTP/1.1} (another well-formed version is 505; {@code HTTP/2.0} only in the connection preface
 * {@code PRI * HTTP/2.0}).
 *
 * <p>The target's form must fit the method (RFC 9112 §3.2): {@code *} only for OPTIONS, authority-form only for
 * CONNECT and CONNECT only with it, otherwise origin-form ({@code /...}) or absolute-form ({@code scheme://...}).
 *
 * <p>Allocation: a standard method is an interned string; the target string is reused when a connection repeats the
 * previous request's target byte for byte (keep-alive clients polling one URL), otherwise one string.
 *
 * <p>Thread-safety: confined to its parser's thread.
 */
final class RequestLine {
    private static final int MAX_CACHED_TARGET = 256;

    private String method;
    private HttpMethod knownMethod;
    private String target;
    private HttpVersion version;
    private boolean preface;
    private byte[] lastTargetBytes = new byte[0];
    private String lastTarget;

    /**
     * @throws BadMessageException 400 or 505 naming the problem
     */
    void parse(byte[] bytes, int from, int to) {
        int i = from;
        while (i < to && HttpChars.isTChar(bytes[i])) {
            i++;
        }
        int methodEnd = i;
        if (i == to || bytes[i] != ' ' || i == from) {
            if (i == to) {
                throw bad("request line without target", bytes, from, to);
            }
            throw bad(
                    (i == from ? "invalid method, " : "invalid character in method, ") + HttpChars.describe(bytes[i]),
                    bytes,
                    from,
                    to);
        }
        int targetStart = ++i;
        while (i < to && HttpChars.isVChar(bytes[i])) {
            i++;
        }
        int targetEnd = i;
        if (i == targetStart) {
            throw bad(
                    i < to && bytes[i] == ' ' ? "more than one SP after the method" : "missing request target",
                    bytes,
                    from,
                    to);
        }
        if (i == to) {
            throw bad("missing HTTP version (HTTP/0.9 is not supported)", bytes, from, to);
        }
        if (bytes[i] != ' ') {
            throw bad(
                    (bytes[i] == '\r' ? "bare CR" : "invalid character " + HttpChars.describe(bytes[i]))
                            + " in request target",
                    bytes,
                    from,
                    to);
        }
        parseVersion(bytes, i + 1, to, from);

        knownMethod = HttpMethod.lookup(bytes, from, methodEnd).orElse(null);
        method = knownMethod != null
                ? knownMethod.asString()
                : new String(bytes, from, methodEnd - from, StandardCharsets.ISO_8859_1);
        boolean asterisk = targetEnd - targetStart == 1 && bytes[targetStart] == '*';
        preface = false;
        if (version == HttpVersion.HTTP_2) {
            if (!asterisk || !"PRI".equals(method)) {
                throw new BadMessageException(
                        HttpStatus.HTTP_VERSION_NOT_SUPPORTED_505,
                        "HTTP/2.0 request line that is not the connection preface: "
                                + HttpChars.quote(bytes, from, to));
            }
            preface = true;
        } else {
            checkForm(bytes, targetStart, targetEnd, asterisk, from, to);
        }
        target = target(bytes, targetStart, targetEnd);
    }

    private void parseVersion(byte[] bytes, int i, int to, int lineFrom) {
        if (to - i == 8
                && bytes[i] == 'H'
                && bytes[i + 1] == 'T'
                && bytes[i + 2] == 'T'
                && bytes[i + 3] == 'P'
                && bytes[i + 4] == '/'
                && isDigit(bytes[i + 5])
                && bytes[i + 6] == '.'
                && isDigit(bytes[i + 7])) {
            int major = bytes[i + 5] - '0';
            int minor = bytes[i + 7] - '0';
            if (major == 1 && minor == 1) {
                version = HttpVersion.HTTP_1_1;
            } else if (major == 1 && minor == 0) {
                version = HttpVersion.HTTP_1_0;
            } else if (major == 2 && minor == 0) {
                version = HttpVersion.HTTP_2;
            } else {
                throw new BadMessageException(
                        HttpStatus.HTTP_VERSION_NOT_SUPPORTED_505,
                        "unsupported HTTP version: " + HttpChars.quote(bytes, i, to));
            }
            return;
        }
        if (i < to && bytes[i] == ' ') {
            throw bad("more than one SP after the request target", bytes, lineFrom, to);
        }
        throw bad("invalid HTTP version " + HttpChars.quote(bytes, i, to), bytes, lineFrom, to);
    }

    private void checkForm(byte[] bytes, int from, int to, boolean asterisk, int lineFrom, int lineTo) {
        byte first = bytes[from];
        if (knownMethod == HttpMethod.CONNECT) {
            if (first == '/' || first == '*' || indexOf(bytes, from, to, '/') >= 0) {
                throw bad("CONNECT needs an authority-form target host:port", bytes, lineFrom, lineTo);
            }
            return;
        }
        if (first == '/') {
            return;
        }
        if (first == '*') {
            if (!asterisk) {
                throw bad("invalid request target", bytes, lineFrom, lineTo);
            }
            if (knownMethod != HttpMethod.OPTIONS) {
                throw bad("asterisk-form target * is only for OPTIONS", bytes, lineFrom, lineTo);
            }
            return;
        }
        if (!isAbsoluteForm(bytes, from, to)) {
            throw bad("request target is neither origin-form, absolute-form nor *", bytes, lineFrom, lineTo);
        }
    }

    // scheme "://" with scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) (RFC 3986 §3.1)
    private static boolean isAbsoluteForm(byte[] bytes, int from, int to) {
        int i = from;
        while (i < to
                && (isAlpha(bytes[i])
                        || (i > from
                                && (isDigit(bytes[i]) || bytes[i] == '+' || bytes[i] == '-' || bytes[i] == '.')))) {
            i++;
        }
        return i > from && to - i > 3 && bytes[i] == ':' && bytes[i + 1] == '/' && bytes[i + 2] == '/';
    }

    private String target(byte[] bytes, int from, int to) {
        int length = to - from;
        if (lastTarget != null && Arrays.equals(lastTargetBytes, 0, lastTargetBytes.length, bytes, from, to)) {
            return lastTarget;
        }
        String result = new String(bytes, from, length, StandardCharsets.ISO_8859_1);
        if (length <= MAX_CACHED_TARGET) {
            lastTargetBytes = Arrays.copyOfRange(bytes, from, to);
            lastTarget = result;
        }
        return result;
    }

    private static int indexOf(byte[] bytes, int from, int to, char c) {
        for (int i = from; i < to; i++) {
            if (bytes[i] == c) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }

    private static boolean isAlpha(byte b) {
        return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z');
    }

    // A CR inside the line (its CRLF is already stripped) is what went wrong, whatever the grammar error it caused.
    private static BadMessageException bad(String problem, byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] == '\r') {
                problem = "bare CR in request line";
                break;
            }
        }
        return new BadMessageException(problem + ": " + HttpChars.quote(bytes, from, to));
    }

    String method() {
        return method;
    }

    HttpMethod knownMethod() {
        return knownMethod;
    }

    String target() {
        return target;
    }

    HttpVersion version() {
        return version;
    }

    boolean isPreface() {
        return preface;
    }

    void reset() {
        method = null;
        knownMethod = null;
        target = null;
        version = null;
        preface = false;
    }
}
