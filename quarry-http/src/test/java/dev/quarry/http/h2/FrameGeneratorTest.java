package dev.quarry.http.h2;

import static dev.quarry.http.h2.Frames.bytes;
import static dev.quarry.http.h2.Frames.concat;
import static dev.quarry.http.h2.Frames.frame;
import static dev.quarry.http.h2.Frames.int32;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.PreEncodedHttpField;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.hpack.HpackEncoder;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The exact octets the generator writes, what it refuses to send, and its all-or-nothing writes. */
class FrameGeneratorTest {

    private final FrameGenerator generator = new FrameGenerator(new HpackEncoder());

    private static byte[] written(Consumer<ByteBuffer> write) {
        ByteBuffer out = ByteBuffer.allocate(1 << 16);
        write.accept(out);
        out.flip();
        byte[] bytes = new byte[out.remaining()];
        out.get(bytes);
        return bytes;
    }

    @Test
    void settingsListsThePresentSettingsById() {
        Http2Settings settings = new Http2Settings()
                .set(Http2Settings.MAX_FRAME_SIZE, 16_777_215)
                .set(Http2Settings.ENABLE_PUSH, 0)
                .set(Http2Settings.INITIAL_WINDOW_SIZE, 0xFFFF_FFFFL);
        assertArrayEquals(
                frame(
                        Frames.SETTINGS,
                        0,
                        0,
                        concat(bytes(0, 2), int32(0), bytes(0, 4), int32(0xFFFF_FFFF), bytes(0, 5), int32(16_777_215))),
                written(out -> generator.settings(out, settings)));
        assertArrayEquals(Frames.emptySettings(), written(out -> generator.settings(out, new Http2Settings())));
    }

    @Test
    void controlFramesAreByteExact() {
        assertArrayEquals(frame(Frames.SETTINGS, 1, 0, new byte[0]), written(generator::settingsAck));
        assertArrayEquals(
                frame(Frames.PING, 1, 0, bytes(1, 2, 3, 4, 5, 6, 7, 8)),
                written(out -> generator.ping(out, 0x0102030405060708L, true)));
        assertArrayEquals(
                frame(Frames.WINDOW_UPDATE, 0, 5, int32(0x7FFF_FFFF)),
                written(out -> generator.windowUpdate(out, 5, 0x7FFF_FFFF)));
        assertArrayEquals(
                frame(Frames.RST_STREAM, 0, 3, int32(8)),
                written(out -> generator.rstStream(out, 3, ErrorCode.CANCEL)));
        assertArrayEquals(
                frame(Frames.PRIORITY, 0, 3, bytes(0x80, 0, 0, 1, 255)),
                written(out -> generator.priority(out, 3, 1, true, 256)));
        assertArrayEquals(
                frame(Frames.GOAWAY, 0, 0, concat(int32(9), int32(1), "bad".getBytes(StandardCharsets.UTF_8))),
                written(out -> generator.goAway(out, 9, ErrorCode.PROTOCOL_ERROR, "bad")));
        assertArrayEquals(Frames.PREFACE, written(FrameGenerator::preface));
    }

    @Test
    void goAwayDebugDataIsTruncated() {
        byte[] bytes = written(out -> generator.goAway(out, 0, ErrorCode.NO_ERROR, "x".repeat(10_000)));
        assertEquals(9 + 8 + FrameGenerator.MAX_DEBUG_LENGTH, bytes.length);
    }

    @Test
    void dataHeaderIsTheNineOctetsBeforeThePayload() {
        assertArrayEquals(
                Arrays.copyOf(frame(Frames.DATA, 1, 7, new byte[300]), 9),
                written(out -> generator.dataHeader(out, 7, 300, true)));
        assertArrayEquals(
                frame(Frames.DATA, 0, 7, bytes(1, 2)),
                written(out -> generator.data(out, 7, ByteBuffer.wrap(bytes(1, 2)), false)));
    }

    @Test
    void rawFramesAreWrittenAsGivenWithoutTouchingThePayload() {
        ByteBuffer payload = ByteBuffer.wrap(bytes(9, 9, 9));
        assertArrayEquals(
                frame(0xEE, 0xFF, 0x7FFF_FFFF, bytes(9, 9, 9)),
                written(out -> FrameGenerator.frame(out, 0xEE, 0xFF, 0xFFFF_FFFF, payload)));
        assertEquals(0, payload.position());
    }

