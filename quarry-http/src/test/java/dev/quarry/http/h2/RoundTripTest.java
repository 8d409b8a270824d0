package dev.quarry.http.h2;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.HttpFields;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.http.hpack.HpackLimits;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What the generator writes, the parser reads back as it was meant: every frame type, and split header blocks. */
class RoundTripTest {

    private static final HpackLimits LARGE = new HpackLimits(1 << 20, 1000, 1 << 20);

    private static List<FrameEvent> roundTrip(FrameParser.Side parserSide, Consumer<ByteBuffer> write) {
        return roundTrip(parserSide, 16_384, write);
    }

    private static List<FrameEvent> roundTrip(
            FrameParser.Side parserSide, int maxFrameSize, Consumer<ByteBuffer> write) {
        Harness harness = new Harness(parserSide, new FrameParser.Limits(maxFrameSize, 1 << 20, 100), LARGE, true);
        ByteBuffer out = ByteBuffer.allocate(1 << 20);
        write.accept(out);
        byte[] bytes = new byte[out.flip().remaining()];
        out.get(bytes);
        return List.copyOf(harness.feed(bytes));
    }

    private final FrameGenerator generator = new FrameGenerator(new HpackEncoder());

    @Test
    void controlFrames() {
        Http2Settings settings = new Http2Settings()
                .set(Http2Settings.HEADER_TABLE_SIZE, 0)
                .set(Http2Settings.ENABLE_PUSH, 0)
                .set(Http2Settings.MAX_CONCURRENT_STREAMS, 0xFFFF_FFFFL)
                .set(Http2Settings.INITIAL_WINDOW_SIZE, Integer.MAX_VALUE)
                .set(Http2Settings.MAX_FRAME_SIZE, 16_777_215)
                .set(Http2Settings.MAX_HEADER_LIST_SIZE, 0)
                .set(Http2Settings.ENABLE_CONNECT_PROTOCOL, 1);
        List<FrameEvent> events = roundTrip(FrameParser.Side.SERVER, out -> {
            generator.settings(out, settings);
            generator.settingsAck(out);
            generator.ping(out, Long.MIN_VALUE, false);
            generator.ping(out, 42, true);
            generator.goAway(out, Integer.MAX_VALUE, ErrorCode.HTTP_1_1_REQUIRED, "d\u00e9bug");
            generator.windowUpdate(out, 0, 1);
            generator.windowUpdate(out, Integer.MAX_VALUE, Integer.MAX_VALUE);
            generator.rstStream(out, 9, ErrorCode.REFUSED_STREAM);
            generator.priority(out, 11, 9, true, 1);
            FrameGenerator.frame(out, 0xAB, 0xCD, 13, ByteBuffer.allocate(3));
        });
        assertEquals(
                List.of(
                        new FrameEvent.Settings(settings),
                        new FrameEvent.SettingsAck(),
                        new FrameEvent.Ping(Long.MIN_VALUE, false),
                        new FrameEvent.Ping(42, true),
                        new FrameEvent.GoAway(Integer.MAX_VALUE, ErrorCode.HTTP_1_1_REQUIRED, "d\u00e9bug"),
                        new FrameEvent.WindowUpdate(0, 1),
                        new FrameEvent.WindowUpdate(Integer.MAX_VALUE, Integer.MAX_VALUE),
                        new FrameEvent.RstStream(9, ErrorCode.REFUSED_STREAM),
                        new FrameEvent.Priority(11, 9, true, 1),
                        new FrameEvent.Unknown(0xAB, 13, 3)),
                events);
    }

    @Test
    void everyErrorCodeSurvivesTheTrip() {
        for (ErrorCode code : ErrorCode.values()) {
            List<FrameEvent> events = roundTrip(FrameParser.Side.SERVER, out -> generator.rstStream(out, 1, code));
            assertEquals(List.of(new FrameEvent.RstStream(1, code)), events);
        }
    }

