package dev.quarry.http.h2;

import java.nio.ByteBuffer;

/**
 * Receives the frames a {@link FrameParser} parsed, one callback per frame (a header block split over HEADERS and
 * CONTINUATION frames arrives as one {@link #onHeaders} call). Frame-level rules are checked by the parser before a
 * callback; errors it finds are reported through {@link #onConnectionError} (after which the parser is closed) or
 * {@link #onStreamError} (the parser goes on with the next frame).
 *
 * <p>Called by the thread that calls {@link FrameParser#parseFrame}, one callback at a time.
 */
public interface FrameListener {

    /**
     * A DATA frame.
     *
     * @param streamId the stream, > 0
     * @param data the payload without padding: a slice of the buffer given to the parser, valid until that buffer is
     *     reused
     * @param endStream whether END_STREAM is set
     * @param flowControlledLength the whole payload length including padding, which is what flow control counts
     */
    void onData(int streamId, ByteBuffer data, boolean endStream, int flowControlledLength);

    /**
     * A complete, HPACK-decoded header block (HEADERS plus any CONTINUATION).
     *
     * @param streamId the stream, > 0
     * @param block the decoded fields, not yet validated as a request or trailers (the parser does not know which
     *     the stream expects): see {@link Http2Messages}
     * @param endStream whether END_STREAM is set
     */
    void onHeaders(int streamId, HeaderBlock block, boolean endStream);

    /** A PRIORITY frame (parsed and validated, then ignored by servers: RFC 9113 5.3.2 deprecates the scheme). */
    default void onPriority(int streamId, int dependency, boolean exclusive, int weight) {}

    /**
     * @param streamId the stream, > 0
     * @param error the code sent by the peer
     */
    void onRstStream(int streamId, ErrorCode error);

    /**
     * A SETTINGS frame without ACK; the values were validated (RFC 9113 6.5.2).
     *
     * @param settings the settings it carries, possibly none
     */
    void onSettings(Http2Settings settings);

    /** A SETTINGS frame with ACK. */
    void onSettingsAck();

    /**
     * A PING frame.
     *
     * @param payload the 8 opaque bytes, as a long
     * @param ack whether ACK is set
     */
    void onPing(long payload, boolean ack);

    /**
     * A GOAWAY frame.
     *
     * @param lastStreamId the last stream the peer processed
     * @param error the code
     * @param debugData the debug bytes, possibly empty (a slice valid during the call)
     */
    void onGoAway(int lastStreamId, ErrorCode error, ByteBuffer debugData);

    /**
     * A WINDOW_UPDATE frame with a non-zero increment (a zero increment is reported as an error instead).
     *
     * @param streamId the stream, or 0 for the connection
     * @param increment 1 to 2^31-1
     */
    void onWindowUpdate(int streamId, int increment);

    /**
     * A PUSH_PROMISE frame; only a client-side parser delivers it (a server-side parser reports a connection error).
     *
     * @param streamId the stream it is associated with
     * @param promisedStreamId the promised stream
     * @param block the decoded request fields
     */
    default void onPushPromise(int streamId, int promisedStreamId, HeaderBlock block) {}

    /**
     * A frame of an unknown type, which must be ignored (RFC 9113 5.5); reported for counting (floods).
     *
     * @param type the type code
     * @param streamId the stream
     * @param length the payload length
     */
    default void onUnknownFrame(int type, int streamId, int length) {}

    /**
     * The connection must be closed with GOAWAY carrying {@code error}; the parser is closed.
     *
     * @param error what went wrong
     */
    void onConnectionError(Http2Exception error);

    /**
     * A stream must be reset with RST_STREAM carrying the code; the parser goes on.
     *
     * @param error what went wrong, with the stream
     */
    void onStreamError(Http2Exception error);
}
