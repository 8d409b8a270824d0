package dev.quarry.http.h2;

import dev.quarry.http.hpack.HeaderListTooLargeException;
import dev.quarry.http.hpack.HpackDecoder;
import dev.quarry.http.hpack.HpackException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Assembles the header block of a HEADERS or PUSH_PROMISE frame and its CONTINUATION frames (RFC 9113 4.3, 6.10) and
 * HPACK-decodes it into a {@link HeaderBlock}, enforcing the limits against CONTINUATION floods.
 *
 * <p><b>Limits</b> ({@link FrameParser.Limits}): more than {@code maxHeaderBlockSize} octets of fragments, or more than
 * {@code maxContinuationFrames} CONTINUATION frames, is a connection error ENHANCE_YOUR_CALM. A stream error is not an
 * option: the HPACK decoder needs the whole block to stay in step with the peer's encoder (RFC 9113 4.3, 10.5.1 "the
 * field block MUST be processed ... unless the connection is closed"), so refusing to buffer the rest of a block
 * means closing the connection. A block that fits but decodes to more than {@code SETTINGS_MAX_HEADER_LIST_SIZE} is
 * delivered with {@link HeaderBlock#tooLarge()} for a 431 instead: the decoder kept its table in step.
 *
 * <p><b>Cost.</b> A block that fits in one HEADERS frame (the usual case) is decoded where it lies in the input buffer,
 * without a copy. Fragments of a split block are copied into a reused array that grows up to
 * {@code maxHeaderBlockSize}; an array grown beyond {@link #RETAINED} octets is dropped once the block is decoded.
 *
 * <p>Not thread-safe: owned by one {@link FrameParser}.
 */
final class HeaderBlockReader {

    private static final int RETAINED = 16 * 1024;
    private static final byte[] EMPTY = new byte[0];

    private final HpackDecoder decoder;
    private final HeaderBlockBuilder builder = new HeaderBlockBuilder();

    /** The stream of the block waiting for CONTINUATION frames, or 0 when none is. */
    private int streamId;

    private int type;
    private boolean endStream;
    private int promisedStreamId;
    private boolean selfDependent;
    private HeaderBlockBuilder.Kind kind;
    private int continuations;
    private byte[] bytes = EMPTY;
    private int length;

    HeaderBlockReader(HpackDecoder decoder) {
        this.decoder = decoder;
    }

    /** @return the stream whose block awaits CONTINUATION frames, or 0 */
    int pendingStreamId() {
        return streamId;
    }

    /** @return the type of the frame that opened the pending block */
    int pendingType() {
        return type;
    }

    boolean endStream() {
        return endStream;
    }

    int promisedStreamId() {
        return promisedStreamId;
    }

    boolean selfDependent() {
        return selfDependent;
    }

    /**
     * Starts a block with the fragment of a HEADERS or PUSH_PROMISE frame without END_HEADERS; the block stays pending
     * until a CONTINUATION frame with END_HEADERS.
     */
    void start(
            int streamId,
            int type,
            boolean endStream,
            int promisedStreamId,
            boolean selfDependent,
            HeaderBlockBuilder.Kind kind,
            ByteBuffer buffer,
            int from,
            int fragmentLength,
            FrameParser.Limits limits) {
        checkSize(streamId, fragmentLength, limits);
        this.streamId = streamId;
        this.type = type;
        this.endStream = endStream;
        this.promisedStreamId = promisedStreamId;
        this.selfDependent = selfDependent;
        this.kind = kind;
        this.continuations = 0;
        this.length = 0;
        append(buffer, from, fragmentLength, limits);
    }

    /**
     * Adds a CONTINUATION fragment to the pending block.
     *
     * @return the decoded block if {@code endHeaders}, else null
     * @throws Http2Exception ENHANCE_YOUR_CALM when a limit is crossed, COMPRESSION_ERROR when decoding fails
     */
    HeaderBlock continuation(
            ByteBuffer buffer, int from, int fragmentLength, boolean endHeaders, FrameParser.Limits limits) {
        if (++continuations > limits.maxContinuationFrames()) {
            throw Http2Exception.connection(
                    ErrorCode.ENHANCE_YOUR_CALM,
                    "header block of stream " + streamId + " spans more than " + limits.maxContinuationFrames()
                            + " CONTINUATION frames (CONTINUATION flood)");
        }
        checkSize(streamId, length + (long) fragmentLength, limits);
        append(buffer, from, fragmentLength, limits);
        if (!endHeaders) {
            return null;
        }
        streamId = 0;
        try {
            return decode(ByteBuffer.wrap(bytes, 0, length), kind);
        } finally {
            if (bytes.length > RETAINED) {
                bytes = EMPTY;
            }
        }
    }

    /**
     * Decodes a whole block that came in one frame, where it lies in {@code buffer}; the buffer's position and limit
     * are restored.
     */
    HeaderBlock decodeInPlace(
            int streamId,
            ByteBuffer buffer,
            int from,
            int fragmentLength,
            HeaderBlockBuilder.Kind kind,
            FrameParser.Limits limits) {
        checkSize(streamId, fragmentLength, limits);
        int position = buffer.position();
        int limit = buffer.limit();
        buffer.limit(from + fragmentLength).position(from);
        try {
            return decode(buffer, kind);
        } finally {
            buffer.limit(limit).position(position);
        }
    }

    private HeaderBlock decode(ByteBuffer block, HeaderBlockBuilder.Kind kind) {
        builder.begin(kind);
        boolean tooLarge = false;
        try {
            decoder.decode(block, builder);
        } catch (HeaderListTooLargeException x) {
            tooLarge = true;
        } catch (HpackException x) {
            throw Http2Exception.connection(ErrorCode.COMPRESSION_ERROR, "HPACK: " + x.getMessage());
        } catch (IllegalStateException x) {
            // An earlier COMPRESSION_ERROR closed the parser before it could get here; be explicit all the same.
            throw Http2Exception.connection(ErrorCode.COMPRESSION_ERROR, "HPACK: " + x.getMessage());
        }
        return builder.build(tooLarge);
    }

    private static void checkSize(int streamId, long size, FrameParser.Limits limits) {
        if (size > limits.maxHeaderBlockSize()) {
            throw Http2Exception.connection(
                    ErrorCode.ENHANCE_YOUR_CALM,
                    "header block of stream " + streamId + " exceeds " + limits.maxHeaderBlockSize() + " octets ("
                            + size + " so far)");
        }
    }

    private void append(ByteBuffer buffer, int from, int count, FrameParser.Limits limits) {
        int needed = length + count;
        if (needed > bytes.length) {
            // Doubling amortises the copies; the cap keeps a flood from costing more than the limit.
            int grown = Math.max(needed, Math.min(Math.max(1024, bytes.length * 2), limits.maxHeaderBlockSize()));
            bytes = Arrays.copyOf(bytes, grown);
        }
        buffer.get(from, bytes, length, count);
        length += count;
    }

    /** @return the field cache statistics of the block builder */
    HeaderBlockBuilder builder() {
        return builder;
    }

    @Override
    public String toString() {
        return streamId == 0
                ? "no pending block"
                : "block of stream " + streamId + " pending: " + length + " octets, " + continuations + " CONTINUATION";
    }
}
