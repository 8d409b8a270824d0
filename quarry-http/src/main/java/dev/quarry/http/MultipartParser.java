package dev.quarry.http;

import dev.quarry.http.internal.FieldParameters;
import dev.quarry.http.internal.HttpChars;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * An incremental parser of {@code multipart/form-data} content (RFC 7578 over the syntax of RFC 2046 §5.1.1): fed
 * chunks split anywhere, it reports each part's head, its content in pieces, and its end to a {@link Listener}.
 *
 * <p>Syntax: an optional preamble, then parts each introduced by a delimiter line {@code --boundary} (transport
 * padding of SP and HTAB allowed before its CRLF), a header section ended by an empty line and content; the close
 * delimiter {@code --boundary--} ends the parts and whatever follows (the epilogue) is ignored. Every part must have
 * {@code Content-Disposition: form-data} with a {@code name}; {@code filename*} (RFC 8187) wins over {@code filename};
 * a part without Content-Type is {@code text/plain} (RFC 7578 §4.4). Lines end with CRLF; header fields may not be
 * folded; header bytes are UTF-8 (RFC 7578 §5.1.3: browsers send file names that way).
 *
 * <p>Errors are {@link HttpException}s naming the problem: 400 for malformed content (a delimiter followed by anything
 * but {@code --}, padding or CRLF; a bad header line; a missing name; no final boundary at {@link #finish()}), 413
 * when a {@link Limits limit} is passed. After an error the parser must not be used.
 *
 * <p>Cost: content bytes are scanned once (a search for CR, then a comparison with the delimiter) and handed to the
 * listener as slices of the caller's array: nothing is allocated per byte, and the only copy is of header bytes, into
 * one array of {@link Limits#maxPartHeaderSize()} reused for every part. A delimiter split across chunks is
 * remembered as a count of matched bytes; if it turns out not to be one, those bytes are handed on from the delimiter
 * itself (it has a CR only in its first byte, as boundaries may not contain one, so a failed match never hides the
 * start of another).
 *
 * <p>Thread-safety: not thread-safe; one feeder at a time.
 */
public final class MultipartParser {

    /**
     * The limits of one multipart body; each is a 413 when passed.
     *
     * @param maxParts the most parts
     * @param maxPartHeaderSize the most bytes of one part's header section, its empty line included
     * @param maxPartSize the most content bytes of one part
     * @param maxTotalSize the most bytes of the whole body, preamble and epilogue included
     */
    public record Limits(int maxParts, int maxPartHeaderSize, long maxPartSize, long maxTotalSize) {
        /** 100 parts, 8 KiB of headers per part, 16 MiB per part, 64 MiB in all. */
        public static final Limits DEFAULT = new Limits(100, 8 * 1024, 16L << 20, 64L << 20);

        /** Checks that every limit is positive. */
        public Limits {
            if (maxParts <= 0 || maxPartHeaderSize < 4 || maxPartSize <= 0 || maxTotalSize <= 0) {
                throw new IllegalArgumentException("multipart limits must be positive (part headers at least 4 bytes): "
                        + maxParts + ", " + maxPartHeaderSize + ", " + maxPartSize + ", " + maxTotalSize);
            }
        }

        /** @return a copy with {@code maxParts} */
        public Limits withMaxParts(int maxParts) {
            return new Limits(maxParts, maxPartHeaderSize, maxPartSize, maxTotalSize);
        }

        /** @return a copy with {@code maxPartHeaderSize} */
        public Limits withMaxPartHeaderSize(int maxPartHeaderSize) {
            return new Limits(maxParts, maxPartHeaderSize, maxPartSize, maxTotalSize);
        }

        /** @return a copy with {@code maxPartSize} */
        public Limits withMaxPartSize(long maxPartSize) {
            return new Limits(maxParts, maxPartHeaderSize, maxPartSize, maxTotalSize);
        }

        /** @return a copy with {@code maxTotalSize} */
        public Limits withMaxTotalSize(long maxTotalSize) {
            return new Limits(maxParts, maxPartHeaderSize, maxPartSize, maxTotalSize);
        }
    }

    /**
     * What a part's header section says.
     *
     * @param name the form field name ({@code name} parameter of Content-Disposition)
     * @param filename the file name the client sent, if the part is a file; as sent, so never a path to trust
     * @param contentType the part's Content-Type, {@code text/plain} when absent
     * @param headers every header field of the part
     */
    public record PartHead(String name, Optional<String> filename, String contentType, HttpFields headers) {}

    /** Receives the parts, in order, on the thread that feeds the parser. */
    public interface Listener {
        /**
         * A part begins.
         *
         * @param head its head
         * @throws IOException to stop parsing (it propagates from {@link #parse})
         */
        void onPartBegin(PartHead head) throws IOException;

        /**
         * Some content of the current part: a slice of the array given to {@link #parse}, or of the delimiter.
         *
         * @param bytes the array; its bytes must be copied before the call returns
         * @param offset where the content starts
         * @param length how many bytes, at least 1
         * @throws IOException to stop parsing
         */
        void onPartContent(byte[] bytes, int offset, int length) throws IOException;

        /**
         * The current part is complete.
         *
         * @throws IOException to stop parsing
         */
        void onPartEnd() throws IOException;
    }

    private enum State {
        PREAMBLE,
        AFTER_DELIMITER,
        CLOSE_DASH,
        PADDING,
        PADDING_LF,
        HEADERS,
        CONTENT,
        EPILOGUE
    }

    private static final int MAX_BOUNDARY = 70;

    private final byte[] delimiter;
    private final String boundary;
    private final Limits limits;
    private final Listener listener;
    private final byte[] header;
    private State state = State.PREAMBLE;
    // Delimiter bytes matched so far, and how many of them arrived in earlier chunks (held back, not yet reported).
    private int matched = 2; // the body may start with "--boundary": as if the CRLF before it had been seen
    private int held = 2;
    private int headerLength;
    private int parts;
    private long partSize;
    private long totalSize;

    /**
     * @param boundary the boundary, e.g. from {@link #boundary(MediaType)}
     * @param limits the limits
     * @param listener receives the parts
     * @throws HttpException 400 if the boundary is not valid (RFC 2046 §5.1.1: 1 to 70 characters of a small set)
     */
    public MultipartParser(String boundary, Limits limits, Listener listener) {
        checkBoundary(boundary);
        this.boundary = boundary;
        this.delimiter = ("\r\n--" + boundary).getBytes(StandardCharsets.US_ASCII);
        this.limits = limits;
        this.listener = listener;
        this.header = new byte[limits.maxPartHeaderSize()];
    }

    /**
     * @param contentType the Content-Type of the body
     * @return its boundary
     * @throws HttpException 415 if it is not {@code multipart/form-data}; 400 if the boundary is missing or invalid
     */
    public static String boundary(MediaType contentType) {
        if (!contentType.is("multipart/form-data")) {
            throw new HttpException(
                    HttpStatus.UNSUPPORTED_MEDIA_TYPE_415,
                    "expected multipart/form-data, not " + HttpChars.quote(contentType.toString()));
        }
        String boundary = contentType
                .parameter("boundary")
                .orElseThrow(() -> new BadMessageException("multipart/form-data without a boundary parameter"));
        checkBoundary(boundary);
        return boundary;
    }

    private static void checkBoundary(String boundary) {
        boolean valid = !boundary.isEmpty()
                && boundary.length() <= MAX_BOUNDARY
                && boundary.charAt(boundary.length() - 1) != ' ';
        for (int i = 0; i < boundary.length() && valid; i++) {
            char c = boundary.charAt(i);
            valid = (c >= '0' && c <= '9')
                    || (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || "'()+_,-./:=? ".indexOf(c) >= 0;
        }
        if (!valid) {
            throw new BadMessageException("invalid multipart boundary " + HttpChars.quote(boundary)
                    + ": expected 1 to 70 letters, digits or '()+_,-./:=? (RFC 2046 §5.1.1)");
        }
    }

    /** @return whether the close delimiter was seen: the parts are complete */
    public boolean isComplete() {
        return state == State.EPILOGUE;
    }

    /**
     * Parses the next chunk of the body, reporting what it completes to the listener.
     *
     * @param bytes the array
     * @param offset where the chunk starts
     * @param length how many bytes
     * @throws HttpException 400 for malformed content, 413 past a limit
     * @throws IOException if the listener throws it
     */
    public void parse(byte[] bytes, int offset, int length) throws IOException {
        totalSize += length;
        if (totalSize > limits.maxTotalSize()) {
            throw new HttpException(
                    HttpStatus.CONTENT_TOO_LARGE_413, "multipart body larger than " + limits.maxTotalSize() + " bytes");
        }
        int i = offset;
        int end = offset + length;
        while (i < end) {
            switch (state) {
                case PREAMBLE, CONTENT -> i = scan(bytes, i, end);
                case AFTER_DELIMITER -> {
                    byte b = bytes[i++];
                    if (b == '-') {
                        state = State.CLOSE_DASH;
                    } else {
                        state = State.PADDING;
                        i--;
                    }
                }
                case CLOSE_DASH -> {
                    if (bytes[i++] != '-') {
                        throw new BadMessageException("expected '--' or CRLF after multipart boundary "
                                + HttpChars.quote(boundary) + ", found '-' and " + HttpChars.describe(bytes[i - 1]));
                    }
                    state = State.EPILOGUE;
                }
                case PADDING -> {
                    byte b = bytes[i++];
                    if (b == '\r') {
                        state = State.PADDING_LF;
                    } else if (!HttpChars.isWhitespace(b)) {
                        throw new BadMessageException("expected CRLF after multipart boundary "
                                + HttpChars.quote(boundary) + ", found " + HttpChars.describe(b));
                    }
                }
                case PADDING_LF -> {
                    byte b = bytes[i++];
                    if (b != '\n') {
                        throw new BadMessageException("expected LF after CR after multipart boundary "
                                + HttpChars.quote(boundary) + ", found " + HttpChars.describe(b));
                    }
                    if (++parts > limits.maxParts()) {
                        throw new HttpException(
                                HttpStatus.CONTENT_TOO_LARGE_413,
                                "too many multipart parts: more than " + limits.maxParts());
                    }
                    headerLength = 0;
                    state = State.HEADERS;
                }
                case HEADERS -> i = headers(bytes, i, end);
                case EPILOGUE -> i = end;
            }
        }
    }

    /**
     * Ends the body.
     *
     * @throws HttpException 400 if the close delimiter was not seen
     */
    public void finish() {
        if (state == State.EPILOGUE) {
            return;
        }
        if (state == State.PREAMBLE) {
            throw new BadMessageException(
                    "multipart body without the boundary " + HttpChars.quote(boundary) + " of its Content-Type");
        }
        throw new BadMessageException("multipart body ended before its final boundary "
                + HttpChars.quote("--" + boundary + "--") + (parts > 0 ? ", in part " + parts : ""));
    }

    // Searches the delimiter in the preamble (discarding) or in a part's content (reporting).
    private int scan(byte[] bytes, int from, int end) throws IOException {
        boolean content = state == State.CONTENT;
        int contentStart = from;
        int i = from;
        while (i < end) {
            if (matched == 0) {
                while (i < end && bytes[i] != '\r') {
                    i++;
                }
                if (i == end) {
                    break;
                }
                matched = 1;
                i++;
            } else if (bytes[i] == delimiter[matched]) {
                i++;
                if (++matched == delimiter.length) {
                    int delimiterStart = i - (delimiter.length - held);
                    if (content) {
                        report(bytes, contentStart, delimiterStart);
                        listener.onPartEnd();
                    }
                    matched = 0;
                    held = 0;
                    state = State.AFTER_DELIMITER;
                    return i;
                }
            } else {
                // Not a delimiter: what was held from earlier chunks is content after all; the bytes matched in this
                // chunk are already in [contentStart, i). The current byte is examined again: it may be a CR.
                if (content && held > 0) {
                    report(delimiter, 0, held);
                }
                held = 0;
                matched = 0;
            }
        }
        if (content) {
            report(bytes, contentStart, end - (matched - held));
        }
        held = matched;
        return end;
    }

    private void report(byte[] bytes, int from, int to) throws IOException {
        if (to > from) {
            partSize += to - from;
            if (partSize > limits.maxPartSize()) {
                throw new HttpException(
                        HttpStatus.CONTENT_TOO_LARGE_413,
                        "multipart part " + parts + " larger than " + limits.maxPartSize() + " bytes");
            }
            listener.onPartContent(bytes, from, to - from);
        }
    }

    private int headers(byte[] bytes, int from, int end) throws IOException {
        int i = from;
        while (i < end) {
            if (headerLength == header.length) {
                throw new HttpException(
                        HttpStatus.CONTENT_TOO_LARGE_413,
                        "headers of multipart part " + parts + " larger than " + header.length + " bytes");
            }
            byte b = bytes[i++];
            header[headerLength++] = b;
            if (b == '\n'
                    && headerLength >= 2
                    && header[headerLength - 2] == '\r'
                    && (headerLength == 2
                            || (headerLength >= 4
                                    && header[headerLength - 3] == '\n'
                                    && header[headerLength - 4] == '\r'))) {
                PartHead head = parseHead();
                partSize = 0;
                state = State.CONTENT;
                listener.onPartBegin(head);
                return i;
            }
        }
        return i;
    }

    private PartHead parseHead() {
        HttpFields fields = new HttpFields(4);
        int lineStart = 0;
        int sectionEnd = headerLength - 2; // before the empty line's CRLF
        while (lineStart < sectionEnd) {
            int lf = HttpChars.indexOfLf(header, lineStart, sectionEnd);
            int lineEnd = lf - 1; // every line of the section ends with CRLF, the search found its LF
            if (lf < 0 || header[lineEnd] != '\r') {
                throw badHeader("a bare CR or LF", lineStart, lf < 0 ? sectionEnd : lf);
            }
            field(fields, lineStart, lineEnd);
            lineStart = lf + 1;
        }
        String disposition = fields.get(HttpHeader.CONTENT_DISPOSITION)
                .orElseThrow(() -> new BadMessageException(
                        "multipart part " + parts + " has no Content-Disposition (RFC 7578 §4.2)"));
        int semicolon = disposition.indexOf(';');
        String type = (semicolon < 0 ? disposition : disposition.substring(0, semicolon)).strip();
        if (!type.equalsIgnoreCase("form-data")) {
            throw new BadMessageException("multipart part " + parts + " has Content-Disposition "
                    + HttpChars.quote(disposition) + ", expected form-data (RFC 7578 §4.2)");
        }
        Map<String, String> parameters = new LinkedHashMap<>(4);
        if (semicolon >= 0) {
            FieldParameters.parse(disposition, semicolon, parameters, "Content-Disposition");
        }
        String name = parameters.get("name");
        if (name == null) {
            throw new BadMessageException("multipart part " + parts + " has no name in its Content-Disposition "
                    + HttpChars.quote(disposition) + " (RFC 7578 §4.2)");
        }
        String extended = parameters.get("filename*");
        Optional<String> filename = extended != null
                ? Optional.of(decodeExtended(extended))
                : Optional.ofNullable(parameters.get("filename"));
        String contentType = fields.get(HttpHeader.CONTENT_TYPE).orElse("text/plain");
        return new PartHead(name, filename, contentType, fields.asImmutable());
    }

    private void field(HttpFields fields, int from, int to) {
        if (HttpChars.isWhitespace(header[from])) {
            throw badHeader("a folded line (obs-fold)", from, to);
        }
        int colon = from;
        while (colon < to && header[colon] != ':') {
            if (!HttpChars.isTChar(header[colon])) {
                throw badHeader("an invalid field name", from, to);
            }
            colon++;
        }
        if (colon == from || colon == to) {
            throw badHeader("no field name and ':'", from, to);
        }
        int valueStart = colon + 1;
        while (valueStart < to && HttpChars.isWhitespace(header[valueStart])) {
            valueStart++;
        }
        int valueEnd = to;
        while (valueEnd > valueStart && HttpChars.isWhitespace(header[valueEnd - 1])) {
            valueEnd--;
        }
        if (HttpChars.indexOfInvalidFieldContent(header, valueStart, valueEnd) >= 0) {
            throw badHeader("a control character", from, to);
        }
        String value;
        try {
            value = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(header, valueStart, valueEnd - valueStart))
                    .toString();
        } catch (CharacterCodingException x) {
            throw badHeader("invalid UTF-8", from, to);
        }
        fields.add(new String(header, from, colon - from, StandardCharsets.US_ASCII), value);
    }

    private BadMessageException badHeader(String problem, int from, int to) {
        return new BadMessageException("header line of multipart part " + parts + " has " + problem + ": "
                + HttpChars.quote(header, from, to));
    }

    // RFC 8187 §3.2: charset'[language]'value-chars, the value percent-encoded.
    private String decodeExtended(String value) {
        int first = value.indexOf('\'');
        int second = first < 0 ? -1 : value.indexOf('\'', first + 1);
        if (second < 0) {
            throw new BadMessageException("invalid filename* in multipart part " + parts
                    + ": expected charset'language'value (RFC 8187 §3.2), got " + HttpChars.quote(value));
        }
        String charsetName = value.substring(0, first).toLowerCase(Locale.ROOT);
        Charset charset = switch (charsetName) {
            case "utf-8" -> StandardCharsets.UTF_8;
            case "iso-8859-1" -> StandardCharsets.ISO_8859_1;
            default ->
                throw new BadMessageException("unsupported charset in filename* of multipart part " + parts + ": "
                        + HttpChars.quote(value) + " (RFC 8187 §3.2.1: UTF-8 or ISO-8859-1)");
        };
        String encoded = value.substring(second + 1);
        byte[] bytes = new byte[encoded.length()];
        int n = 0;
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '%'
                    && i + 2 < encoded.length()
                    && hex(encoded.charAt(i + 1)) >= 0
                    && hex(encoded.charAt(i + 2)) >= 0) {
                bytes[n++] = (byte) (hex(encoded.charAt(i + 1)) << 4 | hex(encoded.charAt(i + 2)));
                i += 2;
            } else if (c > 0x20 && c < 0x7F && c != '%') {
                bytes[n++] = (byte) c;
            } else {
                throw new BadMessageException("invalid filename* in multipart part " + parts
                        + ": a bad percent-encoding or character (RFC 8187 §3.2.1): " + HttpChars.quote(value));
            }
        }
        try {
            return charset.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, 0, n))
                    .toString();
        } catch (CharacterCodingException x) {
            throw new BadMessageException(
                    "invalid " + charset.name() + " in filename* of multipart part " + parts + ": "
                            + HttpChars.quote(value),
                    x);
        }
    }

    private static int hex(char c) {
        return c < 0x80 ? HttpChars.hexValue(c) : -1;
    }
}
