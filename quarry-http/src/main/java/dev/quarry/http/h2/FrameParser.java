package dev.quarry.http.h2;

import dev.quarry.http.hpack.HpackDecoder;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A push parser of HTTP/2 frames (RFC 9113 4 and 6): called with whatever bytes arrived, it parses at most one frame
 * per call, checks the frame-level rules (sizes, stream id rules per type, flags, padding, preface, SETTINGS first,
 * CONTINUATION sequencing and limits), HPACK-decodes header blocks, and reports each frame or error to its
 * {@link FrameListener}.
 *
 * <p>A frame is delivered only once it is complete in the buffer, so the caller's input buffer must hold at least
 * {@code maxFrameSize + 9} bytes. Not thread-safe: one parser per connection, one thread at a time.
 *
 * <p><b>Connection errors</b> (the parser closes): a wrong preface, a first frame other than SETTINGS (RFC 9113 3.4);
 * any frame over {@code maxFrameSize} (FRAME_SIZE_ERROR: 4.2 requires it for frames that carry a field block, SETTINGS
 * and stream 0; for the others the frame does not fit the input buffer and skipping it would leave flow control out of
 * step, and 5.4.1 allows any stream error to close the connection); a stream frame on stream 0 or a connection frame on
 * a stream (PROTOCOL_ERROR); padding longer than the payload left (PROTOCOL_ERROR) or a frame too short for its fixed
 * fields (FRAME_SIZE_ERROR); SETTINGS with ACK and a payload, or not a multiple of 6 octets (FRAME_SIZE_ERROR);
 * invalid setting values (ENABLE_PUSH not 0 or 1, or 1 from a server, MAX_FRAME_SIZE out of range, and
 * ENABLE_CONNECT_PROTOCOL not 0 or 1: PROTOCOL_ERROR; INITIAL_WINDOW_SIZE over 2^31-1: FLOW_CONTROL_ERROR); PING not 8
 * octets, RST_STREAM or WINDOW_UPDATE not 4, GOAWAY under 8 (FRAME_SIZE_ERROR); WINDOW_UPDATE of 0 on stream 0;
 * HEADERS on an even stream from a client; PUSH_PROMISE from a client; any frame but CONTINUATION of the same stream
 * while a header block is open, including unknown types, and CONTINUATION without an open block (PROTOCOL_ERROR); a
 * header block over {@code maxHeaderBlockSize} octets or {@code maxContinuationFrames} CONTINUATION frames
 * (ENHANCE_YOUR_CALM, see {@code HeaderBlockReader}); an HPACK decoding error (COMPRESSION_ERROR).
 *
 * <p><b>Stream errors</b> (the parser goes on): PRIORITY not 5 octets (FRAME_SIZE_ERROR); a stream depending on itself
 * in PRIORITY or HEADERS (PROTOCOL_ERROR, reported after the block was decoded so that HPACK stays in step);
 * WINDOW_UPDATE of 0 on a stream (PROTOCOL_ERROR). A header block that breaks a message rule is delivered with
 * {@link HeaderBlock#malformed()} set, and one whose decoded list exceeds {@code SETTINGS_MAX_HEADER_LIST_SIZE} with
 * {@link HeaderBlock#tooLarge()}: the session decides (RST_STREAM, 431). Unknown frame types, unknown flags, unknown
 * settings and the reserved bit are ignored. Stream states (idle, closed, flow-control windows) are the session's.
 */
public final class FrameParser {

    /** Which end's frames are parsed: a server parses what a client sends. */
    public enum Side {
        /** Parses client frames (a server's parser): PUSH_PROMISE is a connection error. */
        SERVER,
        /** Parses server frames (a client's parser, e.g. in tests). */
        CLIENT
    }

    /**
     * Limits against abusive peers.
     *
     * @param maxFrameSize our SETTINGS_MAX_FRAME_SIZE: a larger frame is a FRAME_SIZE_ERROR
     * @param maxHeaderBlockSize the most bytes of one header block (HEADERS plus CONTINUATION) before decoding
     * @param maxContinuationFrames the most CONTINUATION frames of one header block (CONTINUATION floods)
     */
    public record Limits(int maxFrameSize, int maxHeaderBlockSize, int maxContinuationFrames) {
        /** RFC defaults for the frame size, 64 KiB of header block in at most 32 CONTINUATION frames. */
        public static final Limits DEFAULT = new Limits(Http2Settings.DEFAULT_MAX_FRAME_SIZE, 64 * 1024, 32);

        /** Checks the ranges: a frame size of 16384 to 16777215, a positive block size, no negative count. */
        public Limits {
            if (maxFrameSize < Http2Settings.DEFAULT_MAX_FRAME_SIZE
                    || maxFrameSize > Http2Settings.MAX_MAX_FRAME_SIZE) {
                throw new IllegalArgumentException("maxFrameSize must be 16384 to 16777215: " + maxFrameSize);
            }
            if (maxHeaderBlockSize <= 0) {
                throw new IllegalArgumentException("maxHeaderBlockSize must be positive: " + maxHeaderBlockSize);
            }
            if (maxContinuationFrames < 0) {
                throw new IllegalArgumentException(
                        "maxContinuationFrames must not be negative: " + maxContinuationFrames);
            }
        }
    }

    private final Side side;
    private final FrameListener listener;
    private final HpackDecoder decoder;
    private final HeaderBlockReader blocks;
    private Limits limits;

    /** Octets of the client preface still expected, 0 once it was read (or when none is expected). */
    private int prefaceRemaining;
    /** Whether the peer's first frame, which must be SETTINGS (RFC 9113 3.4), is still to come. */
    private boolean settingsExpected = true;

    private boolean closed;
    private long frames;

    /**
     * @param side whose frames are parsed
     * @param listener receives frames and errors
     * @param decoder the connection's HPACK decoder
     * @param limits limits against abuse
     */
    public FrameParser(Side side, FrameListener listener, HpackDecoder decoder, Limits limits) {
        this.side = Objects.requireNonNull(side, "side");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.decoder = Objects.requireNonNull(decoder, "decoder");
        this.limits = Objects.requireNonNull(limits, "limits");
        this.blocks = new HeaderBlockReader(decoder);
    }

    /**
     * Makes the parser expect the client connection preface {@code PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n} before the first
     * frame (a server whose HTTP/1.1 parser did not already consume it). A wrong preface is a PROTOCOL_ERROR.
     */
    public void expectPreface() {
        if (frames > 0) {
            throw new IllegalStateException("the preface must come before the first frame");
        }
        prefaceRemaining = FrameFormat.CLIENT_PREFACE.length;
    }

    /**
     * Parses at most one frame from {@code buffer}.
     *
     * <p>An {@link Http2Exception} thrown by a listener callback is handled like one the parser found: reported to
     * {@link FrameListener#onConnectionError} (closing the parser) or {@link FrameListener#onStreamError}. The buffer's
     * position is past the frame before any callback.
     *
     * @param buffer bytes in drain mode; its position advances past what was consumed
     * @return true if a frame (or an error) was delivered to the listener, or a frame was consumed as part of a header
     *     block still waiting for its CONTINUATION frames: call again; false if more bytes are needed, or the parser is
     *     closed
     */
    public boolean parseFrame(ByteBuffer buffer) {
        if (closed) {
            return false;
        }
        try {
            return parse(buffer);
        } catch (Http2Exception x) {
            if (x.isConnectionError()) {
                closed = true;
                listener.onConnectionError(x);
            } else {
                listener.onStreamError(x);
            }
            return true;
        }
    }

    private boolean parse(ByteBuffer buffer) {
        if (prefaceRemaining > 0 && !preface(buffer)) {
            return false;
        }
        int at = buffer.position();
        if (buffer.limit() - at < FrameFormat.FRAME_HEADER_LENGTH) {
            return false;
        }
        int length = (buffer.get(at) & 0xFF) << 16 | (buffer.get(at + 1) & 0xFF) << 8 | buffer.get(at + 2) & 0xFF;
        int type = buffer.get(at + 3) & 0xFF;
        int flags = buffer.get(at + 4) & 0xFF;
        // The reserved bit is ignored (RFC 9113 4.1).
        int streamId = int32(buffer, at + 5) & 0x7FFF_FFFF;
        if (settingsExpected) {
            if (type != FrameType.SETTINGS.code() || (flags & FrameFormat.FLAG_ACK) != 0) {
                throw Http2Exception.connection(
                        ErrorCode.PROTOCOL_ERROR,
                        "the " + (side == Side.SERVER ? "client" : "server") + " connection preface must begin with"
                                + " a SETTINGS frame, not " + typeName(type)
                                + ((flags & FrameFormat.FLAG_ACK) != 0
                                        ? " with flags 0x" + Integer.toHexString(flags)
                                        : "")
                                + " (RFC 9113 3.4)");
            }
        }
        if (length > limits.maxFrameSize()) {
            // RFC 9113 4.2: a connection error for frames that carry a field block, SETTINGS and stream 0; for the
            // others a stream error would do, but the frame does not fit the input buffer, and skipping it would
            // leave flow control out of step with the peer: 5.4.1 lets any stream error close the connection.
            throw Http2Exception.connection(
                    ErrorCode.FRAME_SIZE_ERROR,
                    typeName(type) + " frame of " + length + " octets on stream " + streamId
                            + " exceeds SETTINGS_MAX_FRAME_SIZE " + limits.maxFrameSize());
        }
        int payload = at + FrameFormat.FRAME_HEADER_LENGTH;
        if (buffer.limit() - payload < length) {
            return false;
        }
        buffer.position(payload + length);
        frames++;
        settingsExpected = false;
        int pending = blocks.pendingStreamId();
        if (pending != 0 && type != FrameType.CONTINUATION.code()) {
            throw Http2Exception.connection(
                    ErrorCode.PROTOCOL_ERROR,
                    typeName(type) + " frame on stream " + streamId + " while the header block of stream " + pending
                            + " awaits CONTINUATION (RFC 9113 6.10)");
        }
        switch (type) {
            case 0x0 -> data(buffer, payload, length, flags, streamId);
            case 0x1 -> headers(buffer, payload, length, flags, streamId);
            case 0x2 -> priority(buffer, payload, length, streamId);
            case 0x3 -> rstStream(buffer, payload, length, streamId);
            case 0x4 -> settings(buffer, payload, length, flags, streamId);
            case 0x5 -> pushPromise(buffer, payload, length, flags, streamId);
            case 0x6 -> ping(buffer, payload, length, flags, streamId);
            case 0x7 -> goAway(buffer, payload, length, streamId);
            case 0x8 -> windowUpdate(buffer, payload, length, streamId);
            case 0x9 -> continuation(buffer, payload, length, flags, streamId);
            // Unknown types are ignored (RFC 9113 5.5), outside a header block (checked above).
            default -> listener.onUnknownFrame(type, streamId, length);
        }
        return true;
    }

    /** Consumes what is there of the preface; true once all of it was consumed. */
    private boolean preface(ByteBuffer buffer) {
        byte[] expected = FrameFormat.CLIENT_PREFACE;
        int at = buffer.position();
        int available = Math.min(buffer.limit() - at, prefaceRemaining);
        int offset = expected.length - prefaceRemaining;
        for (int i = 0; i < available; i++) {
            if (buffer.get(at + i) != expected[offset + i]) {
                throw Http2Exception.connection(
                        ErrorCode.PROTOCOL_ERROR,
                        "invalid connection preface: octet " + (offset + i) + " is 0x"
                                + Integer.toHexString(buffer.get(at + i) & 0xFF) + ", expected 0x"
                                + Integer.toHexString(expected[offset + i]) + " (RFC 9113 3.4)");
            }
        }
        buffer.position(at + available);
        prefaceRemaining -= available;
        return prefaceRemaining == 0;
    }

    private void data(ByteBuffer buffer, int payload, int length, int flags, int streamId) {
        requireStream(FrameType.DATA, streamId);
        int from = payload;
        int size = length;
        if ((flags & FrameFormat.FLAG_PADDED) != 0) {
            int pad = padLength(FrameType.DATA, buffer, payload, length, streamId);
            from++;
            size--;
            checkPadding(FrameType.DATA, streamId, pad, size, length);
            size -= pad;
        }
        listener.onData(streamId, buffer.slice(from, size), (flags & FrameFormat.FLAG_END_STREAM) != 0, length);
    }

    private void headers(ByteBuffer buffer, int payload, int length, int flags, int streamId) {
        requireStream(FrameType.HEADERS, streamId);
        if (side == Side.SERVER && (streamId & 1) == 0) {
            throw Http2Exception.connection(
                    ErrorCode.PROTOCOL_ERROR,
                    "HEADERS on even stream " + streamId + ": client streams are odd (RFC 9113 5.1.1)");
        }
        int from = payload;
        int size = length;
        int pad = 0;
        if ((flags & FrameFormat.FLAG_PADDED) != 0) {
            pad = padLength(FrameType.HEADERS, buffer, payload, length, streamId);
            from++;
            size--;
        }
        boolean selfDependent = false;
        if ((flags & FrameFormat.FLAG_PRIORITY) != 0) {
            if (size < 5) {
                throw Http2Exception.connection(
                        ErrorCode.FRAME_SIZE_ERROR,
                        "HEADERS with PRIORITY of " + length + " octets on stream " + streamId
                                + " has no room for the 5 octets of the priority fields (RFC 9113 6.2)");
            }
            selfDependent = (int32(buffer, from) & 0x7FFF_FFFF) == streamId;
            from += 5;
            size -= 5;
        }
        checkPadding(FrameType.HEADERS, streamId, pad, size, length);
        size -= pad;
        HeaderBlockBuilder.Kind kind =
                side == Side.SERVER ? HeaderBlockBuilder.Kind.REQUEST : HeaderBlockBuilder.Kind.RESPONSE;
        boolean endStream = (flags & FrameFormat.FLAG_END_STREAM) != 0;
        if ((flags & FrameFormat.FLAG_END_HEADERS) == 0) {
            blocks.start(
                    streamId, FrameType.HEADERS.code(), endStream, 0, selfDependent, kind, buffer, from, size, limits);
            return;
        }
        HeaderBlock block = blocks.decodeInPlace(streamId, buffer, from, size, kind, limits);
        deliverHeaders(streamId, block, endStream, selfDependent);
    }

    private void deliverHeaders(int streamId, HeaderBlock block, boolean endStream, boolean selfDependent) {
        if (selfDependent) {
            // Reported once the block was decoded, so that the HPACK table stays in step (RFC 9113 4.3).
            throw Http2Exception.stream(
                    streamId, ErrorCode.PROTOCOL_ERROR, "stream " + streamId + " depends on itself (RFC 9113 5.3.1)");
        }
        listener.onHeaders(streamId, block, endStream);
    }

    private void continuation(ByteBuffer buffer, int payload, int length, int flags, int streamId) {
        int pending = blocks.pendingStreamId();
        if (pending == 0) {
            throw Http2Exception.connection(
                    ErrorCode.PROTOCOL_ERROR,
                    "CONTINUATION on stream " + streamId + " without a HEADERS or PUSH_PROMISE frame before it that"
                            + " lacks END_HEADERS (RFC 9113 6.10)");
        }
        if (streamId != pending) {
            throw Http2Exception.connection(
                    ErrorCode.PROTOCOL_ERROR,
                    "CONTINUATION on stream " + streamId + " while the header block of stream " + pending
                            + " awaits its CONTINUATION (RFC 9113 6.10)");
        }
        HeaderBlock block =
                blocks.continuation(buffer, payload, length, (flags & FrameFormat.FLAG_END_HEADERS) != 0, limits);
        if (block == null) {
            return;
        }
        if (blocks.pendingType() == FrameType.PUSH_PROMISE.code()) {
            listener.onPushPromise(streamId, blocks.promisedStreamId(), block);
        } else {
            deliverHeaders(streamId, block, blocks.endStream(), blocks.selfDependent());
        }
    }

    private void priority(ByteBuffer buffer, int payload, int length, int streamId) {
        requireStream(FrameType.PRIORITY, streamId);
        if (length != 5) {
            throw Http2Exception.stream(
                    streamId,
                    ErrorCode.FRAME_SIZE_ERROR,
                    "PRIORITY frame of " + length + " octets, not 5 (RFC 9113 6.3)");
        }
        int word = int32(buffer, payload);
        int dependency = word & 0x7FFF_FFFF;
        if (dependency == streamId) {
            throw Http2Exception.stream(
                    streamId, ErrorCode.PROTOCOL_ERROR, "stream " + streamId + " depends on itself (RFC 9113 5.3.1)");
        }
        listener.onPriority(streamId, dependency, word < 0, (buffer.get(payload + 4) & 0xFF) + 1);
    }

    private void rstStream(ByteBuffer buffer, int payload, int length, int streamId) {
        requireStream(FrameType.RST_STREAM, streamId);
        if (length != 4) {
            throw Http2Exception.connection(
                    ErrorCode.FRAME_SIZE_ERROR,
                    "RST_STREAM frame of " + length + " octets on stream " + streamId + ", not 4 (RFC 9113 6.4)");
        }
        listener.onRstStream(streamId, ErrorCode.of(int32(buffer, payload) & 0xFFFF_FFFFL));
    }

    private void settings(ByteBuffer buffer, int payload, int length, int flags, int streamId) {
        requireConnection(FrameType.SETTINGS, streamId);
        if ((flags & FrameFormat.FLAG_ACK) != 0) {
            if (length != 0) {
                throw Http2Exception.connection(
                        ErrorCode.FRAME_SIZE_ERROR,
                        "SETTINGS with ACK carries " + length + " octets of payload (RFC 9113 6.5)");
            }
            listener.onSettingsAck();
            return;
        }
        if (length % 6 != 0) {
            throw Http2Exception.connection(
                    ErrorCode.FRAME_SIZE_ERROR,
                    "SETTINGS frame of " + length + " octets, not a multiple of 6 (RFC 9113 6.5)");
        }
        Http2Settings settings = new Http2Settings();
        for (int at = payload, end = payload + length; at < end; at += 6) {
            int id = (buffer.get(at) & 0xFF) << 8 | buffer.get(at + 1) & 0xFF;
            long value = int32(buffer, at + 2) & 0xFFFF_FFFFL;
            checkSetting(id, value);
            if (isKnownSetting(id)) {
                settings.set(id, value);
            }
        }
        listener.onSettings(settings);
    }

    private void checkSetting(int id, long value) {
        switch (id) {
            case Http2Settings.ENABLE_PUSH -> {
                if (value > 1) {
                    throw invalidSetting(ErrorCode.PROTOCOL_ERROR, id, value, "must be 0 or 1");
                }
                if (value == 1 && side == Side.CLIENT) {
                    throw invalidSetting(ErrorCode.PROTOCOL_ERROR, id, value, "a server must not send 1");
                }
            }
            case Http2Settings.INITIAL_WINDOW_SIZE -> {
                if (value > Http2Settings.MAX_WINDOW_SIZE) {
                    throw invalidSetting(ErrorCode.FLOW_CONTROL_ERROR, id, value, "exceeds 2^31-1");
                }
            }
            case Http2Settings.MAX_FRAME_SIZE -> {
                if (value < Http2Settings.DEFAULT_MAX_FRAME_SIZE || value > Http2Settings.MAX_MAX_FRAME_SIZE) {
                    throw invalidSetting(ErrorCode.PROTOCOL_ERROR, id, value, "must be 16384 to 16777215");
                }
            }
            case Http2Settings.ENABLE_CONNECT_PROTOCOL -> {
                if (value > 1) {
                    throw invalidSetting(ErrorCode.PROTOCOL_ERROR, id, value, "must be 0 or 1 (RFC 8441 3)");
                }
            }
            default -> {}
        }
    }

    private static Http2Exception invalidSetting(ErrorCode error, int id, long value, String rule) {
        return Http2Exception.connection(
                error, "invalid SETTINGS_" + Http2Settings.name(id) + " " + value + ": " + rule + " (RFC 9113 6.5.2)");
    }

    private static boolean isKnownSetting(int id) {
        return id >= Http2Settings.HEADER_TABLE_SIZE && id <= Http2Settings.MAX_HEADER_LIST_SIZE
                || id == Http2Settings.ENABLE_CONNECT_PROTOCOL;
    }

    private void pushPromise(ByteBuffer buffer, int payload, int length, int flags, int streamId) {
        if (side == Side.SERVER) {
            throw Http2Exception.connection(
                    ErrorCode.PROTOCOL_ERROR, "PUSH_PROMISE on stream " + streamId + " from a client (RFC 9113 8.4)");
        }
        requireStream(FrameType.PUSH_PROMISE, streamId);
        int from = payload;
        int size = length;
        int pad = 0;
        if ((flags & FrameFormat.FLAG_PADDED) != 0) {
            pad = padLength(FrameType.PUSH_PROMISE, buffer, payload, length, streamId);
            from++;
            size--;
        }
        if (size < 4) {
            throw Http2Exception.connection(
                    ErrorCode.FRAME_SIZE_ERROR,
                    "PUSH_PROMISE of " + length + " octets on stream " + streamId
                            + " has no room for the 4 octets of the promised stream id (RFC 9113 6.6)");
        }
        int promised = int32(buffer, from) & 0x7FFF_FFFF;
        from += 4;
        size -= 4;
        checkPadding(FrameType.PUSH_PROMISE, streamId, pad, size, length);
        size -= pad;
        if ((flags & FrameFormat.FLAG_END_HEADERS) == 0) {
            blocks.start(
                    streamId,
                    FrameType.PUSH_PROMISE.code(),
                    false,
                    promised,
                    false,
                    HeaderBlockBuilder.Kind.REQUEST,
                    buffer,
                    from,
                    size,
                    limits);
            return;
        }
        HeaderBlock block = blocks.decodeInPlace(streamId, buffer, from, size, HeaderBlockBuilder.Kind.REQUEST, limits);
        listener.onPushPromise(streamId, promised, block);
    }

    private void ping(ByteBuffer buffer, int payload, int length, int flags, int streamId) {
        requireConnection(FrameType.PING, streamId);
        if (length != 8) {
            throw Http2Exception.connection(
                    ErrorCode.FRAME_SIZE_ERROR, "PING frame of " + length + " octets, not 8 (RFC 9113 6.7)");
        }
        long data = (long) int32(buffer, payload) << 32 | int32(buffer, payload + 4) & 0xFFFF_FFFFL;
        listener.onPing(data, (flags & FrameFormat.FLAG_ACK) != 0);
    }

    private void goAway(ByteBuffer buffer, int payload, int length, int streamId) {
        requireConnection(FrameType.GOAWAY, streamId);
        if (length < 8) {
            throw Http2Exception.connection(
                    ErrorCode.FRAME_SIZE_ERROR, "GOAWAY frame of " + length + " octets, fewer than 8 (RFC 9113 6.8)");
        }
        int lastStreamId = int32(buffer, payload) & 0x7FFF_FFFF;
        ErrorCode error = ErrorCode.of(int32(buffer, payload + 4) & 0xFFFF_FFFFL);
        listener.onGoAway(lastStreamId, error, buffer.slice(payload + 8, length - 8));
    }

    private void windowUpdate(ByteBuffer buffer, int payload, int length, int streamId) {
        if (length != 4) {
            throw Http2Exception.connection(
                    ErrorCode.FRAME_SIZE_ERROR,
                    "WINDOW_UPDATE frame of " + length + " octets on stream " + streamId + ", not 4 (RFC 9113 6.9)");
        }
        int increment = int32(buffer, payload) & 0x7FFF_FFFF;
        if (increment == 0) {
            String message = "WINDOW_UPDATE with an increment of 0 on "
                    + (streamId == 0 ? "the connection" : "stream " + streamId) + " (RFC 9113 6.9)";
            throw streamId == 0
                    ? Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, message)
                    : Http2Exception.stream(streamId, ErrorCode.PROTOCOL_ERROR, message);
        }
        listener.onWindowUpdate(streamId, increment);
    }

    /** Reads the pad length of a PADDED frame: a frame too short to hold it is a connection FRAME_SIZE_ERROR. */
    private static int padLength(FrameType type, ByteBuffer buffer, int payload, int length, int streamId) {
        if (length < 1) {
            throw Http2Exception.connection(
                    ErrorCode.FRAME_SIZE_ERROR,
                    "empty " + type + " frame with PADDED on stream " + streamId
                            + " has no room for the pad length (RFC 9113 4.2)");
        }
        return buffer.get(payload) & 0xFF;
    }

    /**
     * Padding longer than what remains of the payload after the fixed fields is a connection PROTOCOL_ERROR (RFC 9113
     * 6.1, 6.2, 6.6).
     */
    private static void checkPadding(FrameType type, int streamId, int pad, int remaining, int length) {
        if (pad > remaining) {
            throw Http2Exception.connection(
                    ErrorCode.PROTOCOL_ERROR,
                    type + " frame of " + length + " octets on stream " + streamId + " declares " + pad
                            + " octets of padding, more than the " + remaining + " that remain (RFC 9113 6.1, 6.2)");
        }
    }

    private static void requireStream(FrameType type, int streamId) {
        if (streamId == 0) {
            throw Http2Exception.connection(
                    ErrorCode.PROTOCOL_ERROR, type + " frame on stream 0: it belongs to a stream (RFC 9113 6)");
        }
    }

    private static void requireConnection(FrameType type, int streamId) {
        if (streamId != 0) {
            throw Http2Exception.connection(
                    ErrorCode.PROTOCOL_ERROR,
                    type + " frame on stream " + streamId + ": it belongs to stream 0 (RFC 9113 6)");
        }
    }

    private static int int32(ByteBuffer buffer, int at) {
        return (buffer.get(at) & 0xFF) << 24
                | (buffer.get(at + 1) & 0xFF) << 16
                | (buffer.get(at + 2) & 0xFF) << 8
                | buffer.get(at + 3) & 0xFF;
    }

    private static String typeName(int type) {
        return type < FRAME_TYPES.length ? FRAME_TYPES[type].name() : "unknown type 0x" + Integer.toHexString(type);
    }

    private static final FrameType[] FRAME_TYPES = FrameType.values();

    /**
     * Changes our SETTINGS_MAX_FRAME_SIZE (once the peer acknowledged it).
     *
     * @param maxFrameSize 16384 to 16777215
     */
    public void setMaxFrameSize(int maxFrameSize) {
        limits = new Limits(maxFrameSize, limits.maxHeaderBlockSize(), limits.maxContinuationFrames());
    }

    /**
     * Whether a request head is on its way but not complete: a header block waits for CONTINUATION frames, or
     * {@code buffer} (what is left to parse) starts with part of a HEADERS or CONTINUATION frame (once its type byte
     * has come). What a header timeout bounds, whatever the pace of the bytes.
     *
     * @param buffer the unparsed input, or null if there is none
     * @return whether a header block is incomplete
     */
    public boolean isInHeaderBlock(ByteBuffer buffer) {
        if (blocks.pendingStreamId() != 0) {
            return true;
        }
        if (buffer == null || buffer.remaining() <= 3) {
            return false; // nothing, or a frame whose type has not come yet
        }
        int type = buffer.get(buffer.position() + 3) & 0xFF;
        return type == FrameType.HEADERS.code() || type == FrameType.CONTINUATION.code();
    }

    /** @return whether a connection error closed the parser */
    public boolean isClosed() {
        return closed;
    }

    /** @return the number of complete frames parsed so far */
    public long frames() {
        return frames;
    }

    @Override
    public String toString() {
        return String.format(
                "FrameParser@%x{%s side, %s, frames=%d, %s%s%s, %s, %s}",
                hashCode(),
                side,
                closed ? "CLOSED" : "open",
                frames,
                prefaceRemaining > 0 ? "awaiting " + prefaceRemaining + " preface octets, " : "",
                settingsExpected ? "awaiting SETTINGS, " : "",
                blocks,
                limits,
                blocks.builder());
    }

    /** @return the side */
    public Side side() {
        return side;
    }

    HpackDecoder decoder() {
        return decoder;
    }

    FrameListener listener() {
        return listener;
    }

    /** @return the limits in force */
    public Limits limits() {
        return limits;
    }
}