    @Test
    void dataWithAndWithoutEndStream() {
        byte[] payload = new byte[16_384];
        new java.util.Random(1).nextBytes(payload);
        List<FrameEvent> events = roundTrip(FrameParser.Side.SERVER, out -> {
            generator.data(out, 1, ByteBuffer.wrap(payload), false);
            generator.dataHeader(out, 1, 0, true);
        });
        FrameEvent.Data first = assertInstanceOf(FrameEvent.Data.class, events.get(0));
        assertArrayEquals(payload, first.data());
        assertEquals(16_384, first.flowControlledLength());
        assertEquals(
                new FrameEvent.Data(1, new byte[0], true, 0).toString(),
                events.get(1).toString());
    }

    @Test
    void requestHeadersAreAValidRequest() {
        HttpFields fields =
                new HttpFields().add("Accept", "*/*").add("TE", "trailers").add("Connection", "close");
        List<FrameEvent> events = roundTrip(
                FrameParser.Side.SERVER,
                out -> generator.requestHeaders(
                        out, 1, "POST", "https", "example.com:8443", "/submit?x=1", fields, false));
        FrameEvent.Headers headers = assertInstanceOf(FrameEvent.Headers.class, events.get(0));
        RequestHead head = Http2Messages.request(1, headers.block());
        assertEquals("POST", head.method());
        assertEquals("https", head.scheme());
        assertEquals("example.com:8443", head.authority());
        assertEquals("/submit?x=1", head.path());
        assertEquals(2, head.fields().size(), "connection dropped, te: trailers kept: " + head.fields());
    }

    @Test
    void connectRequestHeadersHaveNoSchemeOrPath() {
        List<FrameEvent> events = roundTrip(
                FrameParser.Side.SERVER,
                out -> generator.requestHeaders(
                        out, 1, "CONNECT", null, "example.com:443", null, new HttpFields(), false));
        RequestHead head = Http2Messages.request(1, ((FrameEvent.Headers) events.get(0)).block());
        assertEquals("CONNECT", head.method());
        assertEquals("example.com:443", head.authority());
    }

    @Test
    void trailersAreEndStreamWithoutPseudoHeaders() {
        List<FrameEvent> events = roundTrip(
                FrameParser.Side.SERVER, out -> generator.trailers(out, 5, new HttpFields().add("x-sum", "42")));
        FrameEvent.Headers headers = assertInstanceOf(FrameEvent.Headers.class, events.get(0));
        assertTrue(headers.endStream());
        assertEquals(
                "42", Http2Messages.trailers(5, headers.block()).get("x-sum").orElseThrow());
    }

    @Test
    void responseHeadersOnTheClientSide() {
        List<FrameEvent> events = roundTrip(
                FrameParser.Side.CLIENT,
                out -> generator.responseHeaders(out, 1, 204, new HttpFields().add("x-a", "1"), true));
        FrameEvent.Headers headers = assertInstanceOf(FrameEvent.Headers.class, events.get(0));
        assertEquals("204", headers.block().status());
        assertTrue(headers.endStream());
    }

    /** The fields whose block, from a fresh encoder without table or Huffman, is exactly {@code size} octets. */
    private static HttpFields fieldsOfBlockSize(int size) {
        for (int n = Math.max(0, size - 20); n <= size; n++) {
            HttpFields fields = new HttpFields().add("x-pad", "p".repeat(n));
            if (blockSize(fields) == size) {
                return fields;
            }
        }
        throw new AssertionError("no block of " + size + " octets");
    }

    private static int blockSize(HttpFields fields) {
        FrameGenerator generator = new FrameGenerator(new HpackEncoder(0, false, HpackEncoder.DEFAULT_POLICY));
        generator.setMaxFrameSize(Http2Settings.MAX_MAX_FRAME_SIZE);
        ByteBuffer out = ByteBuffer.allocate(1 << 20);
        generator.responseHeaders(out, 1, 200, fields, false);
        return out.position() - 9;
    }

