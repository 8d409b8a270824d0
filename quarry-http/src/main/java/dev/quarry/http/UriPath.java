package dev.quarry.http;

import dev.quarry.http.internal.HttpChars;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Decodes and normalises the path of a request target: percent-decoding as UTF-8, removal of {@code .} segments and
 * resolution of {@code ..} segments (RFC 3986 §5.2.4), and rejection of what cannot be normalised safely.
 *
 * <p>Dot segments are recognised on the segments between raw {@code /} separators, after each segment is decoded; a
 * {@code ..} that would climb above the root is rejected (400), never clamped, because clamping is how
 * {@code /../etc/passwd} becomes a valid path. Empty segments ({@code //a}, {@code /a/}) are kept: collapsing them would
 * make two different targets one resource, and the application decides. A {@code ;parameter} stays part of its
 * segment, decoded like the rest ({@code /a;v=1/b} stays as is). What {@link UriCompliance} does not allow is a 400
 * whose reason names the ambiguity and quotes the path.
 *
 * <p>Thread-safety: stateless. Cost: a path without {@code %} and without dot segments is returned as is,
 * allocation-free; otherwise O(n) with one builder.
 */
public final class UriPath {
    // pchar minus '%' (RFC 3986 §3.3) plus '/': what a path may contain without needing decoding or checks.
    private static final boolean[] PLAIN = new boolean[128];
    private static final String ILLEGAL = "\"<>[]^`{|}";

    static {
        for (char c = 'a'; c <= 'z'; c++) {
            PLAIN[c] = true;
            PLAIN[c - 32] = true;
        }
        for (char c = '0'; c <= '9'; c++) {
            PLAIN[c] = true;
        }
        for (char c : "-._~!$&'()*+,;=:@/".toCharArray()) {
            PLAIN[c] = true;
        }
    }

    private UriPath() {}

    /** Decodes and normalises {@code rawPath} under {@link UriCompliance#STRICT}. */
    public static String decode(String rawPath) {
        return decode(rawPath, UriCompliance.STRICT);
    }

    /**
     * Decodes and normalises a raw path.
     *
     * @param rawPath the path as received, starting with {@code /}, without query
     * @param compliance the ambiguities to accept
     * @return the decoded, normalised path, starting with {@code /}
     * @throws BadMessageException 400 naming the problem
     */
    public static String decode(String rawPath, UriCompliance compliance) {
        int length = rawPath.length();
        if (length == 0 || rawPath.charAt(0) != '/') {
            throw new BadMessageException("path does not start with /: " + HttpChars.quote(rawPath));
        }
        if (isPlain(rawPath)) {
            return rawPath;
        }
        StringBuilder out = new StringBuilder(length);
        int[] starts = new int[8];
        int depth = 0;
        byte[] scratch = new byte[length];
        int from = 1;
        while (true) {
            int slash = rawPath.indexOf('/', from);
            int to = slash < 0 ? length : slash;
            boolean last = slash < 0;
            Segment segment = decodeSegment(rawPath, from, to, scratch, compliance);
            String decoded = segment.text;
            boolean dot = decoded.equals(".");
            boolean dotDot = decoded.equals("..");
            if ((dot || dotDot) && segment.encodedDot) {
                check(compliance, UriCompliance.Violation.ENCODED_DOT_SEGMENT, "encoded dot segment", rawPath);
            }
            if (!dot && !dotDot && (decoded.startsWith(".;") || decoded.startsWith("..;"))) {
                check(
                        compliance,
                        UriCompliance.Violation.DOT_SEGMENT_WITH_PARAMETER,
                        "dot segment with parameter",
                        rawPath);
            }
            if (dotDot) {
                if (depth == 0) {
                    throw new BadMessageException("path climbs above the root: " + HttpChars.quote(rawPath));
                }
                out.setLength(starts[--depth]);
            }
            if (dot || dotDot) {
                if (last) {
                    out.append('/');
                }
            } else {
                if (depth == starts.length) {
                    starts = Arrays.copyOf(starts, depth * 2);
                }
                starts[depth++] = out.length();
                out.append('/').append(decoded);
            }
            if (last) {
                break;
            }
            from = slash + 1;
        }
        return out.isEmpty() ? "/" : out.toString();
    }

    private record Segment(String text, boolean encodedDot) {}

    private static Segment decodeSegment(String raw, int from, int to, byte[] bytes, UriCompliance compliance) {
        int n = 0;
        boolean encodedDot = false;
        boolean nonAscii = false;
        boolean encodedPercent = false;
        for (int i = from; i < to; i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                int hi = HttpChars.hexValue(asciiAt(raw, i + 1, to));
                int lo = HttpChars.hexValue(asciiAt(raw, i + 2, to));
                if (hi < 0 || lo < 0) {
                    throw new BadMessageException("invalid percent-encoding in path: " + HttpChars.quote(raw));
                }
                int b = hi << 4 | lo;
                checkDecoded(b, raw, compliance);
                encodedDot |= b == '.';
                encodedPercent |= b == '%';
                nonAscii |= b >= 0x80;
                bytes[n++] = (byte) b;
                i += 2;
            } else {
                checkRaw(c, raw, compliance);
                bytes[n++] = (byte) c;
            }
        }
        if (encodedPercent) {
            checkEncodedPercent(bytes, n, raw, compliance);
        }
        String text;
        if (!nonAscii) {
            text = new String(bytes, 0, n, StandardCharsets.ISO_8859_1);
        } else {
            try {
                CharBuffer chars = StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(bytes, 0, n));
                text = chars.toString();
            } catch (CharacterCodingException x) {
                throw new BadMessageException("invalid UTF-8 in path: " + HttpChars.quote(raw), x);
            }
        }
        return new Segment(text, encodedDot);
    }

    // The character at index if it is ASCII and before `to`, else a non-hex placeholder: hexValue masks to a byte.
    private static char asciiAt(String raw, int index, int to) {
        char c = index < to ? raw.charAt(index) : 0;
        return c < 128 ? c : 0;
    }

    /**
     * A decoded {@code %} (only {@code %25} makes one: a raw {@code %} always starts an escape) is ambiguous when two
     * hex digits follow it, since a second decoding would turn them into another character.
     */
    private static void checkEncodedPercent(byte[] bytes, int n, String raw, UriCompliance compliance) {
        for (int j = 0; j + 2 < n; j++) {
            if (bytes[j] == '%' && HttpChars.hexValue(bytes[j + 1]) >= 0 && HttpChars.hexValue(bytes[j + 2]) >= 0) {
                check(
                        compliance,
                        UriCompliance.Violation.ENCODED_PERCENT,
                        "encoded percent %25 before two hex digits",
                        raw);
            }
        }
    }

    private static void checkDecoded(int b, String raw, UriCompliance compliance) {
        if (b == 0) {
            throw new BadMessageException("encoded NUL in path: " + HttpChars.quote(raw));
        }
        switch (b) {
            case '/' -> check(compliance, UriCompliance.Violation.ENCODED_SLASH, "encoded slash %2F", raw);
            case '\\' -> check(compliance, UriCompliance.Violation.BACKSLASH, "encoded backslash %5C", raw);
            default -> {
                if (b < 0x20 || b == 0x7F) {
                    check(
                            compliance,
                            UriCompliance.Violation.ENCODED_CONTROL_CHARACTER,
                            "encoded control character " + HttpChars.describe(b),
                            raw);
                }
            }
        }
    }

    private static void checkRaw(char c, String raw, UriCompliance compliance) {
        if (c < 128 && PLAIN[c]) {
            return;
        }
        if (c == '\\') {
            check(compliance, UriCompliance.Violation.BACKSLASH, "backslash", raw);
        } else if (ILLEGAL.indexOf(c) >= 0) {
            check(
                    compliance,
                    UriCompliance.Violation.ILLEGAL_PATH_CHARACTER,
                    "character " + HttpChars.describe(c),
                    raw);
        } else {
            // NUL, other control characters, SP, '#', '?', and raw non-ASCII: never part of a path.
            throw new BadMessageException(
                    "invalid character " + (c > 0xFF ? String.format("U+%04X", (int) c) : HttpChars.describe(c))
                            + " in path: " + HttpChars.quote(raw));
        }
    }

    private static void check(UriCompliance compliance, UriCompliance.Violation violation, String what, String raw) {
        if (!compliance.allows(violation)) {
            throw new BadMessageException("ambiguous path, " + what + " (" + violation + ", " + violation.rfcSection()
                    + "): " + HttpChars.quote(raw));
        }
    }

    private static boolean isPlain(String path) {
        char previous = 0;
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c >= 128 || !PLAIN[c] || (c == '.' && previous == '/')) {
                return false;
            }
            previous = c;
        }
        return true;
    }
}
