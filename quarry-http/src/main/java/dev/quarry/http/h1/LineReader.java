package dev.quarry.http.h1;

import dev.quarry.http.internal.HttpChars;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Finds HTTP/1 lines in buffers that arrive in arbitrary pieces, and exposes the current line as a byte range.
 *
 * <p>The line feed is found with a word-at-a-time search: over the backing array of a heap buffer, with absolute reads
 * on a direct buffer (no position updates). A line that lies entirely in a heap buffer is used in place; a line from a
 * direct buffer, or one split across buffers, is assembled in a scratch array by bulk copies. A partial line is bounded
 * by the caller's limit, so a peer that never sends LF cannot make the scratch array grow past it.
 *
 * <p>Thread-safety: confined to its parser's thread. Cost: O(line) per line; allocation-free once the scratch array has
 * grown to the longest line seen.
 */
final class LineReader {
    /** A complete line is available. */
    static final int LINE = 0;
    /** The buffer ended before LF; what arrived is kept. */
    static final int NEED_MORE = 1;
    /** The line is longer than the limit. */
    static final int TOO_LONG = 2;

    private byte[] scratch = new byte[256];
    private int partial;
    private byte[] bytes;
    private int from;
    private int to;
    private boolean crlf;
    private int size;

    /**
     * Looks for the next line from the buffer's position.
     *
     * @param buffer the input; on {@link #LINE} its position moves past the LF, on {@link #NEED_MORE} to its limit
     * @param maxSize the most bytes the line may have, LF included
     * @return {@link #LINE}, {@link #NEED_MORE} or {@link #TOO_LONG}
     */
    int next(ByteBuffer buffer, int maxSize) {
        int position = buffer.position();
        int limit = buffer.limit();
        int allowed = maxSize - partial;
        int searchTo = (int) Math.min(limit, (long) position + Math.max(allowed, 0));
        byte[] array = buffer.hasArray() ? buffer.array() : null;
        int lf;
        if (array != null) {
            int offset = buffer.arrayOffset();
            lf = HttpChars.indexOfLf(array, offset + position, offset + searchTo);
            lf = lf < 0 ? -1 : lf - offset;
        } else {
            lf = HttpChars.indexOfLf(buffer, position, searchTo);
        }
        if (lf < 0) {
            // No LF within what the line may still take: either more bytes are there (too long already), or the
            // bytes that arrived fill the allowance so that any LF would exceed it.
            if (searchTo < limit || limit - position >= allowed) {
                return TOO_LONG;
            }
            append(buffer, position, limit);
            buffer.position(limit);
            return NEED_MORE;
        }
        size = partial + lf + 1 - position;
        if (partial == 0 && array != null) {
            bytes = array;
            from = buffer.arrayOffset() + position;
            to = buffer.arrayOffset() + lf;
        } else {
            append(buffer, position, lf);
            bytes = scratch;
            from = 0;
            to = partial;
            partial = 0;
        }
        buffer.position(lf + 1);
        crlf = to > from && bytes[to - 1] == '\r';
        if (crlf) {
            to--;
        }
        return LINE;
    }

    private void append(ByteBuffer buffer, int start, int end) {
        int length = end - start;
        if (partial + length > scratch.length) {
            scratch = Arrays.copyOf(scratch, Math.max(scratch.length * 2, partial + length));
        }
        buffer.get(start, scratch, partial, length);
        partial += length;
    }

    /** @return the array holding the current line */
    byte[] bytes() {
        return bytes;
    }

    /** @return the index of the current line's first byte */
    int from() {
        return from;
    }

    /** @return the index after the current line's last byte, CR and LF excluded */
    int to() {
        return to;
    }

    /** @return whether the current line is empty */
    boolean isEmpty() {
        return to == from;
    }

    /** @return whether the current line ended with CRLF rather than LF alone */
    boolean crlf() {
        return crlf;
    }

    /** @return the size of the current line on the wire, CR and LF included */
    int size() {
        return size;
    }

    /** @return the number of bytes of an incomplete line kept so far */
    int partial() {
        return partial;
    }

    /** Drops an incomplete line. */
    void clear() {
        partial = 0;
    }

    /** @return the current line, quoted for an error reason */
    String quote() {
        return HttpChars.quote(bytes, from, to);
    }
}
