package dev.quarry.http.h1;

import dev.quarry.http.HttpField;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpMethod;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.PreEncodedHttpField;
import dev.quarry.http.internal.HttpChars;
import dev.quarry.http.internal.ThreadScratch;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * Writes HTTP/1.1 responses: the head (status line and fields), chunk headers and the last chunk with trailers, and
 * decides the framing and whether the connection persists (RFC 9112 §4, §6-7, §9.3; RFC 9110 §6.4.1, §8.6).
 *
 * <p><b>Framing</b> ({@link #framing}): no content for 1xx, 204, 304, HEAD and a 2xx answer to CONNECT; otherwise
 * Content-Length when the length is known, chunked for HTTP/1.1 and close-delimited for HTTP/1.0 when it is not. HEAD
 * and 304 keep a declared Content-Length (the length a GET would have had); 1xx, 204 and 2xx-to-CONNECT never carry one.
 * The generator owns the framing fields: Content-Length and Transfer-Encoding in the response fields are not written
 * as given (a Content-Length there is taken as the length when none is passed).
 *
 * <p><b>Persistence</b>: the connection stays open when the request allowed it (version and Connection tokens, see
 * {@link HttpParser#isPersistent()}), the content is not close-delimited and the application did not set
 * {@code Connection: close}. The generator then writes {@code Connection: close} when closing and
 * {@code Connection: keep-alive} when keeping an HTTP/1.0 connection open; {@link #isPersistent()} tells the caller.
 *
 * <p><b>Injection</b>: names must be tokens and values may contain only VCHAR, obs-text, SP and HTAB; a CR, LF, NUL or
 * other control character throws {@link IllegalArgumentException} naming the field, before anything is written, so
 * that a value from user input can never start a new line on the wire.
 *
 * <p><b>Cost</b>: the head is composed in a reused array and written with one bulk put (a direct buffer gets one
 * memory copy); status lines are pre-encoded; a {@link PreEncodedHttpField} is one array copy and a well-known name is
 * its pre-encoded prefix. If {@code out} is too small, {@link BufferOverflowException} is thrown and nothing is
 * written: retry with a larger buffer.
 *
 * <p>Thread-safety: not thread-safe; one generator per connection. {@link #reset()} between responses.
 */
public final class HttpGenerator {
    /** {@code HTTP/1.1 100 Continue\r\n\r\n}, the interim response to {@code Expect: 100-continue}. */
    private static final byte[] CONTINUE_100 = ascii("HTTP/1.1 100 Continue\r\n\r\n");

    private static final byte[][] STATUS_LINES = new byte[600][];
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] CHUNKED = ascii("Transfer-Encoding: chunked\r\n");
    private static final byte[] CONNECTION_CLOSE = ascii("Connection: close\r\n");
    private static final byte[] CONNECTION_KEEP_ALIVE = ascii("Connection: keep-alive\r\n");
    private static final byte[] CONTENT_LENGTH = HttpHeader.CONTENT_LENGTH.prefixBytes();
    private static final byte[] LAST_CHUNK = ascii("0\r\n");

    static {
        for (int code = 100; code < 600; code++) {
            STATUS_LINES[code] = ascii("HTTP/1.1 " + code + " " + HttpStatus.reason(code) + "\r\n");
        }
    }

    private static final int SCRATCH = 256;
    private static final ThreadScratch HEADS = new ThreadScratch(SCRATCH);

    // Where a head is composed before one copy into the output: borrowed from the thread's ThreadScratch at each write
    // call (nothing in it is trusted across calls), so that an idle connection holds none of its own; on a virtual
    // thread, this generator's own. 256 bytes hold a typical response head; it grows to the largest one.
    private byte[] scratch;
    private boolean ownScratch;
    private boolean committed;
    private boolean persistent;
    private Framing framing;
    private boolean chunkOpen;
    private boolean complete;

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Decides how a response is framed; pure, for the table of RFC 9112 §6.3.
     *
     * @param version the request's version
     * @param method the request's method
     * @param status the response status
     * @param contentLength the content length, or -1 when unknown
     * @return the framing
     */
    public static Framing framing(HttpVersion version, String method, int status, long contentLength) {
        if (HttpStatus.hasNoBody(status)
                || HttpMethod.HEAD.is(method)
                || (HttpMethod.CONNECT.is(method) && HttpStatus.isSuccess(status))) {
            return Framing.NONE;
        }
        if (contentLength >= 0) {
            return Framing.CONTENT_LENGTH;
        }
        return version == HttpVersion.HTTP_1_0 ? Framing.CLOSE_DELIMITED : Framing.CHUNKED;
    }

    /**
     * Writes the status line and header section of a response.
     *
     * <p>An informational (1xx) response other than 101 is interim: it is written with its fields only, and the final
     * response follows with another call.
     *
     * @param out where to write, from its position
     * @param version the request's version (the status line always says HTTP/1.1, RFC 9110 §6.2)
     * @param method the request's method
     * @param status the status code, 100-599
     * @param fields the response fields, written in order
     * @param contentLength the content length, or -1 when unknown (then a Content-Length field is used, if any)
     * @param persistentRequest whether the request allows the connection to persist ({@link HttpParser#isPersistent()})
     * @return the framing of the content the caller must now write
     * @throws IllegalArgumentException if a field would inject a line (CR, LF or another control character)
     * @throws IllegalStateException if a final response head was already written
     * @throws BufferOverflowException if {@code out} is too small; nothing was written
     */
    public Framing writeResponseHead(
            ByteBuffer out,
            HttpVersion version,
            String method,
            int status,
            HttpFields fields,
            long contentLength,
            boolean persistentRequest) {
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(method, "method");
        if (!HttpStatus.isValid(status)) {
            throw new IllegalArgumentException("invalid status code " + status);
        }
        if (committed) {
            throw new IllegalStateException("response head already written: " + this);
        }
        borrowScratch();
        boolean interim = HttpStatus.isInformational(status) && status != HttpStatus.SWITCHING_PROTOCOLS_101;
        long length = contentLength >= 0 ? contentLength : declaredLength(fields);
        Framing decided = framing(version, method, status, length);
        boolean keep = persistentRequest && decided != Framing.CLOSE_DELIMITED;

        byte[] statusLine = STATUS_LINES[status];
        int n = ensure(0, statusLine.length + estimate(fields) + 96);
        System.arraycopy(statusLine, 0, scratch, 0, statusLine.length);
        n += statusLine.length;
        boolean connectionClose = false;
        boolean connectionKeepAlive = false;
        for (int i = 0, size = fields.size(); i < size; i++) {
            HttpField field = fields.field(i);
            if (field.is(HttpHeader.CONTENT_LENGTH) || field.is(HttpHeader.TRANSFER_ENCODING)) {
                continue; // owned by the generator
            }
            if (field.is(HttpHeader.CONNECTION)) {
                connectionClose |= field.containsToken("close");
                connectionKeepAlive |= field.containsToken("keep-alive");
            }
            n = writeField(field, n);
        }
        if (!interim) {
            keep &= !connectionClose;
            boolean writeLength = length >= 0
                    && (decided == Framing.CONTENT_LENGTH
                            || (decided == Framing.NONE
                                    && (HttpMethod.HEAD.is(method) || status == HttpStatus.NOT_MODIFIED_304)));
            if (writeLength) {
                n = put(CONTENT_LENGTH, n);
                n = putDecimal(length, n);
                n = put(CRLF, n);
            } else if (decided == Framing.CHUNKED) {
                n = put(CHUNKED, n);
            }
            if (!keep && !connectionClose) {
                n = put(CONNECTION_CLOSE, n);
            } else if (keep && version == HttpVersion.HTTP_1_0 && !connectionKeepAlive) {
                n = put(CONNECTION_KEEP_ALIVE, n);
            }
        }
        n = put(CRLF, n);
        if (out.remaining() < n) {
            throw new BufferOverflowException();
        }
        out.put(scratch, 0, n);
        if (!interim) {
            committed = true;
            persistent = keep;
            framing = decided;
            complete = decided == Framing.NONE;
        }
        return interim ? Framing.NONE : decided;
    }

    /**
     * Writes the interim response {@code HTTP/1.1 100 Continue} (RFC 9110 §15.2.1).
     *
     * @throws BufferOverflowException if {@code out} has less than 25 bytes left; nothing was written
     */
    public static void writeContinue(ByteBuffer out) {
        out.put(CONTINUE_100);
    }

    /** @return a copy of the bytes of {@code HTTP/1.1 100 Continue\r\n\r\n} */
    public static byte[] continueBytes() {
        return CONTINUE_100.clone();
    }

    /**
     * Writes the header of the next chunk: the CRLF that closes the previous chunk's data, if any, then
     * {@code size-in-hex CRLF}. The caller then writes exactly {@code size} bytes.
     *
     * @param out where to write
     * @param size the chunk's data size, positive
     * @throws IllegalStateException if the response is not chunked or is complete
     * @throws BufferOverflowException if {@code out} is too small; nothing was written
     */
    public void writeChunkHeader(ByteBuffer out, long size) {
        if (framing != Framing.CHUNKED || complete) {
            throw new IllegalStateException("not in chunked content: " + this);
        }
        if (size <= 0) {
            throw new IllegalArgumentException("chunk size must be positive: " + size);
        }
        borrowScratch();
        int n = chunkOpen ? put(CRLF, 0) : 0;
        n = putHex(size, n);
        n = put(CRLF, n);
        if (out.remaining() < n) {
            throw new BufferOverflowException();
        }
        out.put(scratch, 0, n);
        chunkOpen = true;
    }

    /**
     * Ends chunked content: closes the last chunk's data, writes the last chunk {@code 0 CRLF}, the trailer fields and
     * the final CRLF (RFC 9112 §7.1.2).
     *
     * @param out where to write
     * @param trailers trailer fields, possibly empty; framing, routing and other fields that must not be trailers are
     *     rejected
     * @throws IllegalArgumentException if a trailer is forbidden or would inject a line
     * @throws IllegalStateException if the response is not chunked or is complete
     * @throws BufferOverflowException if {@code out} is too small; nothing was written
     */
    public void writeLastChunk(ByteBuffer out, HttpFields trailers) {
        if (framing != Framing.CHUNKED || complete) {
            throw new IllegalStateException("not in chunked content: " + this);
        }
        borrowScratch();
        int n = ensure(0, estimate(trailers) + 16);
        if (chunkOpen) {
            n = put(CRLF, n);
        }
        n = put(LAST_CHUNK, n);
        for (int i = 0, size = trailers.size(); i < size; i++) {
            HttpField field = trailers.field(i);
            if (field.header().map(HttpHeader::isForbiddenInTrailer).orElse(false)) {
                throw new IllegalArgumentException("field not allowed in a trailer section: " + field.name());
            }
            n = writeField(field, n);
        }
        n = put(CRLF, n);
        if (out.remaining() < n) {
            throw new BufferOverflowException();
        }
        out.put(scratch, 0, n);
        chunkOpen = false;
        complete = true;
    }

    /** Marks the content of a non-chunked response complete (all Content-Length bytes, or EOF, were written). */
    public void completeContent() {
        if (framing == Framing.CHUNKED && !complete) {
            throw new IllegalStateException("chunked content ends with writeLastChunk: " + this);
        }
        complete = true;
    }

    /** Prepares for the next response on the same connection. */
    public void reset() {
        committed = false;
        persistent = false;
        framing = null;
        chunkOpen = false;
        complete = false;
    }

    /** @return whether a final response head was written */
    public boolean isCommitted() {
        return committed;
    }

    /** @return whether the response is complete: no content, or its end was written */
    public boolean isComplete() {
        return complete;
    }

    /** @return whether the connection may carry another request after this response; valid once committed */
    public boolean isPersistent() {
        return persistent;
    }

    /** @return whether the connection must close after this response; valid once committed */
    public boolean mustClose() {
        return committed && !persistent;
    }

    /** @return the framing of the committed response */
    public Optional<Framing> framing() {
        return Optional.ofNullable(framing);
    }

    // --- encoding into the scratch array --------------------------------------------------------------------------

    private int writeField(HttpField field, int n) {
        if (field instanceof PreEncodedHttpField encoded) {
            n = ensure(n, encoded.encodedLength());
            return encoded.writeTo(scratch, n);
        }
        String name = field.name();
        String value = field.value();
        n = ensure(n, name.length() + value.length() + 4);
        HttpHeader header = field.header().orElse(null);
        if (header != null) {
            n = put(header.prefixBytes(), n);
        } else {
            if (!HttpChars.isToken(name)) {
                throw new IllegalArgumentException("field name is not a token: " + HttpChars.quote(name));
            }
            for (int k = 0; k < name.length(); k++) {
                scratch[n++] = (byte) name.charAt(k);
            }
            scratch[n++] = ':';
            scratch[n++] = ' ';
        }
        byte[] bytes = scratch;
        for (int k = 0, length = value.length(); k < length; k++) {
            char c = value.charAt(k);
            if (c > 0xFF || !HttpChars.isFieldContent(c)) {
                throw new IllegalArgumentException((c == '\r' || c == '\n' ? "header injection: " : "")
                        + "invalid character " + (c > 0xFF ? String.format("U+%04X", (int) c) : HttpChars.describe(c))
                        + " in value of " + name + ": " + HttpChars.quote(value));
            }
            bytes[n++] = (byte) c;
        }
        bytes[n++] = '\r';
        bytes[n++] = '\n';
        return n;
    }

    private static long declaredLength(HttpFields fields) {
        int index = fields.indexOf(HttpHeader.CONTENT_LENGTH);
        if (index < 0) {
            return -1;
        }
        String value = fields.field(index).value();
        try {
            long length = Long.parseLong(value);
            if (length < 0 || value.charAt(0) == '+') {
                throw new NumberFormatException();
            }
            return length;
        } catch (NumberFormatException x) {
            throw new IllegalArgumentException("invalid Content-Length in response fields: " + HttpChars.quote(value));
        }
    }

    private static int estimate(HttpFields fields) {
        int total = 0;
        for (int i = 0, size = fields.size(); i < size; i++) {
            HttpField field = fields.field(i);
            total += field instanceof PreEncodedHttpField encoded
                    ? encoded.encodedLength()
                    : field.name().length() + field.value().length() + 4;
        }
        return total;
    }

    private void borrowScratch() {
        byte[] lent = HEADS.get();
        if (lent != null) {
            scratch = lent;
            ownScratch = false;
        } else if (!ownScratch) {
            scratch = new byte[SCRATCH]; // a virtual thread: never another thread's array
            ownScratch = true;
        }
    }

    private int ensure(int n, int more) {
        if (n + more > scratch.length) {
            scratch = Arrays.copyOf(scratch, Math.max(scratch.length * 2, n + more));
            if (!ownScratch) {
                HEADS.keep(scratch);
            }
        }
        return n;
    }

    private int put(byte[] bytes, int n) {
        ensure(n, bytes.length);
        System.arraycopy(bytes, 0, scratch, n, bytes.length);
        return n + bytes.length;
    }

    private int putDecimal(long value, int n) {
        ensure(n, 20);
        if (value == 0) {
            scratch[n] = '0';
            return n + 1;
        }
        int digits = 0;
        for (long v = value; v > 0; v /= 10) {
            digits++;
        }
        int end = n + digits;
        for (int i = end - 1; i >= n; i--) {
            scratch[i] = (byte) ('0' + value % 10);
            value /= 10;
        }
        return end;
    }

    private int putHex(long value, int n) {
        ensure(n, 16);
        int digits = Math.max(1, (67 - Long.numberOfLeadingZeros(value)) >> 2);
        for (int i = digits - 1; i >= 0; i--) {
            scratch[n++] = (byte) Character.forDigit((int) (value >>> (i * 4)) & 0xF, 16);
        }
        return n;
    }

    @Override
    public String toString() {
        return "HttpGenerator{committed=" + committed + ", framing=" + framing + ", persistent=" + persistent
                + ", chunkOpen=" + chunkOpen + ", complete=" + complete + "}";
    }
}
