package dev.quarry.http.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Byte classes of the HTTP grammar (RFC 9110 §5.6, RFC 9112) as one lookup table, the word-at-a-time search for the
 * line feed that ends every HTTP/1 line, and the quoting of offending bytes for error reasons.
 *
 * <p>Thread-safety: stateless. Cost: every predicate is one array load; {@code indexOfLf} reads 8 bytes per step.
 */
public final class HttpChars {
    /** {@code tchar} of RFC 9110 §5.6.2: the characters of a token (method, field name, coding). */
    private static final int TCHAR = 1;
    /** {@code field-vchar / SP / HTAB} of RFC 9110 §5.5: what a field value may contain. */
    private static final int FIELD_CONTENT = 2;
    /** {@code VCHAR} of RFC 5234: 0x21-0x7E, what a request target may contain (RFC 9112 §3.2). */
    private static final int VCHAR = 4;
    /** {@code qdtext} of RFC 9110 §5.6.4: what a quoted string may contain unescaped. */
    private static final int QDTEXT = 8;

    private static final byte[] CLASSES = new byte[256];
    private static final byte[] HEX_VALUES = new byte[256];
    private static final byte[] LOWER = new byte[256];

    private static final long LF_WORD = 0x0A0A0A0A0A0A0A0AL;
    private static final long LOW7 = 0x7F7F7F7F7F7F7F7FL;
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** The longest excerpt of an offending value that an error reason quotes. */
    public static final int MAX_QUOTED = 64;

    static {
        for (int b = 0; b < 256; b++) {
            int classes = 0;
            if (b >= 0x21 && b <= 0x7E) {
                classes |= VCHAR | FIELD_CONTENT;
                if (Character.isLetterOrDigit(b) || "!#$%&'*+-.^_`|~".indexOf(b) >= 0) {
                    classes |= TCHAR;
                }
                if (b != '"' && b != '\\') {
                    classes |= QDTEXT;
                }
            } else if (b >= 0x80) {
                classes |= FIELD_CONTENT | QDTEXT; // obs-text
            } else if (b == ' ' || b == '\t') {
                classes |= FIELD_CONTENT | QDTEXT;
            }
            CLASSES[b] = (byte) classes;
            HEX_VALUES[b] = (byte) Character.digit(b, 16);
            LOWER[b] = (byte) (b >= 'A' && b <= 'Z' ? b + 32 : b);
        }
        // Character.digit accepts non-ASCII digits above 0x7F in other scripts; HEXDIG is ASCII only.
        for (int b = 0x80; b < 256; b++) {
            HEX_VALUES[b] = -1;
        }
    }

    private HttpChars() {}

    /** @return whether {@code b} is a {@code tchar} (RFC 9110 §5.6.2) */
    public static boolean isTChar(int b) {
        return (CLASSES[b & 0xFF] & TCHAR) != 0;
    }

    /** @return whether {@code b} may appear in a field value: VCHAR, obs-text, SP or HTAB (RFC 9110 §5.5) */
    public static boolean isFieldContent(int b) {
        return (CLASSES[b & 0xFF] & FIELD_CONTENT) != 0;
    }

    /** @return whether {@code b} is a visible ASCII character 0x21-0x7E */
    public static boolean isVChar(int b) {
        return (CLASSES[b & 0xFF] & VCHAR) != 0;
    }

    /** @return whether {@code b} is {@code qdtext} (RFC 9110 §5.6.4) */
    public static boolean isQdText(int b) {
        return (CLASSES[b & 0xFF] & QDTEXT) != 0;
    }

    /** @return whether {@code b} is SP or HTAB, the {@code OWS} characters */
    public static boolean isWhitespace(int b) {
        return b == ' ' || b == '\t';
    }

    /** @return the value 0-15 of a hexadecimal digit, or -1 if {@code b} is not one */
    public static int hexValue(int b) {
        return HEX_VALUES[b & 0xFF];
    }

    /** @return {@code b} with ASCII upper-case letters turned lower-case */
    public static byte toLower(byte b) {
        return LOWER[b & 0xFF];
    }