    @Test
    void invalidArgumentsAreRefused() {
        ByteBuffer out = ByteBuffer.allocate(1024);
        assertThrows(IllegalArgumentException.class, () -> generator.windowUpdate(out, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> generator.rstStream(out, 0, ErrorCode.CANCEL));
        assertThrows(IllegalArgumentException.class, () -> generator.dataHeader(out, 1, 16_385, false));
        assertThrows(IllegalArgumentException.class, () -> generator.dataHeader(out, 0, 1, false));
        assertThrows(IllegalArgumentException.class, () -> generator.priority(out, 1, 0, false, 0));
        assertThrows(
                IllegalArgumentException.class, () -> generator.responseHeaders(out, 1, 99, new HttpFields(), true));
        assertThrows(IllegalArgumentException.class, () -> generator.setMaxFrameSize(16_383));
        assertThrows(IllegalArgumentException.class, () -> generator.setMaxFrameSize(16_777_216));
        assertEquals(0, out.position());
    }

    @Test
    void responseHeadersPutStatusFirstLowercaseNamesAndDropConnectionSpecificFields() {
        HttpFields fields = new HttpFields()
                .add("Content-Type", "text/plain")
                .add(HttpHeader.CONNECTION, "keep-alive")
                .add("Keep-Alive", "timeout=5")
                .add(HttpHeader.TRANSFER_ENCODING, "chunked")
                .add("Upgrade", "h2c")
                .add("Proxy-Connection", "close")
                .add("TE", "gzip")
                .add("X-Custom-Thing", "Value Kept As Is");
        Harness client = Harness.client();
        ByteBuffer out = ByteBuffer.allocate(4096);
        FrameGenerator server = new FrameGenerator(new HpackEncoder());
        server.responseHeaders(out, 1, 404, fields, true);
        byte[] bytes = Arrays.copyOf(out.array(), out.position());
        FrameEvent.Headers headers = assertInstanceOf(FrameEvent.Headers.class, client.one(bytes));
        assertTrue(headers.endStream());
        HeaderBlock block = headers.block();
        assertEquals("404", block.status());
        assertTrue(block.malformed().isEmpty(), () -> block.malformed().get());
        assertEquals(2, block.fields().size(), block.fields().toString());
        assertEquals("content-type", block.fields().field(0).name());
        assertEquals("x-custom-thing", block.fields().field(1).name());
        assertEquals("Value Kept As Is", block.fields().field(1).value());
    }

    static Stream<Arguments> unsendableFields() {
        return Stream.of(
                Arguments.of("x-a", "a\r\nSet-Cookie: x=1", "header injection"),
                Arguments.of("x-a", "a\u0000", "invalid character"),
                Arguments.of("x-a", "a\u0001", "invalid character"),
                Arguments.of("x-a", "caf\u20ac", "invalid character"),
                Arguments.of("x-a", " lead", "whitespace"),
                Arguments.of("x-a", "trail\t", "whitespace"),
                Arguments.of("x a", "v", "invalid character"),
                Arguments.of("x:a", "v", "invalid character"));
    }

    @ParameterizedTest
    @MethodSource("unsendableFields")
    void aFieldThatMayNotBeSentIsRefusedBeforeAnythingIsEncoded(String name, String value, String reason) {
        HpackEncoder encoder = new HpackEncoder();
        FrameGenerator server = new FrameGenerator(encoder);
        ByteBuffer out = ByteBuffer.allocate(4096);
        HttpFields fields =
                new HttpFields().add("x-first", "indexed-if-encoded").add(name, value);
        IllegalArgumentException error =
                assertThrows(IllegalArgumentException.class, () -> server.responseHeaders(out, 1, 200, fields, false));
        assertTrue(error.getMessage().contains(reason), error.getMessage());
        assertEquals(0, out.position());
        assertEquals(0, encoder.tableLength(), "the encoder's table is untouched");
    }

    @Test
    void preEncodedFieldsAreSentAsTheyAre() {
        HttpFields fields = new HttpFields()
                .add(new PreEncodedHttpField(HttpHeader.SERVER, "quarry"))
                .add(new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "text/plain"));
        Harness client = Harness.client();
        ByteBuffer out = ByteBuffer.allocate(4096);
        generator.responseHeaders(out, 1, 200, fields, false);
        HeaderBlock block = ((FrameEvent.Headers) client.one(Arrays.copyOf(out.array(), out.position()))).block();
        assertEquals("quarry", block.fields().get(HttpHeader.SERVER).orElseThrow());
        assertEquals("server", block.fields().field(0).name());
    }