    @ParameterizedTest(name = "max frame size {0}")
    @ValueSource(ints = {16_384, 20_000})
    void aHeaderBlockIsSplitAtEveryMaxFrameSizeBoundary(int maxFrameSize) {
        int[] sizes = {
            1,
            maxFrameSize - 1,
            maxFrameSize,
            maxFrameSize + 1,
            2 * maxFrameSize - 1,
            2 * maxFrameSize,
            2 * maxFrameSize + 1,
            3 * maxFrameSize
        };
        for (int size : sizes) {
            if (size < 20) {
                continue;
            }
            HttpFields fields = fieldsOfBlockSize(size);
            FrameGenerator generator = new FrameGenerator(new HpackEncoder(0, false, HpackEncoder.DEFAULT_POLICY));
            generator.setMaxFrameSize(maxFrameSize);
            ByteBuffer out = ByteBuffer.allocate(1 << 20);
            generator.responseHeaders(out, 1, 200, fields, true);
            byte[] bytes = java.util.Arrays.copyOf(out.array(), out.position());
            int frames = (size + maxFrameSize - 1) / maxFrameSize;
            assertEquals(size + 9 * frames, bytes.length, "octets for a block of " + size);
            checkFrameLayout(bytes, frames, maxFrameSize, size);

            Harness client = new Harness(
                    FrameParser.Side.CLIENT, new FrameParser.Limits(maxFrameSize, 1 << 20, 100), LARGE, true);
            FrameEvent.Headers headers = assertInstanceOf(FrameEvent.Headers.class, client.one(bytes), "size " + size);
            assertTrue(headers.endStream());
            assertEquals(
                    fields.field(0).value(),
                    headers.block().fields().get("x-pad").orElseThrow());
        }
    }

    /** HEADERS first, CONTINUATION after, each full but the last, END_HEADERS on the last only. */
    private static void checkFrameLayout(byte[] bytes, int frames, int maxFrameSize, int size) {
        int at = 0;
        for (int i = 0; i < frames; i++) {
            int length = (bytes[at] & 0xFF) << 16 | (bytes[at + 1] & 0xFF) << 8 | bytes[at + 2] & 0xFF;
            int type = bytes[at + 3];
            int flags = bytes[at + 4];
            boolean last = i == frames - 1;
            assertEquals(last ? size - (frames - 1) * maxFrameSize : maxFrameSize, length, "frame " + i);
            assertEquals(i == 0 ? Frames.HEADERS : Frames.CONTINUATION, type, "frame " + i);
            assertEquals(last, (flags & Frames.END_HEADERS) != 0, "END_HEADERS on frame " + i);
            assertEquals(i == 0, (flags & Frames.END_STREAM) != 0, "END_STREAM on frame " + i);
            at += 9 + length;
        }
        assertEquals(bytes.length, at);
    }

    @Test
    void manyHeadsOnOneConnectionKeepTheTablesInStep() {
        HpackEncoder encoder = new HpackEncoder();
        FrameGenerator client = new FrameGenerator(encoder);
        Harness server = new Harness(FrameParser.Side.SERVER, FrameParser.Limits.DEFAULT, LARGE, true);
        java.util.Random random = new java.util.Random(7);
        for (int i = 0; i < 500; i++) {
            HttpFields fields = new HttpFields()
                    .add("x-request", Integer.toString(i))
                    .add("x-choice", "value-" + random.nextInt(20))
                    .add("user-agent", "round-trip/1");
            ByteBuffer out = ByteBuffer.allocate(4096);
            int streamId = 2 * i + 1;
            client.requestHeaders(out, streamId, "GET", "https", "example.com", "/item/" + i, fields, true);
            byte[] bytes = java.util.Arrays.copyOf(out.array(), out.position());
            FrameEvent.Headers headers = assertInstanceOf(FrameEvent.Headers.class, server.one(bytes));
            RequestHead head = Http2Messages.request(streamId, headers.block());
            assertEquals("/item/" + i, head.path());
            assertEquals(fields, head.fields());
        }
    }
}
