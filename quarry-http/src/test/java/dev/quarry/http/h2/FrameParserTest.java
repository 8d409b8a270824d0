package dev.quarry.http.h2;

import static dev.quarry.http.h2.Frames.ACK;
import static dev.quarry.http.h2.Frames.DATA;
import static dev.quarry.http.h2.Frames.END_HEADERS;
import static dev.quarry.http.h2.Frames.END_STREAM;
import static dev.quarry.http.h2.Frames.GOAWAY;
import static dev.quarry.http.h2.Frames.HEADERS;
import static dev.quarry.http.h2.Frames.PADDED;
import static dev.quarry.http.h2.Frames.PING;
import static dev.quarry.http.h2.Frames.PRIORITY;
import static dev.quarry.http.h2.Frames.PRIORITY_FLAG;
import static dev.quarry.http.h2.Frames.RST_STREAM;
import static dev.quarry.http.h2.Frames.SETTINGS;
import static dev.quarry.http.h2.Frames.WINDOW_UPDATE;
import static dev.quarry.http.h2.Frames.bytes;
import static dev.quarry.http.h2.Frames.concat;
import static dev.quarry.http.h2.Frames.frame;
import static dev.quarry.http.h2.Frames.int32;
import static dev.quarry.http.h2.Frames.zeros;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.hpack.HpackLimits;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the parser delivers for valid frames of every type, and how it consumes its input. */
class FrameParserTest {

    @Test
    void dataIsDeliveredAsASliceWithItsFlowControlledLength() {
        Harness harness = Harness.server();
        FrameEvent.Data data =
                assertInstanceOf(FrameEvent.Data.class, harness.one(frame(DATA, END_STREAM, 1, bytes('a', 'b', 'c'))));
        assertEquals(1, data.streamId());
        assertArrayEquals(bytes('a', 'b', 'c'), data.data());
        assertTrue(data.endStream());
        assertEquals(3, data.flowControlledLength());
    }

    @Test
    void paddedDataIsDeliveredWithoutPaddingButCountsItForFlowControl() {
        Harness harness = Harness.server();
        FrameEvent.Data data = assertInstanceOf(
                FrameEvent.Data.class,
                harness.one(frame(DATA, PADDED, 3, concat(bytes(4), bytes('x', 'y'), zeros(4)))));
        assertArrayEquals(bytes('x', 'y'), data.data());
        assertFalse(data.endStream());
        assertEquals(7, data.flowControlledLength());
    }

    @Test
    void dataWhosePaddingFillsThePayloadIsEmpty() {
        Harness harness = Harness.server();
        FrameEvent.Data data =
                assertInstanceOf(FrameEvent.Data.class, harness.one(frame(DATA, PADDED, 1, bytes(3, 0, 0, 0))));
        assertEquals(0, data.data().length);
        assertEquals(4, data.flowControlledLength());
    }

    @Test
    void theDataSliceIsTheParsersInputWithoutCopy() {
        Harness harness = Harness.server();
        DataCapture capture = new DataCapture();
        FrameParser parser =
                new FrameParser(FrameParser.Side.CLIENT, capture, harness.decoder, FrameParser.Limits.DEFAULT);
        ByteBuffer input = ByteBuffer.wrap(concat(Frames.emptySettings(), frame(DATA, 0, 1, bytes(7, 8, 9))));
        assertTrue(parser.parseFrame(input));
        assertTrue(parser.parseFrame(input));
        input.array()[18 + 1] = 42;
        assertEquals(42, capture.data.get(1));
    }

    private static final class DataCapture extends dev.quarry.http.h2test.FrameRecorder {
        ByteBuffer data;

        @Override
        public void onData(int streamId, ByteBuffer data, boolean endStream, int flowControlledLength) {
            this.data = data;
        }
    }

    @Test
    void headersAreDecodedIntoPseudoHeadersAndFields() {
        Harness harness = Harness.server();
        HeaderBlock block =
                harness.decode(Frames.with(Frames.get("/index.html?q=1"), "accept", "*/*", "cookie", "a=b"));
        assertEquals("GET", block.method());
        assertEquals("https", block.scheme());
        assertEquals("example.com", block.authority());
        assertEquals("/index.html?q=1", block.path());
        assertEquals(2, block.fields().size());
        assertTrue(block.fields().field(0).is(dev.quarry.http.HttpHeader.ACCEPT), "well-known names are resolved");
        assertEquals(
                "a=b", block.fields().get(dev.quarry.http.HttpHeader.COOKIE).orElseThrow());
        assertTrue(block.malformed().isEmpty());
        assertFalse(block.tooLarge());
    }

