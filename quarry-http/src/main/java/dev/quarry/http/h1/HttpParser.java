package dev.quarry.http.h1;

import dev.quarry.http.BadMessageException;
import dev.quarry.http.HttpCompliance;
import dev.quarry.http.HttpField;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpMethod;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.internal.HttpChars;
import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * A strict, allocation-light push parser of HTTP/1.1 requests (RFC 9112) that rejects what request smuggling uses.
 *
 * <p><b>Use.</b> Call {@link #parse(ByteBuffer)} with whatever bytes arrived; it never blocks, consumes what it can,
 * keeps its state between calls and handles any split point. It reports the request through a
 * {@link HttpRequestListener} and returns when a callback asks it to (back pressure, one pipelined request at a time),
 * when it needs more bytes, or after an error. After {@code messageComplete} it parses nothing until {@link #reset()};
 * after {@link #atEOF()} the end of input is reported; after a bad message, EOF or {@link #close()} it stays closed.
 *
 * <p><b>Lines</b> ({@code LineReader}). Lines are found with a word-at-a-time search for LF and parsed with tight
 * loops over a byte array: the backing array of a heap buffer, in place; for a direct buffer, a per-connection window
 * filled by one bulk copy that serves the following lines of the same call; for a line split across calls, a scratch
 * array. Both arrays are bounded by the limit of the line's section, so a peer that never sends LF cannot make them
 * grow.
 *
 * <p><b>Strictness</b> (each leniency is a named {@link HttpCompliance.Violation}; the default allows none):
 * CRLF line endings (LF alone is {@code LF_LINE_TERMINATOR}; chunked framing and trailers always need CRLF) and no bare
 * CR anywhere; see {@code RequestLine} for the request line, {@code FieldParser} for field lines,
 * {@code MessageFraming} for Content-Length, Transfer-Encoding and Host, {@code ChunkLine} for chunk lines. Obs-fold is
 * 400 unless {@code OBS_FOLD}, and never in Content-Length, Transfer-Encoding or Host, nor before the first field. Up to
 * {@link HttpParserConfig#maxLeadingEmptyLines()} empty lines before a request line are ignored (RFC 9112 §2.2).
 * Trailer fields are parsed with the header rules and their own size limit; a field that must not be a trailer
 * ({@link HttpHeader#isForbiddenInTrailer()}: framing, routing, authentication...) is <em>rejected</em> with 400 rather
 * than dropped, since a proxy that merged it would see a different message.
 *
 * <p><b>Allocation.</b> Known methods, versions and header names resolve from the bytes without allocating; common and
 * learned field values come from a {@code FieldCache}; a repeated target reuses its string. The parser itself keeps
 * no per-request objects once warm; the listener receives the fields it builds (the request's field list is the
 * listener's, not the parser's). Content is delivered as a slice of the input buffer (one small view object per
 * content callback).
 *
 * <p><b>Responses.</b> {@link HttpResponseParser} parses them with the same {@code ParserCore} (lines, field sections,
 * content, chunks), which calls no listener so that this parser's calls stay monomorphic when a client runs in the
 * same JVM; the listener is split in {@link HttpMessageListener} (shared) and {@link HttpRequestListener}.
 *
 * <p>Thread-safety: not thread-safe; one parser per connection, used by one thread at a time.
 */
public final class HttpParser extends ParserCore {

    /** Where the parser is in a message. */
    public enum State {
        /** Waiting for a request line, possibly after ignored empty lines. */
        REQUEST_LINE,
        /** Inside the HTTP/2 connection preface, after {@code PRI * HTTP/2.0}. */
        PREFACE,
        /** Parsing header field lines. */
        HEADERS,
        /** Parsing content of a known length. */
        CONTENT,
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
        /** The message is complete; {@link #reset()} starts the next one. */
        END,
        /** The HTTP/2 preface was parsed; the connection belongs to HTTP/2 now. */
        HTTP2,
        /** Closed by EOF, {@link #close()} or a bad message. */
        CLOSED
    }

    private static final byte[] PREFACE_TAIL = {'\r', '\n', 'S', 'M', '\r', '\n', '\r', '\n'};

    private final HttpRequestListener listener;
    private final RequestLine requestLine = new RequestLine();

    private State state = State.REQUEST_LINE;
    private boolean eof;
    private boolean persistent;

    private int leadingEmptyLines;
    private int prefaceIndex;

    /** A parser with {@link HttpParserConfig#DEFAULT}. */
    public HttpParser(HttpRequestListener listener) {
        this(listener, HttpParserConfig.DEFAULT);
    }

    /**
     * @param listener receives the request events
     * @param config the limits and compliance mode
     */
    public HttpParser(HttpRequestListener listener, HttpParserConfig config) {
        super(checkArguments(listener, config), true);
        this.listener = listener;
    }

    /**
     * Parses as much of {@code buffer} as possible, from its position to its limit, reporting events to the listener.
     *
     * @param buffer the bytes that arrived; its position advances past what was consumed; the parser does not keep a
     *     reference to it after the call (a partial line is copied), and its bytes must not change during the call
     * @return true when a callback asked to stop, after {@code badMessage}, {@code earlyEOF} or the HTTP/2 preface;
     *     false when more bytes are needed or the message is complete and waits for {@link #reset()}
     */
    public boolean parse(ByteBuffer buffer) {
        line.invalidateWindow();
        try {
            while (true) {
                switch (state) {
                    case REQUEST_LINE -> {
                        if (!nextLine(buffer, ParserCore.START_LINE)) {
                            return needMore();
                        }
                        onRequestLine();
                    }
                    case PREFACE -> {
                        if (!parsePreface(buffer)) {
                            return needMore();
                        }
                        state = State.HTTP2;
                        listener.http2Preface();
                        return true;
                    }
                    case HEADERS -> {
                        if (!nextLine(buffer, ParserCore.HEADERS)) {
                            return needMore();
                        }
                        HttpField field = headerLine(requestLine.version());
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
                        state = framing.chunked() ? State.TRAILERS : State.MESSAGE_END;
                        startSection();
                        if (listener.contentComplete()) {
                            return true;
                        }
                    }
                    case MESSAGE_END -> {
                        state = State.END;
                        return listener.messageComplete();
                    }
                    case END, HTTP2, CLOSED -> {
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
        if (state == State.REQUEST_LINE && line.partial() == 0) {
            state = State.CLOSED; // a clean close between messages
            return false;
        }
        state = State.CLOSED;
        persistent = false;
        line.clear();
        listener.earlyEOF();
        return true;
    }

    // --- request line and preface ----------------------------------------------------------------------------------

    private void onRequestLine() {
        checkLineEnd(true);
        if (line.isEmpty()) {
            if (++leadingEmptyLines > config.maxLeadingEmptyLines()) {
                throw new BadMessageException(
                        "more than " + config.maxLeadingEmptyLines() + " empty lines before the request line");
            }
            return;
        }
        requestLine.parse(line.bytes(), line.from(), line.to());
        if (requestLine.isPreface()) {
            if (!line.crlf()) {
                throw new BadMessageException("HTTP/2 connection preface with LF line terminator");
            }
            state = State.PREFACE;
            prefaceIndex = 0;
            return;
        }
        HttpVersion version = requestLine.version();
        persistent = version.persistentByDefault();
        state = State.HEADERS;
        startSection();
        listener.startRequest(requestLine.method(), requestLine.target(), version);
    }

    private boolean parsePreface(ByteBuffer buffer) {
        int position = buffer.position();
        int limit = buffer.limit();
        while (prefaceIndex < PREFACE_TAIL.length) {
            if (position == limit) {
                buffer.position(position);
                return false;
            }
            byte b = buffer.get(position);
            if (b != PREFACE_TAIL[prefaceIndex]) {
                buffer.position(position);
                throw new BadMessageException("invalid HTTP/2 connection preface, unexpected " + HttpChars.describe(b)
                        + " after PRI * HTTP/2.0");
            }
            position++;
            prefaceIndex++;
        }
        buffer.position(position);
        return true;
    }

    // --- framing -------------------------------------------------------------------------------------------------

    private boolean headerComplete() {
        HttpVersion version = requestLine.version();
        framing.complete(version, config.maxContentLength());
        persistent = framing.persistent(version);
        if (framing.chunked()) {
            expectUnknownLength();
            state = State.CHUNK_SIZE;
        } else {
            long contentLength = Math.max(framing.contentLength(), 0);
            expectContent(contentLength);
            state = contentLength > 0 ? State.CONTENT : State.CONTENT_END;
        }
        return listener.headerComplete();
    }

    // --- life cycle and accessors ----------------------------------------------------------------------------------

    /**
     * Prepares for the next message on a persistent connection, keeping the connection's field cache. Does nothing
     * before a message starts, or once the parser is closed or handed to HTTP/2.
     *
     * @throws IllegalStateException if a message is in progress: its unconsumed content would then be parsed as the
     *     next request (smuggling by the server itself); finish the message or close the connection instead
     */
    public void reset() {
        if (state == State.CLOSED || state == State.HTTP2 || isStart()) {
            return;
        }
        if (state != State.END) {
            throw new IllegalStateException("cannot reset in the middle of a message: " + this);
        }
        state = State.REQUEST_LINE;
        leadingEmptyLines = 0;
        prefaceIndex = 0;
        requestLine.reset();
        resetMessage();
    }

    /**
     * Signals that no more bytes will arrive: the next {@link #parse} consumes what is left, then closes, reporting
     * {@code earlyEOF} if a message was in progress.
     */
    public void atEOF() {
        eof = true;
    }

    /** @return whether {@link #atEOF()} was called */
    public boolean isAtEOF() {
        return eof;
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

    /** @return whether the parser waits for a request and holds no byte of it */
    public boolean isStart() {
        return state == State.REQUEST_LINE && line.partial() == 0;
    }

    /** @return whether the parser holds part of a request head (request line, fields or the preface), not all of it */
    public boolean isInHead() {
        return switch (state) {
            case REQUEST_LINE -> line.partial() > 0;
            case PREFACE, HEADERS -> true;
            default -> false;
        };
    }

    /** @return whether a message is complete and waits for {@link #reset()} */
    public boolean isComplete() {
        return state == State.END;
    }

    /** @return whether no message is in progress: closing the connection now loses nothing */
    public boolean isIdle() {
        return isStart() || state == State.END || state == State.CLOSED || state == State.HTTP2;
    }

    /** @return whether the parser is closed (EOF, {@link #close()} or a bad message) */
    public boolean isClosed() {
        return state == State.CLOSED;
    }

    /**
     * @return the content length of the current request once its header section is complete: the declared length, 0
     *     when there is no content, -1 when chunked or not yet known
     */
    public long contentLength() {
        return contentLength;
    }

    /** @return whether the current request's content is chunked */
    public boolean isChunked() {
        return framing.chunked() && state.ordinal() >= State.CONTENT.ordinal();
    }

    /**
     * @return whether the connection may carry another request after this one: by version (HTTP/1.1 persists, HTTP/1.0
     *     does not) and the Connection tokens {@code close} and {@code keep-alive}; false after an error
     */
    public boolean isPersistent() {
        return persistent;
    }

    /** @return whether the current request has {@code Expect: 100-continue} (valid once headers are complete) */
    public boolean expectsContinue() {
        return framing.expectContinue();
    }

    /** @return the current request's version, once its request line is parsed */
    public Optional<HttpVersion> version() {
        return Optional.ofNullable(requestLine.version());
    }

    /** @return the current request's standard method, if it is one */
    public Optional<HttpMethod> method() {
        return Optional.ofNullable(requestLine.knownMethod());
    }

    /** @return the configuration */
    public HttpParserConfig config() {
        return config;
    }

    /** @return the number of fields this connection's cache learned (for tests and dumps) */
    public int learnedFieldCount() {
        return fieldParser.learnedCount();
    }

    @Override
    public String toString() {
        return "HttpParser{" + state
                + (requestLine.method() == null
                        ? ""
                        : ", " + requestLine.method() + " " + requestLine.target() + " " + requestLine.version())
                + ", contentLength=" + contentLength
                + ", remaining=" + remaining
                + ", chunked=" + framing.chunked()
                + ", persistent=" + persistent
                + ", partial=" + line.partial()
                + ", eof=" + eof
                + ", learned=" + fieldParser.learnedCount()
                + ", compliance=" + compliance.name() + "}";
    }
}
