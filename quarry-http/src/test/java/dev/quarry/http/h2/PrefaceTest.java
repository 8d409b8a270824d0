package dev.quarry.http.h2;

import static dev.quarry.http.h2.Frames.ACK;
import static dev.quarry.http.h2.Frames.PING;
import static dev.quarry.http.h2.Frames.SETTINGS;
import static dev.quarry.http.h2.Frames.concat;
import static dev.quarry.http.h2.Frames.frame;
import static dev.quarry.http.h2.Frames.zeros;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.hpack.HpackLimits;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The connection preface (RFC 9113 3.4): the client's magic octets, then SETTINGS first from both ends. */
class PrefaceTest {

    private static Harness fresh(FrameParser.Side side) {
        return new Harness(side, FrameParser.Limits.DEFAULT, HpackLimits.DEFAULT, false);
    }

    @Test
    void thePrefaceThenSettingsIsAccepted() {
        Harness harness = fresh(FrameParser.Side.SERVER);
        harness.parser.expectPreface();
        List<FrameEvent> events = harness.feed(concat(Frames.PREFACE, Frames.settings(3, 100)));
        assertEquals(1, events.size());
        assertInstanceOf(FrameEvent.Settings.class, events.get(0));
    }

    @Test
    void thePrefaceMayArriveOneOctetAtATime() {
        Harness harness = fresh(FrameParser.Side.SERVER);
        harness.parser.expectPreface();
        byte[] bytes = concat(Frames.PREFACE, Frames.emptySettings());
        ByteBuffer buffer = ByteBuffer.allocate(bytes.length);
        for (int i = 0; i < bytes.length; i++) {
            buffer.put(bytes[i]).flip();
            boolean parsed = harness.parser.parseFrame(buffer);
            assertEquals(i == bytes.length - 1, parsed, "after octet " + i);
            buffer.compact();
        }
        assertInstanceOf(FrameEvent.Settings.class, harness.recorder.last());
    }

    @Test
    void aWrongPrefaceIsAProtocolErrorAsSoonAsAnOctetDiffers() {
        Harness harness = fresh(FrameParser.Side.SERVER);
        harness.parser.expectPreface();
        // An HTTP/1.1 request on an HTTP/2-only connection fails at the first octet, without waiting for 24.
        FrameEvent event = harness.one("GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
        Http2Exception error = Harness.connectionError(event, ErrorCode.PROTOCOL_ERROR);
        assertTrue(error.getMessage().contains("preface"), error.getMessage());
    }

    @Test
    void aPrefaceWrongInItsLastOctetIsAProtocolError() {
        Harness harness = fresh(FrameParser.Side.SERVER);
        harness.parser.expectPreface();
        byte[] preface = Frames.PREFACE.clone();
        preface[23] = 'X';
        Harness.connectionError(harness.one(preface), ErrorCode.PROTOCOL_ERROR);
    }

    @Test
    void aFirstFrameOtherThanSettingsIsAProtocolError() {
        Harness harness = fresh(FrameParser.Side.SERVER);
        harness.parser.expectPreface();
        Harness.connectionError(
                harness.one(concat(Frames.PREFACE, frame(PING, 0, 0, zeros(8)))), ErrorCode.PROTOCOL_ERROR);
    }

    @Test
    void aSettingsAckAsTheFirstFrameIsAProtocolError() {
        Harness harness = fresh(FrameParser.Side.SERVER);
        harness.parser.expectPreface();
        Harness.connectionError(
                harness.one(concat(Frames.PREFACE, frame(SETTINGS, ACK, 0, new byte[0]))), ErrorCode.PROTOCOL_ERROR);
    }

    @Test
    void withoutExpectPrefaceTheFirstFrameMustStillBeSettings() {
        // The HTTP/1.1 parser consumed the preface (prior knowledge on a shared port): SETTINGS must come first.
        Harness harness = fresh(FrameParser.Side.SERVER);
        Harness.connectionError(harness.one(frame(PING, 0, 0, zeros(8))), ErrorCode.PROTOCOL_ERROR);
    }

    @Test
    void theClientExpectsTheServersSettingsFirst() {
        Harness harness = fresh(FrameParser.Side.CLIENT);
        Harness.connectionError(harness.one(frame(PING, 0, 0, zeros(8))), ErrorCode.PROTOCOL_ERROR);
        Harness ok = fresh(FrameParser.Side.CLIENT);
        assertInstanceOf(FrameEvent.Settings.class, ok.one(Frames.emptySettings()));
    }

    @Test
    void aClientDoesNotExpectTheClientPreface() {
        Harness harness = fresh(FrameParser.Side.CLIENT);
        Harness.connectionError(harness.one(Frames.PREFACE), ErrorCode.PROTOCOL_ERROR);
    }

    @Test
    void afterTheFirstSettingsOtherFramesAreAccepted() {
        Harness harness = fresh(FrameParser.Side.SERVER);
        harness.parser.expectPreface();
        List<FrameEvent> events = harness.feed(concat(
                Frames.PREFACE,
                Frames.emptySettings(),
                frame(PING, 0, 0, zeros(8)),
                frame(SETTINGS, ACK, 0, new byte[0])));
        assertEquals(3, events.size());
        assertFalse(harness.parser.isClosed());
    }

    @Test
    void expectPrefaceAfterAFrameIsRefused() {
        Harness harness = Harness.server();
        assertThrows(IllegalStateException.class, harness.parser::expectPreface);
    }
}