    @Test
    void headersWithPaddingAndPriorityAreDecoded() {
        Harness harness = Harness.server();
        byte[] block = harness.block(Frames.get("/"));
        byte[] payload = concat(bytes(5), int32(0x8000_0001), bytes(200), block, zeros(5));
        FrameEvent.Headers headers = assertInstanceOf(
                FrameEvent.Headers.class,
                harness.one(frame(HEADERS, END_HEADERS | PADDED | PRIORITY_FLAG, 3, payload)));
        assertEquals(3, headers.streamId());
        assertFalse(headers.endStream());
        assertEquals("/", headers.block().path());
    }

    @Test
    void priorityIsDeliveredWithTheWeightFrom1To256() {
        Harness harness = Harness.server();
        FrameEvent.Priority priority = assertInstanceOf(
                FrameEvent.Priority.class, harness.one(frame(PRIORITY, 0, 5, bytes(0x80, 0, 0, 3, 255))));
        assertEquals(new FrameEvent.Priority(5, 3, true, 256), priority);
        assertEquals(new FrameEvent.Priority(7, 0, false, 1), harness.one(frame(PRIORITY, 0, 7, bytes(0, 0, 0, 0, 0))));
    }

    @Test
    void rstStreamCarriesTheErrorCodeAndUnknownCodesAreInternalErrors() {
        Harness harness = Harness.server();
        assertEquals(new FrameEvent.RstStream(1, ErrorCode.CANCEL), harness.one(frame(RST_STREAM, 0, 1, int32(8))));
        assertEquals(
                new FrameEvent.RstStream(3, ErrorCode.INTERNAL_ERROR),
                harness.one(frame(RST_STREAM, 0, 3, int32(0xFF))));
    }

    @Test
    void settingsAreDeliveredWithUnknownIdsIgnored() {
        Harness harness = Harness.server();
        FrameEvent.Settings settings = assertInstanceOf(
                FrameEvent.Settings.class,
                harness.one(
                        Frames.settings(1, 8192, 3, 100, 4, 0x7FFF_FFFF, 5, 16_777_215, 6, 1000, 8, 1, 0x99, 5, 7, 1)));
        Http2Settings expected = new Http2Settings()
                .set(Http2Settings.HEADER_TABLE_SIZE, 8192)
                .set(Http2Settings.MAX_CONCURRENT_STREAMS, 100)
                .set(Http2Settings.INITIAL_WINDOW_SIZE, 0x7FFF_FFFF)
                .set(Http2Settings.MAX_FRAME_SIZE, 16_777_215)
                .set(Http2Settings.MAX_HEADER_LIST_SIZE, 1000)
                .set(Http2Settings.ENABLE_CONNECT_PROTOCOL, 1);
        assertEquals(expected, settings.settings());
    }

    @Test
    void settingsValuesAtTheEdgesAreValid() {
        Harness harness = Harness.server();
        assertInstanceOf(FrameEvent.Settings.class, harness.one(Frames.settings(2, 0, 2, 1, 5, 16_384)));
        assertInstanceOf(FrameEvent.Settings.class, harness.one(Frames.settings(4, 0, 1, 0xFFFF_FFFFL)));
    }

    @Test
    void aRepeatedSettingKeepsItsLastValue() {
        Harness harness = Harness.server();
        FrameEvent.Settings settings =
                assertInstanceOf(FrameEvent.Settings.class, harness.one(Frames.settings(3, 10, 3, 20)));
        assertEquals(
                20,
                settings.settings().get(Http2Settings.MAX_CONCURRENT_STREAMS).orElseThrow());
    }

    @Test
    void settingsAckIsDelivered() {
        Harness harness = Harness.server();
        assertInstanceOf(FrameEvent.SettingsAck.class, harness.one(frame(SETTINGS, ACK, 0, new byte[0])));
    }

