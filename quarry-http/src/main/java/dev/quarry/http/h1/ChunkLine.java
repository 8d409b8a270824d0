package dev.quarry.http.h1;

import dev.quarry.http.BadMessageException;
import dev.quarry.http.internal.HttpChars;

/**
 * Parses a chunk-size line {@code chunk-size [ chunk-ext ]} (RFC 9112 §7.1), CRLF excluded.
 *
 * <p>Strict: the size is 1 to 16 hex digits with no sign, prefix or surrounding whitespace, and must fit a positive
 * {@code long}; extensions follow the grammar {@code *( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] )}
 * exactly and are bounded in length; they are validated, then ignored (no extension is defined). Inconsistent chunk
 * parsing between a proxy and a server is a classic smuggling vector, so nothing is guessed.
 *
 * <p>Thread-safety: stateless.
 */
final class ChunkLine {
    private static final int MAX_DIGITS = 16;

    private ChunkLine() {}

    /**
     * @param bytes holds the line
     * @param from its first byte
     * @param to the index after its last byte, CRLF excluded
     * @param maxExtensionLength the longest extension accepted
     * @return the chunk size, 0 for the last chunk
     * @throws BadMessageException 400 naming the problem
     */
    static long parse(byte[] bytes, int from, int to, int maxExtensionLength) {
        long size = 0;
        int i = from;
        for (; i < to; i++) {
            int digit = HttpChars.hexValue(bytes[i]);
            if (digit < 0) {
                break;
            }
            if (i - from == MAX_DIGITS) {
                throw new BadMessageException("chunk size has too many digits: " + HttpChars.quote(bytes, from, to));
            }
            size = size << 4 | digit;
        }
        if (i == from) {
            throw new BadMessageException(
                    (from == to ? "empty chunk size" : "invalid chunk size") + ": " + HttpChars.quote(bytes, from, to));
        }
        if (size < 0) {
            throw new BadMessageException("chunk size overflows: " + HttpChars.quote(bytes, from, to));
        }
        if (i < to) {
            if (to - i > maxExtensionLength) {
                throw new BadMessageException("chunk extension longer than " + maxExtensionLength + " bytes: "
                        + HttpChars.quote(bytes, from, to));
            }
            parseExtensions(bytes, i, to, from);
        }
        return size;
    }

    private static void parseExtensions(byte[] bytes, int i, int to, int lineFrom) {
        while (i < to) {
            i = skipWhitespace(bytes, i, to);
            if (i == to || bytes[i] != ';') {
                throw bad(
                        i == to
                                ? "whitespace after chunk size"
                                : "invalid character " + HttpChars.describe(bytes[i]) + " in chunk size line",
                        bytes,
                        lineFrom,
                        to);
            }
            i = skipWhitespace(bytes, i + 1, to);
            int nameStart = i;
            while (i < to && HttpChars.isTChar(bytes[i])) {
                i++;
            }
            if (i == nameStart) {
                throw bad("invalid chunk extension name", bytes, lineFrom, to);
            }
            int afterName = skipWhitespace(bytes, i, to);
            if (afterName < to && bytes[afterName] == '=') {
                i = skipWhitespace(bytes, afterName + 1, to);
                if (i < to && bytes[i] == '"') {
                    i = quotedString(bytes, i, to, lineFrom);
                } else {
                    int valueStart = i;
                    while (i < to && HttpChars.isTChar(bytes[i])) {
                        i++;
                    }
                    if (i == valueStart) {
                        throw bad("invalid chunk extension value", bytes, lineFrom, to);
                    }
                }
            }
            // Trailing whitespace with no following ';' is rejected at the top of the loop.
        }
    }

    // quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE; quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
    private static int quotedString(byte[] bytes, int i, int to, int lineFrom) {
        for (i++; i < to; i++) {
            byte b = bytes[i];
            if (b == '"') {
                return i + 1;
            }
            if (b == '\\') {
                if (++i == to || !HttpChars.isFieldContent(bytes[i])) {
                    throw bad("invalid quoted-pair in chunk extension", bytes, lineFrom, to);
                }
            } else if (!HttpChars.isQdText(b)) {
                throw bad("invalid character " + HttpChars.describe(b) + " in chunk extension", bytes, lineFrom, to);
            }
        }
        throw bad("unterminated quoted string in chunk extension", bytes, lineFrom, to);
    }

    private static int skipWhitespace(byte[] bytes, int i, int to) {
        while (i < to && HttpChars.isWhitespace(bytes[i])) {
            i++;
        }
        return i;
    }

    private static BadMessageException bad(String problem, byte[] bytes, int from, int to) {
        return new BadMessageException(problem + ": " + HttpChars.quote(bytes, from, to));
    }
}
