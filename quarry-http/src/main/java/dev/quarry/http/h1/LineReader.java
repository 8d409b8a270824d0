package dev.quarry.http.h1;

import dev.quarry.http.internal.HttpChars;
import dev.quarry.http.internal.ThreadScratch;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Finds HTTP/1 lines in buffers that arrive in arbitrary pieces, and exposes the current line as a byte range.
 *
 * <p>The line feed is found with a word-at-a-time search over a byte array. A heap buffer's backing array is used in
 * place. A direct buffer is read through a <em>window</em>: one bulk copy (a memory copy, no per-byte access) of up to
 * {@link #WINDOW} bytes from the line's start into a per-connection array, which then serves the following lines too,
 * so that a request's header section costs one copy; the window is only trusted within one {@code parse} call, since
 * the caller may reuse the buffer between calls. So it is borrowed for each call from the thread's
 * {@link ThreadScratch} (an idle connection holds none of its own). A line split across buffers is assembled in a
 * scratch array. Both arrays are bounded by the caller's line limit, so a peer that never sends LF cannot make them
 * grow past it.
 *
 * <p>Thread-safety: confined to its parser's thread. Cost: O(line) per line; allocation-free once the arrays have grown
 * to the longest line seen (a thread's window is allocated on its first direct buffer).
 */
final class LineReader {
    /** A complete line is available. */
    static final int LINE = 0;
    /** The buffer ended before LF; what arrived is kept. */
    static final int NEED_MORE = 1;
    /** The line is longer than the limit. */
    static final int TOO_LONG = 2;

    /**
     * The initial size of the window over a direct buffer: a typical request line or header line, and several of
     * them. Kept small because every connection holds its window while idle (measured in idle-connections).
     */
    static final int WINDOW = 256;

    private static final byte[] NO_BYTES = new byte[0];
    private static final ThreadScratch WINDOWS = new ThreadScratch(WINDOW);

    // Only a line split across reads needs it, so it is allocated on first use: an idle connection holds none.
    private byte[] scratch = NO_BYTES;
    // Borrowed at each parse call (see invalidateWindow); on a virtual thread, this reader's own.
    private byte[] window;
    private boolean ownWindow;
    private ByteBuffer windowBuffer;
    private int windowStart;
    private int windowEnd;
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
            lf = windowIndexOfLf(buffer, position, searchTo, limit);
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
        } else if (partial == 0) {
            bytes = window; // windowIndexOfLf guarantees [position, lf] is in the window
            from = position - windowStart;
            to = lf - windowStart;
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

    /** Forgets the window: the caller may have changed the buffer's content since the last line. */
    void invalidateWindow() {
        windowBuffer = null;
        byte[] lent = WINDOWS.get();
        if (lent != null) {
            window = lent;
            ownWindow = false;
        } else if (!ownWindow) {
            window = null; // never use another thread's array: a virtual thread gets its own, at first need
        }
    }

    // Searches buffer[position, searchTo) through the window, refilling it from `position` (the line's start) so that a
    // found line is always contiguous in it.
    private int windowIndexOfLf(ByteBuffer buffer, int position, int searchTo, int limit) {
        if (windowBuffer != buffer || position < windowStart || position >= windowEnd) {
            fillWindow(buffer, position, limit, WINDOW);
        }
        while (true) {
            int end = Math.min(searchTo, windowEnd);
            int lf = HttpChars.indexOfLf(window, position - windowStart, end - windowStart);
            if (lf >= 0) {
                return lf + windowStart;
            }
            if (end >= searchTo) {
                return -1;
            }
            // The window ends before what the line may take: refill it from the line's start, larger if need be.
            fillWindow(
                    buffer, position, limit, Math.max(window.length, Math.min(2 * window.length, searchTo - position)));
        }
    }

    private void fillWindow(ByteBuffer buffer, int start, int limit, int size) {
        if (window == null || window.length < size) {
            window = new byte[Math.max(size, WINDOW)];
            if (ownWindow || WINDOWS.get() == null) {
                ownWindow = true;
            } else {
                WINDOWS.keep(window);
            }
        }
        int length = Math.min(limit - start, window.length);
        buffer.get(start, window, 0, length);
        windowBuffer = buffer;
        windowStart = start;
        windowEnd = start + length;
    }

    private void append(ByteBuffer buffer, int start, int end) {
        int length = end - start;
        if (partial + length > scratch.length) {
            scratch = Arrays.copyOf(scratch, Math.max(Math.max(scratch.length * 2, 128), partial + length));
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
