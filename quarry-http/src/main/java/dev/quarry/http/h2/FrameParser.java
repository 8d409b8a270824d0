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
    }

    private final Side side;
    private final FrameListener listener;
    private final HpackDecoder decoder;
    private Limits limits;

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
    }

    /**
     * Makes the parser expect the client connection preface {@code PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n} before the first
     * frame (a server whose HTTP/1.1 parser did not already consume it). A wrong preface is a PROTOCOL_ERROR.
     */
    public void expectPreface() {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /**
     * Parses at most one frame from {@code buffer}.
     *
     * @param buffer bytes in drain mode; its position advances past what was consumed
     * @return true if a frame (or an error) was delivered to the listener; false if more bytes are needed, or the
     *     parser is closed
     */
    public boolean parseFrame(ByteBuffer buffer) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /**
     * Changes our SETTINGS_MAX_FRAME_SIZE (once the peer acknowledged it).
     *
     * @param maxFrameSize 16384 to 16777215
     */
    public void setMaxFrameSize(int maxFrameSize) {
        limits = new Limits(maxFrameSize, limits.maxHeaderBlockSize(), limits.maxContinuationFrames());
    }

    /** @return whether a connection error closed the parser */
    public boolean isClosed() {
        throw new UnsupportedOperationException("not implemented yet");
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

    Limits limits() {
        return limits;
    }
}
