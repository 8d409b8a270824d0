package dev.quarry.http.h1;

import dev.quarry.http.BadMessageException;
import dev.quarry.http.HttpCompliance;
import dev.quarry.http.HttpField;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.internal.HttpChars;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link HttpParser} (requests) and {@link HttpResponseParser} (responses) share: reading lines within the limit
 * of their section, the header and trailer field sections (obs-fold, field count and size limits, forbidden trailers,
 * the framing fields), known-length content, chunk lines, chunk data and the CRLF after it.
 *
 * <p><b>Why a sealed base with no abstract method and no callbacks.</b> The server's request parsing is a measured hot
 * path, and a client and a server can run in one JVM. Every method here is final and none calls back into a subclass
 * or a listener: each step returns what the parser reports (a completed field, a content slice, whether a chunk
 * follows), and each parser makes the listener call itself, so every call site stays monomorphic for its kind of
 * message. What differs between requests and responses is data fixed at construction (the error statuses, which fields
 * feed the framing checks), not a virtual call. The state lives in the parser object itself: a separate core object
 * (composition) measured 2-3% more CPU per request in HttpParserBenchmark's single request, from the extra indirection
 * at every field access after a call that is not inlined. Each parser keeps its own start line, state machine,
 * end-of-input handling and RFC 9112 §6.3 framing decision.
 *
 * <p>The order of events is the parsers' contract: a field is completed (and reported by the parser) when the next line
 * starts another field or ends the section, and only then is that next line parsed, so a field is reported before an
 * error found in the line after it.
 *
 * <p>Thread-safety: confined to its parser's thread. Allocation-free but for the fields it parses.
 */
abstract sealed class ParserCore permits HttpParser, HttpResponseParser {

    /** {@link #nextLine} section: the request or status line. */
    static final int START_LINE = 0;
    /** {@link #nextLine} section: a header field line or the empty line after the header section. */
    static final int HEADERS = 1;
    /** {@link #nextLine} section: a trailer field line or the empty line that ends the message. */
    static final int TRAILERS = 2;
    /** {@link #nextLine} section: a chunk-size line. */
    static final int CHUNK_LINE = 3;

    final HttpParserConfig config;
    final HttpCompliance compliance;
    final LineReader line = new LineReader();
    final FieldParser fieldParser;
    final MessageFraming framing = new MessageFraming();

    // Requests and responses differ here by data only (see the class comment); the error paths derive their statuses
    // from it, so that an idle connection's parser holds no more than this flag.
    private final boolean request;

    private int sectionSize;
    private int fieldCount;
    private HttpField pending;
    private boolean pendingCached;
    // A field line whose parsing waits until the field before it is reported (see the class comment).
    private boolean fieldLine;
    // Read by the parsers' accessors.
    long contentLength = -1;
    long remaining;
    private long contentReceived;
    private int crlfIndex;

    /**
     * @param config the limits and compliance mode
     * @param request true for requests: limits are reported with 414, 431 and 413 and every known field feeds the
     *     framing checks; false for responses: errors keep the plain status (meaningless for a response, whose reason
     *     names the problem) and only Content-Length, Transfer-Encoding and Connection feed them (Host and Expect are
     *     request fields)
     */
    ParserCore(HttpParserConfig config, boolean request) {
        this.config = config;
        this.compliance = config.compliance();
        this.fieldParser = new FieldParser(compliance);
        this.request = request;
    }

    // A response's error status is meaningless (its reason names the problem): 400, as for any other bad response.
    private int errorStatus(int requestStatus) {
        return request ? requestStatus : HttpStatus.BAD_REQUEST_400;
    }

    /**
     * Checks a parser's constructor arguments in the order its Javadoc promises, before {@code super} may use them.
     *
     * @return {@code config}
     */
    static HttpParserConfig checkArguments(Object listener, HttpParserConfig config) {
        Objects.requireNonNull(listener, "listener");
        return Objects.requireNonNull(config, "config");
    }

    // --- lines ---------------------------------------------------------------------------------------------------

    /**
     * Reads the next line of a section, within what is left of the section's limit.
     *
     * @param section {@link #START_LINE}, {@link #HEADERS}, {@link #TRAILERS} or {@link #CHUNK_LINE}
     * @return true when a whole line is available in {@link #line}, false when more bytes are needed
     * @throws BadMessageException if the line is longer than the limit
     */
    final boolean nextLine(ByteBuffer buffer, int section) {
        int result = line.next(buffer, lineLimit(section));
        if (result == LineReader.TOO_LONG) {
            throw lineTooLong(section);
        }
        return result == LineReader.LINE;
    }

