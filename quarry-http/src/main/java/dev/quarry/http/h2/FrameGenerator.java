package dev.quarry.http.h2;

import dev.quarry.http.HttpFields;
import dev.quarry.http.hpack.HpackEncoder;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Writes HTTP/2 frames into buffers. Header blocks are HPACK-encoded with the connection's encoder and split into
 * HEADERS and CONTINUATION frames of at most the peer's SETTINGS_MAX_FRAME_SIZE; connection-specific fields
 * (Connection, Keep-Alive, Proxy-Connection, Transfer-Encoding, Upgrade) are never sent (RFC 9113 8.2.2), and field
 * names are sent lowercase.
 *
 * <p>Each method writes complete frames or nothing: when {@code out} is too small it throws
 * {@link java.nio.BufferOverflowException} with {@code out} unchanged. Not thread-safe: one per connection.
 */
public final class FrameGenerator {
    private final HpackEncoder encoder;

    /** @param encoder the connection's HPACK encoder */
    public FrameGenerator(HpackEncoder encoder) {
        this.encoder = Objects.requireNonNull(encoder, "encoder");
    }

    /** @param maxFrameSize the peer's SETTINGS_MAX_FRAME_SIZE */
    public void setMaxFrameSize(int maxFrameSize) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** Writes a SETTINGS frame with the present settings. */
    public void settings(ByteBuffer out, Http2Settings settings) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** Writes a SETTINGS frame with ACK. */
    public void settingsAck(ByteBuffer out) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** Writes a PING frame. */
    public void ping(ByteBuffer out, long payload, boolean ack) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** Writes a GOAWAY frame; the debug text is truncated to keep the frame small. */
    public void goAway(ByteBuffer out, int lastStreamId, ErrorCode error, String debug) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** Writes a WINDOW_UPDATE frame (stream 0 for the connection). */
    public void windowUpdate(ByteBuffer out, int streamId, int increment) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** Writes a RST_STREAM frame. */
    public void rstStream(ByteBuffer out, int streamId, ErrorCode error) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /**
     * Writes the 9-byte header of a DATA frame without padding; the caller writes {@code length} payload bytes next
     * (so that content is written without copying).
     */
    public void dataHeader(ByteBuffer out, int streamId, int length, boolean endStream) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** Writes the HEADERS (and CONTINUATION) frames of a response head, {@code :status} first. */
    public void responseHeaders(ByteBuffer out, int streamId, int status, HttpFields fields, boolean endStream) {
        throw new UnsupportedOperationException("not implemented yet");
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
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** Writes trailers: a HEADERS frame (and CONTINUATION) with END_STREAM and no pseudo-header. */
    public void trailers(ByteBuffer out, int streamId, HttpFields trailers) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /**
     * Writes an arbitrary frame, for tests that must send what a correct peer never would.
     *
     * @param type the type code (any, also unknown ones)
     * @param flags the flags byte
     * @param streamId the stream id (the reserved bit is cleared)
     * @param payload the payload, written as is
     */
    public static void frame(ByteBuffer out, int type, int flags, int streamId, ByteBuffer payload) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    HpackEncoder encoder() {
        return encoder;
    }
}
