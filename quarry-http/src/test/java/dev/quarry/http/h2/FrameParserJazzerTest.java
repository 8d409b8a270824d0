package dev.quarry.http.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.FrameRecorder;
import dev.quarry.http.hpack.HpackDecoder;
import dev.quarry.http.hpack.HpackLimits;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * Coverage-guided fuzz target for the HTTP/2 frame parser and the HPACK decoder behind it (Jazzer), replayed from
 * {@code src/test/resources/dev/quarry/http/h2/FrameParserJazzerTestInputs/} by {@code mvn verify}.
 *
 * <p>Input layout: byte 0 holds flags (bit 0: the client side parses, else the server side; bit 1: the server side
 * expects the connection preface; bits 2-3: the limits), byte 1 the split stride (0: byte by byte), the rest is the
 * bytes on the wire.
 */
class FrameParserJazzerTest {
    private static final FrameParser.Limits[] LIMITS = {
        FrameParser.Limits.DEFAULT,
        new FrameParser.Limits(16_384, 200, 3),
        new FrameParser.Limits(20_000, 1 << 20, 1000),
        FrameParser.Limits.DEFAULT
    };
    private static final HpackLimits[] HPACK_LIMITS = {
        HpackLimits.DEFAULT, new HpackLimits(150, 4, 100), HpackLimits.DEFAULT, HpackLimits.DEFAULT
    };

    /**
     * Any bytes: the parser reports frames and {@link Http2Exception}s only (no other exception escapes), progresses on
     * every call that returns true, reports nothing after a connection error, and reports the same events whole as
     * split at any stride into a buffer of the size its contract asks for.
     */
    @FuzzTest
    void framesParseTheSameWholeAndSplit(byte[] input) {
        if (input.length < 2) {
            return;
        }
        int flags = input[0];
        byte[] wire = Arrays.copyOfRange(input, 2, input.length);
        List<String> whole = parse(flags, wire, List.of());
        List<Integer> splits = new ArrayList<>();
        int stride = Math.max(1, input[1] & 0xFF);
        for (int at = stride; at < wire.length; at += stride) {
            splits.add(at);
        }
        List<String> split = parse(flags, wire, splits);
        assertEquals(
                whole,
                split,
                () -> "split at stride " + stride + ": " + HexFormat.of().formatHex(wire));
    }

    private static List<String> parse(int flags, byte[] wire, List<Integer> splits) {
        boolean server = (flags & 1) == 0;
        FrameParser.Limits limits = LIMITS[(flags >> 2) & 3];
        FrameRecorder recorder = new FrameRecorder();
        FrameParser parser = new FrameParser(
                server ? FrameParser.Side.SERVER : FrameParser.Side.CLIENT,
                recorder,
                new HpackDecoder(HpackDecoder.DEFAULT_MAX_TABLE_SIZE, HPACK_LIMITS[(flags >> 2) & 3]),
                limits);
        if (server && (flags & 2) != 0) {
            parser.expectPreface();
        }
        ByteBuffer buffer = ByteBuffer.allocate(Math.max(limits.maxFrameSize() + 9, wire.length));
        int from = 0;
        for (int i = 0; i <= splits.size() && !parser.isClosed(); i++) {
            int cut = i < splits.size() ? splits.get(i) : wire.length;
            buffer.put(wire, from, cut - from);
            from = cut;
            buffer.flip();
            int calls = 0;
            while (true) {
                int before = buffer.position();
                int eventsBefore = recorder.events().size();
                if (!parser.parseFrame(buffer)) {
                    break;
                }
                if (++calls > wire.length + 2) {
                    fail("parser loops");
                }
                if (buffer.position() == before && recorder.events().size() == eventsBefore) {
                    fail("a call returned true without consuming or reporting");
                }
            }
            buffer.compact();
        }
        List<String> events = new ArrayList<>();
        boolean closed = false;
        for (FrameEvent event : recorder.events()) {
            if (closed) {
                fail("an event after a connection error: " + event);
            }
            events.add(describe(event));
            if (event instanceof FrameEvent.ConnectionError e) {
                closed = true;
                assertEquals(0, e.error().streamId());
            } else if (event instanceof FrameEvent.StreamError e) {
                assertTrue(e.error().streamId() > 0);
            }
        }
        assertEquals(closed, parser.isClosed());
        return events;
    }

    private static String describe(FrameEvent event) {
        return switch (event) {
            case FrameEvent.Data d ->
                "DATA " + d.streamId() + " " + HexFormat.of().formatHex(d.data()) + " " + d.endStream() + " "
                        + d.flowControlledLength();
            case FrameEvent.ConnectionError e ->
                "connection error " + e.error().error() + " " + e.error().getMessage();
            case FrameEvent.StreamError e ->
                "stream error " + e.error().streamId() + " " + e.error().error() + " "
                        + e.error().getMessage();
            default -> event.toString();
        };
    }
}