    // The most bytes the current line may have, CRLF included, given the limits of its section.
    private int lineLimit(int section) {
        return switch (section) {
            case START_LINE -> config.maxRequestLineLength();
            case HEADERS -> config.maxHeaderSize() - sectionSize;
            case TRAILERS -> config.maxTrailerSize() - sectionSize;
            default -> 16 + config.maxChunkExtensionLength() + 2; // CHUNK_LINE: digits, extension, CRLF
        };
    }

    private BadMessageException lineTooLong(int section) {
        return switch (section) {
            case START_LINE ->
                new BadMessageException(
                        errorStatus(HttpStatus.URI_TOO_LONG_414),
                        (request ? "request line" : "status line") + " longer than " + config.maxRequestLineLength()
                                + " bytes");
            case HEADERS ->
                new BadMessageException(
                        errorStatus(HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE_431),
                        "header section larger than " + config.maxHeaderSize() + " bytes");
            case TRAILERS ->
                new BadMessageException(
                        errorStatus(HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE_431),
                        "trailer section larger than " + config.maxTrailerSize() + " bytes");
            default ->
                new BadMessageException("chunk size line longer than " + lineLimit(section)
                        + " bytes (chunk extension limit " + config.maxChunkExtensionLength() + ")");
        };
    }

    /** Rejects a line ended by LF alone unless allowed for this section. */
    final void checkLineEnd(boolean lenientAllowed) {
        if (!line.crlf() && !(lenientAllowed && compliance.allows(HttpCompliance.Violation.LF_LINE_TERMINATOR))) {
            HttpCompliance.Violation v = HttpCompliance.Violation.LF_LINE_TERMINATOR;
            throw new BadMessageException("line ended by LF without CR (" + (lenientAllowed ? v + ", " : "")
                    + v.rfcSection() + ")" + ": " + line.quote());
        }
    }

    // --- header and trailer sections --------------------------------------------------------------------------------

    /** Starts a header or trailer section: its size and field count start from zero. */
    final void startSection() {
        sectionSize = 0;
        fieldCount = 0;
    }

    /**
     * Handles a header line: a continuation (obs-fold) joins the pending field; a field line or the empty line completes
     * it, feeding the framing checks and the field cache.
     *
     * @param version the message's version, for the framing checks
     * @return the field completed by this line, to report, or null
     */
    final HttpField headerLine(HttpVersion version) {
        if (!sectionLine(true)) {
            return null;
        }
        HttpField field = pending;
        if (field == null) {
            return null;
        }
        pending = null;
        HttpHeader header = field.header().orElse(null);
        if (header != null) {
            if (request
                    || header == HttpHeader.CONTENT_LENGTH
                    || header == HttpHeader.TRANSFER_ENCODING
                    || header == HttpHeader.CONNECTION) {
                framing.onHeader(header, field, pendingCached, version, compliance);
            }
            if (!pendingCached) {
                fieldParser.learn(header, field);
            }
        }
        return field;
    }

    /**
     * Handles a trailer line like {@link #headerLine}; trailers need CRLF and do not feed the framing checks.
     *
     * @return the field completed by this line, to report, or null
     */
    final HttpField trailerLine() {
        if (!sectionLine(false)) {
            return null;
        }
        HttpField field = pending;
        pending = null;
        return field;
    }

    /**
     * Finishes the line handled by {@link #headerLine} or {@link #trailerLine}, once the field it completed is reported:
     * parses it if it starts a field.
     *
     * @param trailer true in the trailer section: its fields are not cached and some may not be trailers at all
     * @return whether the section goes on: false after the empty line that ends it
     */
    final boolean continueSection(boolean trailer) {
        if (!fieldLine) {
            return !line.isEmpty();
        }
        fieldLine = false;
        if (++fieldCount > config.maxFieldCount()) {
            throw new BadMessageException(
                    errorStatus(HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE_431),
                    "more than " + config.maxFieldCount() + (trailer ? " trailer fields" : " header fields"));
        }
        HttpField field = fieldParser.parse(line.bytes(), line.from(), line.to());
        pending = field;
        if (!trailer) {
            pendingCached = fieldParser.lastWasCached();
            return true;
        }
        pendingCached = false;
        Optional<HttpHeader> header = field.header();
        if (header.isPresent() && header.get().isForbiddenInTrailer()) {
            throw new BadMessageException("field not allowed in a trailer section (RFC 9110 §6.5.1): " + line.quote());
        }
        return true;
    }