    /** @return whether {@code s} is a non-empty token */
    public static boolean isToken(CharSequence s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c > 0xFF || !isTChar(c)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Finds the first line feed in {@code bytes[from, to)}, 8 bytes per step.
     *
     * @return its index, or -1
     */
    public static int indexOfLf(byte[] bytes, int from, int to) {
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long match = zeroBytes((long) LONG_LE.get(bytes, i) ^ LF_WORD);
            if (match != 0) {
                return i + (Long.numberOfTrailingZeros(match) >>> 3);
            }
        }
        for (; i < to; i++) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /**
     * Finds the first byte that may not appear in a field value (a control character other than HTAB, or DEL), 8 bytes
     * per step: the common all-visible word costs two subtractions and a test.
     *
     * @return its index, or -1 if {@code bytes[from, to)} is all field content
     */
    public static int indexOfInvalidFieldContent(byte[] bytes, int from, int to) {
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long word = (long) LONG_LE.get(bytes, i);
            // Exact as a boolean: some byte is below 0x20 (HTAB included, checked below) or is DEL.
            long below = (word - 0x2020202020202020L) & ~word & 0x8080808080808080L;
            if ((below | zeroBytes(word ^ 0x7F7F7F7F7F7F7F7FL)) != 0) {
                for (int k = i; k < i + 8; k++) {
                    if (!isFieldContent(bytes[k])) {
                        return k;
                    }
                }
            }
        }
        for (; i < to; i++) {
            if (!isFieldContent(bytes[i])) {
                return i;
            }
        }
        return -1;
    }

    // The high bit of each byte of the result is set exactly where the byte of x is zero: no false positives, unlike
    // the shorter (x - 0x01..) & ~x form, so that any set bit, not only the lowest, can be trusted.
    private static long zeroBytes(long x) {
        return ~(((x & LOW7) + LOW7) | x | LOW7);
    }

    /**
     * Quotes bytes for an error reason: at most {@link #MAX_QUOTED} of them, non-printable ones escaped as {@code \r},
     * {@code \n}, {@code \t} or {@code \xNN}, so that a reason never carries control characters into a log or a
     * response.
     */
    public static String quote(byte[] bytes, int from, int to) {
        StringBuilder out = new StringBuilder(Math.min(to - from, MAX_QUOTED) + 8).append('"');
        int end = Math.min(to, from + MAX_QUOTED);
        for (int i = from; i < end; i++) {
            escape(out, bytes[i] & 0xFF);
        }
        if (end < to) {
            out.append("...");
        }
        return out.append('"').toString();
    }

    /** Quotes a string for an error reason, like {@link #quote(byte[], int, int)}. */
    public static String quote(CharSequence s) {
        StringBuilder out = new StringBuilder(Math.min(s.length(), MAX_QUOTED) + 8).append('"');
        int end = Math.min(s.length(), MAX_QUOTED);
        for (int i = 0; i < end; i++) {
            escape(out, s.charAt(i));
        }
        if (end < s.length()) {
            out.append("...");
        }
        return out.append('"').toString();
    }

    /** Describes one byte for an error reason, e.g. {@code 0x0D (CR)} or {@code 'x'}. */
    public static String describe(int b) {
        b &= 0xFF;
        return switch (b) {
            case '\r' -> "CR";
            case '\n' -> "LF";
            case '\t' -> "HTAB";
            case ' ' -> "SP";
            case 0 -> "NUL";
            default -> b > 0x20 && b < 0x7F ? "'" + (char) b + "'" : String.format("0x%02X", b);
        };
    }

    private static void escape(StringBuilder out, int c) {
        switch (c) {
            case '\r' -> out.append("\\r");
            case '\n' -> out.append("\\n");
            case '\t' -> out.append("\\t");
            case '"' -> out.append("\\\"");
            case '\\' -> out.append("\\\\");
            default -> {
                if (c >= 0x20 && c < 0x7F) {
                    out.append((char) c);
                } else if (c <= 0xFF) {
                    out.append(String.format("\\x%02X", c));
                } else {
                    out.append(String.format("\\u%04X", c));
                }
            }
        }
    }
}