    @Test
    void pingCarriesItsEightOctetsAsALong() {
        Harness harness = Harness.server();
        assertEquals(
                new FrameEvent.Ping(0x0102030405060708L, false),
                harness.one(frame(PING, 0, 0, bytes(1, 2, 3, 4, 5, 6, 7, 8))));
        assertEquals(
                new FrameEvent.Ping(-1L, true),
                harness.one(frame(PING, ACK, 0, bytes(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF))));
    }

    @Test
    void goAwayCarriesTheLastStreamTheCodeAndTheDebugData() {
        Harness harness = Harness.server();
        byte[] payload = concat(
                int32(0x8000_0007), int32(0xb), "calm down".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(
                new FrameEvent.GoAway(7, ErrorCode.ENHANCE_YOUR_CALM, "calm down"),
                harness.one(frame(GOAWAY, 0, 0, payload)));
    }

    @Test
    void windowUpdateIgnoresTheReservedBit() {
        Harness harness = Harness.server();
        assertEquals(
                new FrameEvent.WindowUpdate(0, 0x7FFF_FFFF),
                harness.one(frame(WINDOW_UPDATE, 0, 0, int32(0xFFFF_FFFF))));
        assertEquals(new FrameEvent.WindowUpdate(3, 1), harness.one(frame(WINDOW_UPDATE, 0, 3, int32(1))));
    }

    @Test
    void theReservedBitOfTheStreamIdIsIgnored() {
        Harness harness = Harness.server();
        FrameEvent.Data data =
                assertInstanceOf(FrameEvent.Data.class, harness.one(frame(DATA, 0, 0x8000_0001, bytes(1))));
        assertEquals(1, data.streamId());
    }

    @Test
    void unknownFlagsAreIgnored() {
        Harness harness = Harness.server();
        assertEquals(new FrameEvent.Ping(0, false), harness.one(frame(PING, 0xFE, 0, zeros(8))));
    }

    @Test
    void unknownFrameTypesAreReportedAndOtherwiseIgnored() {
        Harness harness = Harness.server();
        List<FrameEvent> events = harness.feed(
                concat(frame(0x20, 0xFF, 0, zeros(12)), frame(0xFF, 0, 9, zeros(0)), frame(PING, 0, 0, zeros(8))));
        assertEquals(
                List.of(
                        new FrameEvent.Unknown(0x20, 0, 12),
                        new FrameEvent.Unknown(0xFF, 9, 0),
                        new FrameEvent.Ping(0, false)),
                events);
    }

    @Test
    void aFrameOfExactlyTheMaxFrameSizeIsAccepted() {
        Harness harness = Harness.server();
        FrameEvent.Data data = assertInstanceOf(FrameEvent.Data.class, harness.one(frame(DATA, 0, 1, zeros(16_384))));
        assertEquals(16_384, data.data().length);
    }

    @Test
    void aLargerMaxFrameSizeAcceptsLargerFrames() {
        Harness harness = Harness.server();
        harness.parser.setMaxFrameSize(100_000);
        FrameEvent.Data data = assertInstanceOf(FrameEvent.Data.class, harness.one(frame(DATA, 0, 1, zeros(100_000))));
        assertEquals(100_000, data.data().length);
        Harness.connectionError(harness.one(frame(DATA, 0, 1, zeros(100_001))), ErrorCode.FRAME_SIZE_ERROR);
    }

    @Test
    void parsesExactlyOneFramePerCall() {
        Harness harness = Harness.server();
        ByteBuffer buffer = ByteBuffer.wrap(concat(frame(PING, 0, 0, zeros(8)), frame(PING, ACK, 0, zeros(8))));
        assertTrue(harness.parser.parseFrame(buffer));
        assertEquals(1, harness.recorder.events().size());
        assertEquals(17, buffer.position());
        assertTrue(harness.parser.parseFrame(buffer));
        assertEquals(2, harness.recorder.events().size());
        assertFalse(harness.parser.parseFrame(buffer));
    }

    @Test
    void anIncompleteFrameConsumesNothingUntilItIsComplete() {
        Harness harness = Harness.server();
        byte[] frame = frame(DATA, END_STREAM, 1, bytes(1, 2, 3, 4, 5));
        ByteBuffer buffer = ByteBuffer.allocate(64);
        for (int i = 0; i < frame.length - 1; i++) {
            buffer.put(frame[i]).flip();
            assertFalse(harness.parser.parseFrame(buffer), "after " + (i + 1) + " octets");
            assertEquals(0, buffer.position());
            buffer.position(buffer.limit()).limit(buffer.capacity());
        }
        buffer.put(frame[frame.length - 1]).flip();
        assertTrue(harness.parser.parseFrame(buffer));
        assertEquals(frame.length, buffer.position());
        assertInstanceOf(FrameEvent.Data.class, harness.recorder.last());
    }

    @Test
    void framesAreFoundInADirectBufferAndAtAnOffset() {
        Harness harness = Harness.server();
        byte[] bytes = concat(harness.headers(1, END_STREAM, Frames.get("/direct")), frame(DATA, 0, 3, bytes(9)));
        ByteBuffer buffer = ByteBuffer.allocateDirect(bytes.length + 10);
        buffer.put(zeros(10)).put(bytes).flip().position(10);
        assertTrue(harness.parser.parseFrame(buffer));
        assertTrue(harness.parser.parseFrame(buffer));
        assertEquals(
                "/direct",
                ((FrameEvent.Headers) harness.recorder.events().get(0)).block().path());
        assertArrayEquals(bytes(9), ((FrameEvent.Data) harness.recorder.events().get(1)).data());
        assertEquals(buffer.limit(), buffer.position());
    }

    @Test
    void aHeaderBlockOverTheHeaderListSizeIsDeliveredAsTooLargeAndTheTableStaysInStep() {
        Harness harness = new Harness(
                FrameParser.Side.SERVER,
                FrameParser.Limits.DEFAULT,
                HpackLimits.DEFAULT.withMaxHeaderListSize(300),
                true);
        String big = "v".repeat(300);
        List<FrameEvent> events = harness.feed(concat(
                harness.headers(1, END_STREAM, Frames.with(Frames.get("/"), "x-big", big, "x-next", "indexed")),
                harness.headers(3, END_STREAM, Frames.with(Frames.get("/"), "x-next", "indexed"))));
        FrameEvent.Headers first = assertInstanceOf(FrameEvent.Headers.class, events.get(0));
        assertTrue(first.block().tooLarge());
        FrameEvent.Headers second = assertInstanceOf(FrameEvent.Headers.class, events.get(1));
        assertFalse(second.block().tooLarge());
        assertEquals("indexed", second.block().fields().get("x-next").orElseThrow());
        assertFalse(harness.parser.isClosed());
    }

    @Test
    void aCallbackThrowingAStreamErrorIsReportedAsOne() {
        Harness harness = Harness.server();
        java.util.List<Http2Exception> streamErrors = new java.util.ArrayList<>();
        FrameParser parser = new FrameParser(
                FrameParser.Side.SERVER,
                new dev.quarry.http.h2test.FrameRecorder() {
                    @Override
                    public void onHeaders(int streamId, HeaderBlock block, boolean endStream) {
                        Http2Messages.request(streamId, block);
                    }

                    @Override
                    public void onStreamError(Http2Exception error) {
                        streamErrors.add(error);
                    }
                },
                harness.decoder,
                FrameParser.Limits.DEFAULT);
        ByteBuffer buffer = ByteBuffer.wrap(
                concat(Frames.emptySettings(), harness.headers(1, END_STREAM, ":method", "GET", ":path", "/")));
        assertTrue(parser.parseFrame(buffer));
        assertTrue(parser.parseFrame(buffer));
        assertEquals(1, streamErrors.size());
        assertEquals(ErrorCode.PROTOCOL_ERROR, streamErrors.get(0).error());
        assertFalse(parser.isClosed());
        assertEquals(buffer.limit(), buffer.position());
    }

    @Test
    void toStringDescribesTheLiveState() {
        Harness harness = Harness.server();
        harness.feed(frame(HEADERS, 0, 1, harness.block(Frames.get("/"))));
        String text = harness.parser.toString();
        assertTrue(text.contains("SERVER"), text);
        assertTrue(text.contains("stream 1 pending"), text);
    }
}