    @Test
    void aRepeatedPlaintextResponseEncodesToAFewOctets() {
        HttpFields fields = new HttpFields()
                .add(new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "text/plain"))
                .add(HttpHeader.CONTENT_LENGTH, "13")
                .add(new PreEncodedHttpField(HttpHeader.SERVER, "quarry"))
                .add(new PreEncodedHttpField(HttpHeader.DATE, "Mon, 21 Oct 2013 20:13:21 GMT"));
        ByteBuffer out = ByteBuffer.allocate(4096);
        generator.responseHeaders(out, 1, 200, fields, false);
        int first = out.position();
        generator.responseHeaders(out, 3, 200, fields, false);
        int second = out.position() - first;
        // :status 200, content-type, server, date from the tables: one octet each; content-length a 5-octet literal.
        assertTrue(second <= 9 + 10, "second response head is " + second + " octets");
        Harness client = Harness.client();
        List<FrameEvent> events = client.feed(Arrays.copyOf(out.array(), out.position()));
        assertEquals(2, events.size());
        assertEquals(
                ((FrameEvent.Headers) events.get(0)).block().fields(),
                ((FrameEvent.Headers) events.get(1)).block().fields());
    }

    static Stream<Arguments> everyWrite() {
        HttpFields fields = new HttpFields().add("x-a", "b".repeat(100));
        return Stream.of(
                Arguments.of("settings", (Write) (g, out) -> g.settings(out, new Http2Settings().set(3, 100))),
                Arguments.of("settingsAck", (Write) FrameGenerator::settingsAck),
                Arguments.of("ping", (Write) (g, out) -> g.ping(out, 1, false)),
                Arguments.of("goAway", (Write) (g, out) -> g.goAway(out, 1, ErrorCode.NO_ERROR, "bye")),
                Arguments.of("windowUpdate", (Write) (g, out) -> g.windowUpdate(out, 0, 100)),
                Arguments.of("rstStream", (Write) (g, out) -> g.rstStream(out, 1, ErrorCode.CANCEL)),
                Arguments.of("priority", (Write) (g, out) -> g.priority(out, 1, 0, false, 16)),
                Arguments.of("dataHeader", (Write) (g, out) -> g.dataHeader(out, 1, 10, true)),
                Arguments.of("data", (Write) (g, out) -> g.data(out, 1, ByteBuffer.wrap(new byte[10]), true)),
                Arguments.of(
                        "frame", (Write) (g, out) -> FrameGenerator.frame(out, 0x20, 0, 1, ByteBuffer.allocate(5))),
                Arguments.of("responseHeaders", (Write) (g, out) -> g.responseHeaders(out, 1, 200, fields, false)),
                Arguments.of("requestHeaders", (Write)
                        (g, out) -> g.requestHeaders(out, 1, "GET", "https", "a.com", "/", fields, true)),
                Arguments.of("trailers", (Write) (g, out) -> g.trailers(out, 1, fields)));
    }

    interface Write {
        void write(FrameGenerator generator, ByteBuffer out);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyWrite")
    void aWriteThatDoesNotFitThrowsAndLeavesTheBufferUnchanged(String name, Write write) {
        byte[] complete = written(out -> write.write(new FrameGenerator(new HpackEncoder()), out));
        for (int room = 0; room < complete.length; room++) {
            HpackEncoder encoder = new HpackEncoder();
            FrameGenerator fresh = new FrameGenerator(encoder);
            ByteBuffer out = ByteBuffer.allocate(room + 3).position(3);
            assertThrows(BufferOverflowException.class, () -> write.write(fresh, out), name + " in " + room);
            assertEquals(3, out.position(), name + " wrote into " + room + " octets");
            assertEquals(0, encoder.tableLength(), "nothing was encoded");
        }
    }

    @Test
    void aHeadBlockNeedsRoomForItsBoundNotItsExactSize() {
        HttpFields fields = new HttpFields().add("x-a", "v");
        int bound = generator.maxHeadersLength(fields);
        ByteBuffer exact = ByteBuffer.allocate(bound);
        generator.responseHeaders(exact, 1, 200, fields, false);
        assertTrue(exact.position() < bound, "the bound is above the size");
        ByteBuffer tooSmall = ByteBuffer.allocate(bound - 1);
        assertThrows(BufferOverflowException.class, () -> generator.responseHeaders(tooSmall, 3, 200, fields, false));
    }

    @Test
    void toStringNamesThePeerMaxFrameSize() {
        generator.setMaxFrameSize(32_768);
        assertTrue(generator.toString().contains("32768"), generator.toString());
        assertFalse(generator.toString().isEmpty());
    }

    @Test
    void headerBlocksAreTheSameWhicheverThreadEncodesThem() throws Exception {
        // The block is encoded into an array lent by the thread (a generator keeps its own only on a virtual thread):
        // blocks larger than the lent array, and blocks on alternating threads, must come out as on one thread.
        FrameGenerator reference = new FrameGenerator(new HpackEncoder());
        FrameGenerator mixed = new FrameGenerator(new HpackEncoder());
        String large = "x".repeat(3000);
        List<HttpFields> heads = List.of(
                new HttpFields().add("content-type", "text/plain"),
                new HttpFields().add("x-large", large).add("content-type", "text/plain"),
                new HttpFields().add("content-type", "text/plain"),
                new HttpFields().add("x-large", large + "y"),
                new HttpFields().add("x-small", "z"));
        for (int i = 0; i < heads.size(); i++) {
            HttpFields fields = heads.get(i);
            int stream = 2 * i + 1;
            byte[] expected = written(out -> reference.responseHeaders(out, stream, 200, fields, false));
            byte[][] actual = new byte[1][];
            Runnable encode = () -> actual[0] = written(out -> mixed.responseHeaders(out, stream, 200, fields, false));
            if (i % 2 == 1) {
                Thread.ofVirtual().start(encode).join();
            } else {
                encode.run();
            }
            assertArrayEquals(expected, actual[0], "head " + i);
        }
    }
}
