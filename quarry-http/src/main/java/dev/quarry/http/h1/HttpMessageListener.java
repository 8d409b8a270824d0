package dev.quarry.http.h1;

import dev.quarry.http.BadMessageException;
import dev.quarry.http.HttpField;
import java.nio.ByteBuffer;

/**
 * The events of one HTTP/1 message after its start line, common to requests and responses: header fields, the end of
 * the header section, content, trailer fields, the end of the message, and the two ways a message can fail.
 *
 * <p>Callbacks that return a boolean ask {@link HttpParser#parse(ByteBuffer)} to return ({@code true}) or to go on
 * ({@code false}). That is how a server handles a request before its body is parsed, parses more body only when the
 * application demands it (back pressure), and handles pipelined requests one at a time.
 *
 * <p>A callback may throw {@link BadMessageException} to reject the message: the parser then reports it to
 * {@link #badMessage(BadMessageException)} like its own errors. Any other exception propagates out of {@code parse} and
 * leaves the parser unusable.
 *
 * <p>Thread-safety: called by the thread that calls {@code parse}, one callback at a time.
 */
public interface HttpMessageListener {

    /**
     * A header field line, after validation. Well-known names arrive in their canonical spelling; common fields arrive
     * as shared instances from the parser's field cache.
     *
     * @param field the field
     */
    void header(HttpField field);

    /**
     * The header section is complete and valid: framing is known ({@link HttpParser#contentLength()},
     * {@link HttpParser#isChunked()}).
     *
     * @return true to make {@code parse} return now, e.g. to handle the request before reading its body; the next call
     *     to {@code parse}, even with an empty buffer, continues with the content
     */
    boolean headerComplete();

    /**
     * Some content, with chunked framing removed.
     *
     * @param chunk a slice of the buffer given to {@code parse}, never empty; its bytes are valid until that buffer is
     *     reused, so consume or copy them before parsing again
     * @return true to make {@code parse} return now, leaving the rest of the buffer unparsed (back pressure)
     */
    boolean content(ByteBuffer chunk);

    /**
     * All content has arrived (immediately after {@link #headerComplete()} when there is none).
     *
     * @return true to make {@code parse} return now
     */
    boolean contentComplete();

    /**
     * A trailer field line of chunked content, after validation; fields that must not be trailers were rejected.
     *
     * @param field the field
     */
    default void trailer(HttpField field) {}

    /**
     * The message is complete. The parser then waits for {@link HttpParser#reset()} before it parses the next message.
     *
     * @return true to make {@code parse} return now (what {@code parse} returns)
     */
    boolean messageComplete();

    /**
     * The message is invalid. The parser is closed: answer with {@link BadMessageException#status()} and close the
     * connection, since the framing of whatever follows cannot be trusted.
     *
     * @param failure the status and the reason, naming the problem and the offending value
     */
    void badMessage(BadMessageException failure);

    /** The input ended (see {@link HttpParser#atEOF()}) in the middle of a message. The parser is closed. */
    void earlyEOF();
}
