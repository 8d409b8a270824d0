package dev.quarry.http.h2;

import dev.quarry.http.HttpField;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.PreEncodedHttpField;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.http.hpack.HpackOutput;
import dev.quarry.http.internal.HttpChars;
import dev.quarry.http.internal.ThreadScratch;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Writes HTTP/2 frames into buffers. Header blocks are HPACK-encoded with the connection's encoder and split into
 * HEADERS and CONTINUATION frames of at most the peer's SETTINGS_MAX_FRAME_SIZE; connection-specific fields
 * (Connection, Keep-Alive, Proxy-Connection, Transfer-Encoding, Upgrade, and TE other than {@code trailers}) are never
 * sent (RFC 9113 8.2.2), and field names are sent lowercase.
 *
 * <p>Each method writes complete frames or nothing: when {@code out} is too small it throws
 * {@link java.nio.BufferOverflowException} with {@code out} unchanged. Not thread-safe: one per connection.
 *
 * <p><b>Header blocks.</b> HPACK encoding changes the encoder's dynamic table, which cannot be undone, so a head is
 * only encoded once {@code out} is known to have room for it: the room asked for is a bound of the encoded size
 * ({@link #maxHeadersLength}: names and values at their plain length plus 16 octets a field, plus the frame headers),
 * not the exact size. A caller retrying after {@code BufferOverflowException} needs a buffer of at least that bound.
 * Before anything is encoded, names must be tokens and values field content without whitespace at either end (RFC
 * 9113 8.2.1): a CR, LF or other control character throws {@link IllegalArgumentException} naming the field, with the
 * encoder and {@code out} unchanged. A {@link PreEncodedHttpField} was checked when it was built and is not checked
 * again.
 *
 * <p><b>Cost.</b> A head is encoded into a reused {@link HpackOutput} and copied once into {@code out}; a repeated
 * plaintext response ({@code :status 200}, content-type, content-length, server, date) is one octet per field from the
 * encoder's tables except the content-length literal, with no allocation per frame.
 */
public final class FrameGenerator {

    /** Room per field beyond its name and value: representation, index and two length prefixes. */
    private static final int FIELD_OVERHEAD = 16;
    /** Room per block for dynamic table size updates. */
    private static final int BLOCK_OVERHEAD = 16;
    /** The most octets of GOAWAY debug data sent. */
    static final int MAX_DEBUG_LENGTH = 256;

    private static final String[] STATUS_VALUES = new String[1000];

    static {
        for (int i = 100; i < STATUS_VALUES.length; i++) {
            STATUS_VALUES[i] = Integer.toString(i);
        }
    }

    private final HpackEncoder encoder;
    /**
     * The array a header block is encoded into, lent by the thread for the block: an idle connection keeps none (it
     * was a kilobyte per connection). On a virtual thread the generator keeps its own, as before.
     */
    private static final ThreadScratch BLOCKS = new ThreadScratch(1024);
    /** Blocks up to this size keep their array (the thread's, or the generator's own) for the next block. */
    private static final int RETAINED_BLOCK = 64 * 1024;

    private final HpackOutput block = new HpackOutput(0);
    private int maxFrameSize = Http2Settings.DEFAULT_MAX_FRAME_SIZE;
    private long headerBlocks;

    /** @param encoder the connection's HPACK encoder */
    public FrameGenerator(HpackEncoder encoder) {
        this.encoder = Objects.requireNonNull(encoder, "encoder");
    }

    /** @param maxFrameSize the peer's SETTINGS_MAX_FRAME_SIZE */
    public void setMaxFrameSize(int maxFrameSize) {
        if (maxFrameSize < Http2Settings.DEFAULT_MAX_FRAME_SIZE || maxFrameSize > Http2Settings.MAX_MAX_FRAME_SIZE) {
            throw new IllegalArgumentException("maxFrameSize must be 16384 to 16777215: " + maxFrameSize);
        }
        this.maxFrameSize = maxFrameSize;
    }

    /** @return the peer's SETTINGS_MAX_FRAME_SIZE in force: the largest payload written */
    public int maxFrameSize() {
        return maxFrameSize;
    }

    /** Writes the 24-octet client connection preface (RFC 9113 3.4), for clients and tests. */
    public static void preface(ByteBuffer out) {
        out.put(FrameFormat.CLIENT_PREFACE);
    }

    /** Writes a SETTINGS frame with the present settings. */
    public void settings(ByteBuffer out, Http2Settings settings) {
        int length = settings.size() * 6;
        room(out, length);
        header(out, length, FrameType.SETTINGS.code(), 0, 0);
        settings.forEach((id, value) -> {
            out.put((byte) (id >>> 8)).put((byte) id);
            putInt(out, (int) value);
        });
    }

    /** Writes a SETTINGS frame with ACK. */
    public void settingsAck(ByteBuffer out) {
        room(out, 0);
        header(out, 0, FrameType.SETTINGS.code(), FrameFormat.FLAG_ACK, 0);
    }

    /** Writes a PING frame. */
    public void ping(ByteBuffer out, long payload, boolean ack) {
        room(out, 8);
        header(out, 8, FrameType.PING.code(), ack ? FrameFormat.FLAG_ACK : 0, 0);
        putInt(out, (int) (payload >>> 32));
        putInt(out, (int) payload);
    }

    /** Writes a GOAWAY frame; the debug text is truncated to keep the frame small. */
    public void goAway(ByteBuffer out, int lastStreamId, ErrorCode error, String debug) {
        checkStreamId(lastStreamId, true);
        Objects.requireNonNull(error, "error");
        byte[] bytes = debug == null ? new byte[0] : debug.getBytes(StandardCharsets.UTF_8);
        int debugLength = Math.min(bytes.length, MAX_DEBUG_LENGTH);
        int length = 8 + debugLength;
        room(out, length);
        header(out, length, FrameType.GOAWAY.code(), 0, 0);
        putInt(out, lastStreamId);
        putInt(out, error.code());
        out.put(bytes, 0, debugLength);
    }

    /** Writes a WINDOW_UPDATE frame (stream 0 for the connection). */
    public void windowUpdate(ByteBuffer out, int streamId, int increment) {
        checkStreamId(streamId, true);
        if (increment <= 0) {
            throw new IllegalArgumentException("window increment must be 1 to 2^31-1: " + increment);
        }
        room(out, 4);
        header(out, 4, FrameType.WINDOW_UPDATE.code(), 0, streamId);
        putInt(out, increment);
    }

    /** Writes a RST_STREAM frame. */
    public void rstStream(ByteBuffer out, int streamId, ErrorCode error) {
        checkStreamId(streamId, false);
        Objects.requireNonNull(error, "error");
        room(out, 4);
        header(out, 4, FrameType.RST_STREAM.code(), 0, streamId);
        putInt(out, error.code());
    }

    /**
     * Writes a PRIORITY frame, for clients and tests (servers ignore the deprecated scheme).
     *
     * @param weight 1 to 256
     */
    public void priority(ByteBuffer out, int streamId, int dependency, boolean exclusive, int weight) {
        checkStreamId(streamId, false);
        checkStreamId(dependency, true);
        if (weight < 1 || weight > 256) {
            throw new IllegalArgumentException("weight must be 1 to 256: " + weight);
        }
        room(out, 5);
        header(out, 5, FrameType.PRIORITY.code(), 0, streamId);
        putInt(out, exclusive ? dependency | 0x8000_0000 : dependency);
        out.put((byte) (weight - 1));
    }

    /**
     * Writes the 9-byte header of a DATA frame without padding; the caller writes {@code length} payload bytes next
     * (so that content is written without copying).
     */
    public void dataHeader(ByteBuffer out, int streamId, int length, boolean endStream) {
        checkStreamId(streamId, false);
        checkLength(length);
        if (out.remaining() < FrameFormat.FRAME_HEADER_LENGTH) {
            throw new BufferOverflowException();
        }
        header(out, length, FrameType.DATA.code(), endStream ? FrameFormat.FLAG_END_STREAM : 0, streamId);
    }

    /**
     * Writes a whole DATA frame, header and payload, for clients and tests.
     *
     * @param data the payload, at most the peer's max frame size; consumed
     */
    public void data(ByteBuffer out, int streamId, ByteBuffer data, boolean endStream) {
        checkStreamId(streamId, false);
        int length = data.remaining();
        checkLength(length);
        room(out, length);
        header(out, length, FrameType.DATA.code(), endStream ? FrameFormat.FLAG_END_STREAM : 0, streamId);
        out.put(data);
    }

    /** Writes the HEADERS (and CONTINUATION) frames of a response head, {@code :status} first. */
    public void responseHeaders(ByteBuffer out, int streamId, int status, HttpFields fields, boolean endStream) {
        checkStreamId(streamId, false);
        if (status < 100 || status > 999) {
            throw new IllegalArgumentException("invalid status code " + status);
        }
        int bound = BLOCK_OVERHEAD + ":status".length() + 3 + FIELD_OVERHEAD + checkFields(fields);
        blockRoom(out, bound);
        byte[] lent = beginBlock();
        try {
            encoder.encodeField(block, ":status", STATUS_VALUES[status], false);
            encodeFields(fields);
            writeBlock(out, streamId, endStream);
        } finally {
            endBlock(lent);
        }
    }

    /** Writes the HEADERS (and CONTINUATION) frames of a request head, for clients and tests. */
    public void requestHeaders(
            ByteBuffer out,
            int streamId,
            String method,
            String scheme,
            String authority,
            String path,
            HttpFields fields,
            boolean endStream) {
        checkStreamId(streamId, false);
        if (!HttpChars.isToken(method)) {
            throw new IllegalArgumentException("method is not a token: " + HttpChars.quote(method));
        }
        int bound = BLOCK_OVERHEAD
                + pseudoBound(":method", method)
                + pseudoBound(":scheme", scheme)
                + pseudoBound(":authority", authority)
                + pseudoBound(":path", path)
                + checkFields(fields);
        blockRoom(out, bound);
        byte[] lent = beginBlock();
        try {
            encoder.encodeField(block, ":method", method, false);
            if (scheme != null) {
                encoder.encodeField(block, ":scheme", scheme, false);
            }
            if (authority != null) {
                encoder.encodeField(block, ":authority", authority, false);
            }
            if (path != null) {
                encoder.encodeField(block, ":path", path, false);
            }
            encodeFields(fields);
            writeBlock(out, streamId, endStream);
        } finally {
            endBlock(lent);
        }
    }

    /** Writes trailers: a HEADERS frame (and CONTINUATION) with END_STREAM and no pseudo-header. */
    public void trailers(ByteBuffer out, int streamId, HttpFields trailers) {
        checkStreamId(streamId, false);
        int bound = BLOCK_OVERHEAD + checkFields(trailers);
        blockRoom(out, bound);
        byte[] lent = beginBlock();
        try {
            encodeFields(trailers);
            writeBlock(out, streamId, true);
        } finally {
            endBlock(lent);
        }
    }

    /**
     * Checks, before anything is queued, that fields can be sent: the same check the header methods make when they
     * encode, so that a caller can refuse a head it could still replace (with a 500) instead of failing later.
     *
     * @param fields the fields of a head or trailers
     * @throws IllegalArgumentException naming the first field that may not be sent (a bad name, a value with CR, LF
     *     or NUL) or saying that the fields are too large
     */
    public static void checkSendable(HttpFields fields) {
        checkFields(fields);
    }

    /**
     * @param fields the fields of a head or trailers
     * @return the most octets {@link #responseHeaders} or {@link #trailers} may need in {@code out} for them: the room
     *     it asks for before encoding
     * @throws IllegalArgumentException if a field may not be sent
     */
    public int maxHeadersLength(HttpFields fields) {
        int bound = BLOCK_OVERHEAD + ":status".length() + 3 + FIELD_OVERHEAD + checkFields(fields);
        return bound + frames(bound) * FrameFormat.FRAME_HEADER_LENGTH;
    }

    /**
     * Writes an arbitrary frame, for tests that must send what a correct peer never would.
     *
     * @param type the type code (any, also unknown ones)
     * @param flags the flags byte
     * @param streamId the stream id (the reserved bit is cleared)
     * @param payload the payload, written as is (its position is not changed)
     */
    public static void frame(ByteBuffer out, int type, int flags, int streamId, ByteBuffer payload) {
        int length = payload.remaining();
        if (length > Http2Settings.MAX_MAX_FRAME_SIZE) {
            throw new IllegalArgumentException("a frame payload has at most 2^24-1 octets: " + length);
        }
        room(out, length);
        header(out, length, type, flags, streamId & 0x7FFF_FFFF);
        out.put(out.position(), payload, payload.position(), length);
        out.position(out.position() + length);
    }

    HpackEncoder encoder() {
        return encoder;
    }

    /** Checks every field that will be sent and returns the bound of their encoded size. */
    private static int checkFields(HttpFields fields) {
        long bound = 0;
        for (int i = 0, size = fields.size(); i < size; i++) {
            HttpField field = fields.field(i);
            HttpHeader header = field.header().orElse(null);
            String value = field.value();
            if (FieldRules.isConnectionSpecific(header, value)) {
                continue;
            }
            String name = field.lowerCaseName();
            if (!(field instanceof PreEncodedHttpField)) {
                String problem = header == null ? FieldRules.checkName(name) : null;
                if (problem == null) {
                    problem = FieldRules.checkOutgoingValue(name, value);
                }
                if (problem != null) {
                    throw new IllegalArgumentException("cannot send field: " + problem);
                }
            }
            bound += name.length() + value.length() + FIELD_OVERHEAD;
        }
        if (bound > Integer.MAX_VALUE / 2) {
            throw new IllegalArgumentException("header fields too large to send: about " + bound + " octets");
        }
        return (int) bound;
    }

    private static int pseudoBound(String name, String value) {
        if (value == null) {
            return 0;
        }
        String problem = FieldRules.checkOutgoingValue(name, value);
        if (problem != null) {
            throw new IllegalArgumentException("cannot send pseudo-header: " + problem);
        }
        return name.length() + value.length() + FIELD_OVERHEAD;
    }

    /** Encodes the fields {@link #checkFields} accepted, skipping the same connection-specific ones. */
    private void encodeFields(HttpFields fields) {
        for (int i = 0, size = fields.size(); i < size; i++) {
            HttpField field = fields.field(i);
            String value = field.value();
            if (!FieldRules.isConnectionSpecific(field.header().orElse(null), value)) {
                encoder.encodeField(block, field.lowerCaseName(), value, false);
            }
        }
    }

    /**
     * Starts a block in the calling thread's scratch array, or (on a virtual thread) in the generator's own.
     *
     * @return the array lent, or null
     */
    private byte[] beginBlock() {
        byte[] lent = BLOCKS.get();
        if (lent != null) {
            block.use(lent);
        } else {
            block.clear();
        }
        encoder.beginBlock(block);
        return lent;
    }

    /**
     * Ends a block, also one that failed: a lent array goes back to its thread (grown, if the block needed more) and
     * the generator keeps no reference to it, since its next block may run on another thread.
     */
    private void endBlock(byte[] lent) {
        if (lent == null) {
            // A block far beyond the usual head gives its memory back.
            block.clear();
            block.trim(RETAINED_BLOCK);
            return;
        }
        byte[] used = block.detach();
        if (used != lent && used.length <= RETAINED_BLOCK) {
            BLOCKS.keep(used);
        }
    }

    private void blockRoom(ByteBuffer out, int bound) {
        if (out.remaining() < bound + (long) frames(bound) * FrameFormat.FRAME_HEADER_LENGTH) {
            throw new BufferOverflowException();
        }
    }

    private int frames(int blockLength) {
        return Math.max(1, (blockLength + maxFrameSize - 1) / maxFrameSize);
    }

    /** Cuts the encoded block into HEADERS and CONTINUATION frames of at most the peer's max frame size. */
    private void writeBlock(ByteBuffer out, int streamId, boolean endStream) {
        headerBlocks++;
        int size = block.size();
        int first = Math.min(size, maxFrameSize);
        int flags = (endStream ? FrameFormat.FLAG_END_STREAM : 0) | (first == size ? FrameFormat.FLAG_END_HEADERS : 0);
        header(out, first, FrameType.HEADERS.code(), flags, streamId);
        block.copyTo(out, 0, first);
        for (int at = first; at < size; ) {
            int length = Math.min(size - at, maxFrameSize);
            int end = at + length;
            header(
                    out,
                    length,
                    FrameType.CONTINUATION.code(),
                    end == size ? FrameFormat.FLAG_END_HEADERS : 0,
                    streamId);
            block.copyTo(out, at, length);
            at = end;
        }
    }

    private void checkLength(int length) {
        if (length < 0 || length > maxFrameSize) {
            throw new IllegalArgumentException(
                    "DATA payload of " + length + " octets: must be 0 to the peer's max frame size " + maxFrameSize);
        }
    }

    private static void checkStreamId(int streamId, boolean zeroAllowed) {
        if (streamId < 0 || streamId == 0 && !zeroAllowed) {
            throw new IllegalArgumentException("invalid stream id " + streamId);
        }
    }

    private static void room(ByteBuffer out, int payloadLength) {
        if (out.remaining() < FrameFormat.FRAME_HEADER_LENGTH + payloadLength) {
            throw new BufferOverflowException();
        }
    }

    private static void header(ByteBuffer out, int length, int type, int flags, int streamId) {
        out.put((byte) (length >>> 16))
                .put((byte) (length >>> 8))
                .put((byte) length)
                .put((byte) type)
                .put((byte) flags);
        putInt(out, streamId);
    }

    private static void putInt(ByteBuffer out, int value) {
        out.put((byte) (value >>> 24))
                .put((byte) (value >>> 16))
                .put((byte) (value >>> 8))
                .put((byte) value);
    }

    @Override
    public String toString() {
        return String.format(
                "FrameGenerator@%x{peer max frame size=%d, header blocks=%d, %s}",
                hashCode(), maxFrameSize, headerBlocks, encoder);
    }
}
