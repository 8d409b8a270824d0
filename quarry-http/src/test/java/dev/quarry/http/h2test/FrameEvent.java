package dev.quarry.http.h2test;

import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.HeaderBlock;
import dev.quarry.http.h2.Http2Exception;
import dev.quarry.http.h2.Http2Settings;

/**
 * One thing a {@link dev.quarry.http.h2.FrameParser} reported, as a value: a frame, an error, or (for a client) the end
 * of the connection. Payloads are copies, valid after the parser's buffer is reused.
 */
public sealed interface FrameEvent {

    /** @return the stream the event concerns, 0 for the connection */
    default int streamId() {
        return 0;
    }

    /** A DATA frame; {@code data} is a copy of the payload without padding. */
    record Data(int streamId, byte[] data, boolean endStream, int flowControlledLength) implements FrameEvent {
        @Override
        public String toString() {
            return "DATA(stream=" + streamId + ", " + data.length + " octets" + (endStream ? ", END_STREAM" : "") + ")";
        }
    }

    /** A decoded header block. */
    record Headers(int streamId, HeaderBlock block, boolean endStream) implements FrameEvent {}

    /** A PRIORITY frame; weight 1 to 256. */
    record Priority(int streamId, int dependency, boolean exclusive, int weight) implements FrameEvent {}

    /** A RST_STREAM frame. */
    record RstStream(int streamId, ErrorCode error) implements FrameEvent {}

    /** A SETTINGS frame without ACK. */
    record Settings(Http2Settings settings) implements FrameEvent {}

    /** A SETTINGS frame with ACK. */
    record SettingsAck() implements FrameEvent {}

    /** A PING frame. */
    record Ping(long payload, boolean ack) implements FrameEvent {}

    /** A GOAWAY frame; the debug data decoded as UTF-8. */
    record GoAway(int lastStreamId, ErrorCode error, String debug) implements FrameEvent {}

    /** A WINDOW_UPDATE frame. */
    record WindowUpdate(int streamId, int increment) implements FrameEvent {}

    /** A PUSH_PROMISE frame (client side only). */
    record PushPromise(int streamId, int promisedStreamId, HeaderBlock block) implements FrameEvent {}

    /** A frame of an unknown type. */
    record Unknown(int type, int streamId, int length) implements FrameEvent {}

    /** The parser found a connection error in what it read (and closed). */
    record ConnectionError(Http2Exception error) implements FrameEvent {}

    /** The parser found a stream error in what it read. */
    record StreamError(Http2Exception error) implements FrameEvent {
        @Override
        public int streamId() {
            return error.streamId();
        }
    }

    /** The peer closed the connection (end of input), or reading failed. */
    record Closed(String how) implements FrameEvent {}
}
