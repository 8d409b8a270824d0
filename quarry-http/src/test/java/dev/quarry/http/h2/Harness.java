package dev.quarry.http.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.FrameRecorder;
import dev.quarry.http.hpack.HpackDecoder;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.http.hpack.HpackLimits;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * A parser with a recorder and the peer's HPACK encoder, past the preface and the first SETTINGS unless asked
 * otherwise, for tests that feed frames and look at what came out.
 */
final class Harness {
    final FrameRecorder recorder = new FrameRecorder();
    final HpackEncoder peerEncoder = new HpackEncoder();
    final HpackDecoder decoder;
    final FrameParser parser;

    Harness(FrameParser.Side side, FrameParser.Limits limits, HpackLimits hpackLimits, boolean started) {
        decoder = new HpackDecoder(HpackDecoder.DEFAULT_MAX_TABLE_SIZE, hpackLimits);
        parser = new FrameParser(side, recorder, decoder, limits);
        if (started) {
            feed(Frames.emptySettings());
            assertInstanceOf(FrameEvent.Settings.class, recorder.last());
            recorder.clear();
        }
    }

    /** A server-side parser with the default limits, past the first SETTINGS. */
    static Harness server() {
        return new Harness(FrameParser.Side.SERVER, FrameParser.Limits.DEFAULT, HpackLimits.DEFAULT, true);
    }

    /** A client-side parser with the default limits, past the first SETTINGS. */
    static Harness client() {
        return new Harness(FrameParser.Side.CLIENT, FrameParser.Limits.DEFAULT, HpackLimits.DEFAULT, true);
    }

    /** Parses every frame in {@code bytes} (given whole), and checks that all of them were consumed. */
    List<FrameEvent> feed(byte[] bytes) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        int calls = 0;
        while (parser.parseFrame(buffer)) {
            if (++calls > bytes.length + 1) {
                fail("parser does not make progress");
            }
        }
        if (!parser.isClosed()) {
            assertEquals(0, buffer.remaining(), "bytes left unparsed");
        }
        return recorder.events();
    }

    /** Feeds {@code bytes} and returns the single event they produced. */
    FrameEvent one(byte[] bytes) {
        List<FrameEvent> events = feed(bytes);
        assertEquals(1, events.size(), () -> "expected one event, got " + events);
        FrameEvent event = events.get(0);
        recorder.clear();
        return event;
    }

    /** HPACK-encodes fields (name, value, ...) with the peer's encoder, as given. */
    byte[] block(String... nameValues) {
        return Frames.block(peerEncoder, nameValues);
    }

    /** A HEADERS frame with END_HEADERS (and flags) holding the encoded fields. */
    byte[] headers(int streamId, int flags, String... nameValues) {
        return Frames.frame(Frames.HEADERS, Frames.END_HEADERS | flags, streamId, block(nameValues));
    }

    /** Feeds a HEADERS frame and returns the decoded block. */
    HeaderBlock decode(String... nameValues) {
        FrameEvent event = one(headers(1, Frames.END_STREAM, nameValues));
        FrameEvent.Headers headers = assertInstanceOf(FrameEvent.Headers.class, event);
        return headers.block();
    }

    static Http2Exception connectionError(FrameEvent event, ErrorCode expected) {
        FrameEvent.ConnectionError error =
                assertInstanceOf(FrameEvent.ConnectionError.class, event, "not a " + "connection error");
        assertEquals(expected, error.error().error(), () -> "error code of " + error.error());
        assertTrue(error.error().isConnectionError());
        return error.error();
    }

    static Http2Exception streamError(FrameEvent event, int streamId, ErrorCode expected) {
        FrameEvent.StreamError error = assertInstanceOf(FrameEvent.StreamError.class, event, "not a stream error");
        assertEquals(expected, error.error().error(), () -> "error code of " + error.error());
        assertEquals(streamId, error.error().streamId());
        return error.error();
    }
}