    // @return false for a continuation line (folded into the pending field), true when the line completes the pending
    //     field: the empty line, or a field line (then marked for continueSection)
    private boolean sectionLine(boolean lenientLineEnd) {
        checkLineEnd(lenientLineEnd);
        sectionSize += line.size();
        if (line.isEmpty()) {
            return true;
        }
        if (HttpChars.isWhitespace(line.bytes()[line.from()])) {
            fold();
            return false;
        }
        fieldLine = true;
        return true;
    }

    // obs-fold (RFC 9112 §5.2): a line starting with SP or HTAB continues the previous field's value.
    private void fold() {
        if (pending == null) {
            // RFC 9112 §2.2: whitespace between the start line and the first field: reject.
            throw new BadMessageException("whitespace before the first field line: " + line.quote());
        }
        HttpHeader header = pending.header().orElse(null);
        if (!compliance.allows(HttpCompliance.Violation.OBS_FOLD) || FieldParser.isFramingOrRouting(header)) {
            throw new BadMessageException("obsolete line folding (" + HttpCompliance.Violation.OBS_FOLD.rfcSection()
                    + ") in " + pending.name() + ": " + line.quote());
        }
        String continuation = fieldParser.continuation(line.bytes(), line.from(), line.to());
        String value = pending.value().isEmpty()
                ? continuation
                : continuation.isEmpty() ? pending.value() : pending.value() + ' ' + continuation;
        pending = HttpField.of(pending.header(), pending.name(), value);
        pendingCached = false;
    }

    // --- content ------------------------------------------------------------------------------------------------

    /**
     * Expects content of a known length (0 for none) after the header section.
     *
     * @param length the content length
     */
    final void expectContent(long length) {
        contentReceived = 0;
        contentLength = length;
        remaining = length;
    }

    /** Expects content whose length is not known: chunked, or (for a response) delimited by the connection's close. */
    final void expectUnknownLength() {
        contentReceived = 0;
        contentLength = -1;
    }

    /**
     * Takes the content available in {@code buffer}, up to what is left of the content or chunk.
     *
     * @param buffer holds content from its position, which moves past what is taken
     * @return a view of the bytes taken, to report
     */
    final ByteBuffer content(ByteBuffer buffer) {
        int position = buffer.position();
        int length = (int) Math.min(buffer.remaining(), remaining);
        ByteBuffer chunk = buffer.slice(position, length);
        buffer.position(position + length);
        remaining -= length;
        return chunk;
    }

    /**
     * Parses the chunk-size line just read, checking the total against the content limit.
     *
     * @return true when chunk data follows, false for the last chunk (trailers follow)
     */
    final boolean chunkLine() {
        checkLineEnd(false);
        long size = ChunkLine.parse(line.bytes(), line.from(), line.to(), config.maxChunkExtensionLength());
        if (size == 0) {
            return false;
        }
        contentReceived += size;
        if (contentReceived > config.maxContentLength() || contentReceived < 0) {
            throw new BadMessageException(
                    errorStatus(HttpStatus.CONTENT_TOO_LARGE_413),
                    "chunked content exceeds the limit of " + config.maxContentLength() + " bytes");
        }
        remaining = size;
        return true;
    }

    /**
     * Consumes the CRLF after chunk data, which may arrive split.
     *
     * @return true once both bytes are consumed, false when more bytes are needed
     */
    final boolean chunkEnd(ByteBuffer buffer) {
        while (crlfIndex < 2) {
            if (!buffer.hasRemaining()) {
                return false;
            }
            int position = buffer.position();
            byte b = buffer.get(position);
            if (b != (crlfIndex == 0 ? '\r' : '\n')) {
                throw new BadMessageException("missing CRLF after chunk data, found " + HttpChars.describe(b));
            }
            buffer.position(position + 1);
            crlfIndex++;
        }
        crlfIndex = 0;
        return true;
    }

    // --- life cycle -------------------------------------------------------------------------------------------------

    /** Forgets the current message, keeping the field cache. */
    final void resetMessage() {
        line.clear();
        sectionSize = 0;
        fieldCount = 0;
        pending = null;
        fieldLine = false;
        contentLength = -1;
        remaining = 0;
        contentReceived = 0;
        crlfIndex = 0;
        framing.reset();
    }
}
