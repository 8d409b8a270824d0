package dev.quarry.http.h1;

import dev.quarry.http.BadMessageException;
import dev.quarry.http.HttpField;
import dev.quarry.http.HttpMethod;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.internal.HttpChars;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A strict push parser of HTTP/1.1 responses (RFC 9112), the client's sibling of {@link HttpParser}: the same
 * {@code ParserCore} (line reader, field sections, content, chunk lines and framing checks), with a status-line state
 * and the response framing rules of RFC 9112 §6.3.
 *
 * <p><b>Framing</b>, in the order of §6.3: a response to HEAD ({@link #responseToHead(boolean)}) and every 1xx, 204
 * and 304 response end with their header section, whatever their fields say; otherwise Transfer-Encoding
 * {@code chunked} frames the content (with trailers); otherwise a valid Content-Length; otherwise the content is
 * <em>close-delimited</em>: it ends when the connection does ({@link #atEOF()}), and the connection cannot be reused.
 *
 * <p><b>Strictness</b>: the status line must be {@code HTTP/1.0} or {@code HTTP/1.1}, SP, three digits from 100 to
 * 599, SP, and a reason phrase of VCHAR, obs-text, SP and HTAB; lines end with CRLF unless {@code LF_LINE_TERMINATOR}
 * is allowed; both Content-Length and Transfer-Encoding, conflicting or malformed Content-Length values, a transfer
 * coding other than {@code chunked}, bad chunk lines and fields that must not be trailers are errors (reported to
 * {@link HttpMessageListener#badMessage}, whose status is meaningless for a response: its reason names the problem).
 * The limits of {@link HttpParserConfig} apply: {@code maxRequestLineLength} bounds the status line.
 *
 * <p><b>Use</b>: as {@link HttpParser}: {@link #parse(ByteBuffer)} consumes what it can, callbacks that return true
 * make it return (back pressure), {@link #reset()} after {@code messageComplete} before the next response.
 *
 * <p>Thread-safety: not thread-safe; one parser per connection, used by one thread at a time.
 */
public final class HttpResponseParser extends ParserCore {

    /** Where the parser is in a response. */
    public enum State {
        /** Waiting for a status line. */
        STATUS_LINE,
        /** Parsing header field lines. */
        HEADERS,
        /** Parsing content of a known length. */
        CONTENT,
        /** Parsing content that ends when the connection does. */
        EOF_CONTENT,
        /** Parsing a chunk-size line. */
        CHUNK_SIZE,
        /** Parsing chunk data. */
        CHUNK_DATA,
        /** Expecting the CRLF after chunk data. */
        CHUNK_END,
        /** Parsing trailer field lines. */
        TRAILERS,
        /** About to report that the content is complete. */
        CONTENT_END,
        /** About to report that the message is complete. */
        MESSAGE_END,
        /** The response is complete; {@link #reset()} starts the next one. */
        END,
        /** Closed by EOF, {@link #close()} or a bad message. */
        CLOSED
    }

    private static final byte[] HTTP_1_ = "HTTP/1.".getBytes(StandardCharsets.US_ASCII);

    private final HttpResponseListener listener;

    private State state = State.STATUS_LINE;
    private boolean eof;
    private boolean persistent;
    private boolean head;
    private HttpVersion version;
    private int status;

    /** A parser with {@link HttpParserConfig#DEFAULT}. */
    public HttpResponseParser(HttpResponseListener listener) {
        this(listener, HttpParserConfig.DEFAULT);
    }

    /**
     * @param listener receives the response events
     * @param config the limits and compliance mode
     */
    public HttpResponseParser(HttpResponseListener listener, HttpParserConfig config) {
        super(checkArguments(listener, config), false);
        this.listener = listener;
    }

    /**
     * Says whether the response being parsed answers a HEAD request, so that it has no content whatever its
     * Content-Length says (RFC 9112 §6.3). Set before each response; {@link #reset()} clears it.
     *
     * @param head true for a response to HEAD
     */
    public void responseToHead(boolean head) {
        this.head = head;
    }

    /**
     * Like {@link #responseToHead(boolean)}, from the request's method.
     *
     * @param method the request's method
     */
    public void requestMethod(String method) {
        responseToHead(HttpMethod.HEAD.asString().equals(method));
    }

    /**
     * Parses as much of {@code buffer} as possible, reporting events to the listener.
     *
     * @param buffer the bytes that arrived; its position advances past what was consumed
     * @return true when a callback asked to stop, after {@code badMessage} or {@code earlyEOF}; false when more bytes
     *     are needed or the response is complete and waits for {@link #reset()}
     */
    public boolean parse(ByteBuffer buffer) {
        line.invalidateWindow();
        try {
            while (true) {
                switch (state) {
                    case STATUS_LINE -> {
                        if (!nextLine(buffer, ParserCore.START_LINE)) {
                            return needMore();
                        }
                        onStatusLine();
                    }
                    case HEADERS -> {
                        if (!nextLine(buffer, ParserCore.HEADERS)) {
                            return needMore();
                        }
                        HttpField field = headerLine(version);
                        if (field != null) {
                            listener.header(field);
                        }
                        if (!continueSection(false) && headerComplete()) {
                            return true;
                        }
                    }
                    case CONTENT, CHUNK_DATA -> {
                        if (remaining == 0) {
                            state = state == State.CONTENT ? State.CONTENT_END : State.CHUNK_END;
                            continue;
                        }
                        if (!buffer.hasRemaining()) {
                            return needMore();
                        }
                        ByteBuffer chunk = content(buffer);
                        if (remaining == 0) {
                            state = state == State.CONTENT ? State.CONTENT_END : State.CHUNK_END;
                        }
                        if (listener.content(chunk)) {
                            return true;
                        }
                    }
                    case EOF_CONTENT -> {
                        if (!buffer.hasRemaining()) {
                            if (!eof) {
                                return false;
                            }
                            state = State.CONTENT_END;
                            continue;
                        }
                        int position = buffer.position();
                        int length = buffer.remaining();
                        ByteBuffer chunk = buffer.slice(position, length);
                        buffer.position(position + length);
                        if (listener.content(chunk)) {
                            return true;
                        }
                    }
                    case CHUNK_SIZE -> {
                        if (!nextLine(buffer, ParserCore.CHUNK_LINE)) {
                            return needMore();
                        }
                        state = chunkLine() ? State.CHUNK_DATA : State.CONTENT_END;
                    }
                    case CHUNK_END -> {
                        if (!chunkEnd(buffer)) {
                            return needMore();
                        }
                        state = State.CHUNK_SIZE;
                    }
                    case TRAILERS -> {
                        if (!nextLine(buffer, ParserCore.TRAILERS)) {
                            return needMore();
                        }
                        HttpField field = trailerLine();
                        if (field != null) {
                            listener.trailer(field);
                        }
                        if (!continueSection(true)) {
                            state = State.MESSAGE_END;
                        }
                    }
                    case CONTENT_END -> {
                        state = framing.chunked() && !noContent() ? State.TRAILERS : State.MESSAGE_END;
                        startSection();
                        if (listener.contentComplete()) {
                            return true;
                        }
                    }
                    case MESSAGE_END -> {
                        state = State.END;
                        return listener.messageComplete();
                    }
                    case END, CLOSED -> {
                        return false;
                    }
                }
            }
        } catch (BadMessageException failure) {
            state = State.CLOSED;
            persistent = false;
            line.clear();
            listener.badMessage(failure);
            return true;
        }
    }

    // --- end of input ----------------------------------------------------------------------------------------------

    private boolean needMore() {
        if (!eof) {
            return false;
        }
        if (isStart()) {
            state = State.CLOSED; // a clean close between responses
            return false;
        }
        state = State.CLOSED;
        persistent = false;
        line.clear();
        listener.earlyEOF();
        return true;
    }

    // --- status line -----------------------------------------------------------------------------------------------

    // status-line = HTTP-version SP status-code SP [ reason-phrase ] (RFC 9112 §4)
    private void onStatusLine() {
        checkLineEnd(true);
        byte[] bytes = line.bytes();
        int from = line.from();
        int to = line.to();
        if (to - from < 13) {
            throw badStatusLine(bytes, from, to);
        }
        for (int i = 0; i < HTTP_1_.length; i++) {
            if (bytes[from + i] != HTTP_1_[i]) {
                throw badStatusLine(bytes, from, to);
            }
        }
        byte minor = bytes[from + 7];
        if (minor == '1') {
            version = HttpVersion.HTTP_1_1;
        } else if (minor == '0') {
            version = HttpVersion.HTTP_1_0;
        } else {
            throw new BadMessageException("unsupported version in status line: " + HttpChars.quote(bytes, from, to));
        }
        if (bytes[from + 8] != ' ' || bytes[from + 12] != ' ') {
            throw badStatusLine(bytes, from, to);
        }
        int code = 0;
        for (int i = from + 9; i < from + 12; i++) {
            byte b = bytes[i];
            if (b < '0' || b > '9') {
                throw badStatusLine(bytes, from, to);
            }
            code = code * 10 + (b - '0');
        }
        if (code < 100 || code > 599) {
            throw new BadMessageException(
                    "status code " + code + " out of range 100-599: " + HttpChars.quote(bytes, from, to));
        }
        for (int i = from + 13; i < to; i++) {
            byte b = bytes[i];
            if (!HttpChars.isFieldContent(b) && !HttpChars.isWhitespace(b)) {
                throw new BadMessageException("invalid character " + HttpChars.describe(b) + " in reason phrase: "
                        + HttpChars.quote(bytes, from, to));
            }
        }
        status = code;
        persistent = version.persistentByDefault();
        state = State.HEADERS;
        startSection();
        String reason =
                to == from + 13 ? "" : new String(bytes, from + 13, to - from - 13, StandardCharsets.ISO_8859_1);
        listener.startResponse(version, code, reason);
    }

    private static BadMessageException badStatusLine(byte[] bytes, int from, int to) {
        return new BadMessageException(
                "invalid status line (want HTTP-version SP 3DIGIT SP reason): " + HttpChars.quote(bytes, from, to));
    }

    // --- framing (RFC 9112 §6.3) ---------------------------------------------------------------------------------

    /** @return whether this response has no content whatever its fields say (RFC 9112 §6.3 rules 1 and 2) */
    private boolean noContent() {
        return head || HttpStatus.isInformational(status) || status == 204 || status == 304;
    }

    private boolean headerComplete() {
        if (noContent()) {
            // A 1xx has no framing at all; 204 and 304 still get their fields checked for smuggling-grade conflicts.
            if (!HttpStatus.isInformational(status)) {
                framing.completeResponse(Long.MAX_VALUE);
            }
            persistent = framing.persistent(version);
            expectContent(0);
            state = State.CONTENT_END;
        } else {
            framing.completeResponse(config.maxContentLength());
            persistent = framing.persistent(version);
            if (framing.chunked()) {
                expectUnknownLength();
                state = State.CHUNK_SIZE;
            } else if (framing.contentLength() >= 0) {
                long contentLength = framing.contentLength();
                expectContent(contentLength);
                state = contentLength > 0 ? State.CONTENT : State.CONTENT_END;
            } else {
                expectUnknownLength();
                persistent = false; // RFC 9112 §6.3 rule 8: the content ends when the connection closes
                state = State.EOF_CONTENT;
            }
        }
        return listener.headerComplete();
    }

    // --- life cycle and accessors ----------------------------------------------------------------------------------

    /**
     * Prepares for the next response on a persistent connection (or the final response after an interim one),
     * keeping the field cache. Does nothing before a response starts or once the parser is closed.
     *
     * @throws IllegalStateException if a response is in progress
     */
    public void reset() {
        if (state == State.CLOSED || isStart()) {
            head = false;
            return;
        }
        if (state != State.END) {
            throw new IllegalStateException("cannot reset in the middle of a response: " + this);
        }
        state = State.STATUS_LINE;
        head = false;
        version = null;
        status = 0;
        resetMessage();
    }

    /**
     * Signals that no more bytes will arrive: the next {@link #parse} consumes what is left, then completes a
     * close-delimited response or reports {@code earlyEOF} if a response was in progress.
     */
    public void atEOF() {
        eof = true;
    }

    /** Closes the parser: it parses nothing more. */
    public void close() {
        state = State.CLOSED;
        line.clear();
        persistent = false;
    }

    /** @return the current state */
    public State state() {
        return state;
    }

    /** @return whether the parser waits for a status line and holds no byte of it */
    public boolean isStart() {
        return state == State.STATUS_LINE && line.partial() == 0;
    }

    /** @return whether a response is complete and waits for {@link #reset()} */
    public boolean isComplete() {
        return state == State.END;
    }

    /** @return whether the parser is closed (EOF, {@link #close()} or a bad message) */
    public boolean isClosed() {
        return state == State.CLOSED;
    }

    /** @return the status of the current response, once its status line is parsed; 0 before */
    public int status() {
        return status;
    }

    /**
     * @return the content length of the current response once its header section is complete: the declared length,
     *     0 when there is no content, -1 when chunked or close-delimited
     */
    public long contentLength() {
        return contentLength;
    }

    /** @return whether the current response's content is chunked */
    public boolean isChunked() {
        return framing.chunked() && !noContent() && state.ordinal() >= State.CONTENT.ordinal();
    }

    /**
     * @return whether the connection may carry another request after this response: by version and Connection tokens,
     *     and not after close-delimited content or an error
     */
    public boolean isPersistent() {
        return persistent;
    }

    /** @return the configuration */
    public HttpParserConfig config() {
        return config;
    }

    @Override
    public String toString() {
        return "HttpResponseParser{" + state + (status == 0 ? "" : ", " + version + " " + status)
                + ", contentLength=" + contentLength + ", remaining=" + remaining + ", chunked="
                + framing.chunked()
                + ", persistent=" + persistent + ", head=" + head + ", partial=" + line.partial() + ", eof=" + eof
                + "}";
    }
}
