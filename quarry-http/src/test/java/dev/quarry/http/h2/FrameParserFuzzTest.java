package dev.quarry.http.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quarry.http.HttpFields;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.FrameRecorder;
import dev.quarry.http.hpack.HeaderField;
import dev.quarry.http.hpack.HpackDecoder;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.http.hpack.HpackLimits;
import dev.quarry.http.hpack.HpackOutput;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Feeds valid frame sequences that were then mutated (a fixed seed, a fixed number of cases), split at random points
 * into a buffer of the size the parser's contract asks for, and asserts that the parser only ever reports frames and
 * {@link Http2Exception}s: never another exception, never a call without progress, nothing after a connection error,
 * and that the message rules only ever throw {@link Http2Exception} on what it decoded.
 */
class FrameParserFuzzTest {

    @Test
    void mutatedFrameSequencesParseOrFailCleanly() {
        run(0xF4A3E5L, 3_000);
    }

    @Tag("stress")
    @Test
    void mutatedFrameSequencesParseOrFailCleanlyLonger() {
        run(4242L, 300_000);
    }

    private static void run(long seed, int iterations) {
        Random random = new Random(seed);
        long frames = 0;
        long connectionErrors = 0;
        long streamErrors = 0;
        for (int i = 0; i < iterations; i++) {
            boolean server = random.nextInt(4) != 0;
            byte[] valid = validSequence(random, server);
            byte[] input = mutate(random, valid);
            Result result = parse(random, server, input, i);
            frames += result.frames;
            connectionErrors += result.connectionErrors;
            streamErrors += result.streamErrors;
        }
        // The mutations are meant to reach both the frames and the errors: check that they did.
        assertTrue(frames > iterations, "frames parsed: " + frames);
        assertTrue(connectionErrors > iterations / 10, "connection errors: " + connectionErrors);
        assertTrue(streamErrors > 0, "stream errors: " + streamErrors);
    }

    private record Result(long frames, long connectionErrors, long streamErrors) {}

    private static Result parse(Random random, boolean server, byte[] input, int iteration) {
        FrameRecorder recorder = new FrameRecorder();
        FrameParser.Limits limits = switch (random.nextInt(3)) {
            case 0 -> FrameParser.Limits.DEFAULT;
            case 1 -> new FrameParser.Limits(16_384, 200, 3);
            default -> new FrameParser.Limits(20_000, 1 << 20, 1000);
        };
        HpackLimits hpack = random.nextBoolean() ? HpackLimits.DEFAULT : new HpackLimits(150, 4, 100);
        FrameParser parser = new FrameParser(
                server ? FrameParser.Side.SERVER : FrameParser.Side.CLIENT,
                recorder,
                new HpackDecoder(HpackDecoder.DEFAULT_MAX_TABLE_SIZE, hpack),
                limits);
        if (server) {
            parser.expectPreface();
        }
        ByteBuffer buffer = random.nextBoolean()
                ? ByteBuffer.allocate(limits.maxFrameSize() + 9)
                : ByteBuffer.allocateDirect(limits.maxFrameSize() + 9);
        int fed = 0;
        int connectionErrors = 0;
        try {
            while (fed < input.length && !parser.isClosed()) {
                int chunk = Math.min(Math.min(input.length - fed, 1 + random.nextInt(300)), buffer.remaining());
                buffer.put(input, fed, chunk);
                fed += chunk;
                buffer.flip();
                int calls = 0;
                while (true) {
                    int before = buffer.position();
                    int eventsBefore = recorder.events().size();
                    if (!parser.parseFrame(buffer)) {
                        break;
                    }
                    if (++calls > input.length + 2) {
                        fail("no progress at iteration " + iteration);
                    }
                    if (buffer.position() == before && recorder.events().size() == eventsBefore) {
                        fail("a call returned true without consuming or reporting, iteration " + iteration);
                    }
                }
                buffer.compact();
                if (buffer.remaining() == 0 && !parser.isClosed()) {
                    fail("the buffer is full of a frame the parser neither parsed nor refused, iteration " + iteration);
                }
            }
        } catch (RuntimeException | Error x) {
            throw new AssertionError("iteration " + iteration + ": parser threw " + x, x);
        }
        long frames = 0;
        long streamErrors = 0;
        boolean closed = false;
        for (FrameEvent event : recorder.events()) {
            if (closed) {
                fail("an event after a connection error, iteration " + iteration + ": " + event);
            }
            switch (event) {
                case FrameEvent.ConnectionError e -> {
                    connectionErrors++;
                    closed = true;
                    assertEquals(0, e.error().streamId());
                }
                case FrameEvent.StreamError e -> {
                    streamErrors++;
                    assertTrue(e.error().streamId() > 0);
                }
                case FrameEvent.Headers headers -> {
                    frames++;
                    checkMessageRules(headers);
                }
                default -> frames++;
            }
        }
        assertEquals(closed, parser.isClosed());
        return new Result(frames, connectionErrors, streamErrors);
    }

    private static void checkMessageRules(FrameEvent.Headers headers) {
        try {
            Http2Messages.request(headers.streamId(), headers.block());
        } catch (Http2Exception expected) {
            assertEquals(headers.streamId(), expected.streamId());
        }
        try {
            Http2Messages.trailers(headers.streamId(), headers.block());
        } catch (Http2Exception expected) {
            assertEquals(headers.streamId(), expected.streamId());
        }
    }

    /** A plausible sequence: preface (server side), SETTINGS, then a mix of valid frames. */
    private static byte[] validSequence(Random random, boolean server) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        HpackEncoder encoder = new HpackEncoder();
        FrameGenerator generator = new FrameGenerator(encoder);
        ByteBuffer scratch = ByteBuffer.allocate(1 << 17);
        if (server) {
            FrameGenerator.preface(scratch);
        }
        generator.settings(scratch, new Http2Settings().set(Http2Settings.MAX_CONCURRENT_STREAMS, 100));
        int count = 1 + random.nextInt(8);
        int stream = 1;
        for (int i = 0; i < count; i++) {
            switch (random.nextInt(12)) {
                case 0, 1 -> {
                    if (server) {
                        generator.requestHeaders(
                                scratch,
                                stream,
                                "GET",
                                "https",
                                "example.com",
                                "/p/" + random.nextInt(100),
                                randomFields(random),
                                random.nextBoolean());
                    } else {
                        generator.responseHeaders(scratch, stream, 200, randomFields(random), random.nextBoolean());
                    }
                    stream += 2;
                }
                case 2 -> splitBlock(random, encoder, scratch, stream, server);
                case 3 -> {
                    byte[] data = new byte[random.nextInt(600)];
                    random.nextBytes(data);
                    if (random.nextBoolean()) {
                        int pad = random.nextInt(20);
                        byte[] payload = new byte[1 + data.length + pad];
                        payload[0] = (byte) pad;
                        System.arraycopy(data, 0, payload, 1, data.length);
                        FrameGenerator.frame(scratch, Frames.DATA, Frames.PADDED, stream, ByteBuffer.wrap(payload));
                    } else {
                        generator.data(scratch, stream, ByteBuffer.wrap(data), random.nextBoolean());
                    }
                }
                case 4 -> generator.ping(scratch, random.nextLong(), random.nextBoolean());
                case 5 -> generator.windowUpdate(scratch, random.nextInt(4), 1 + random.nextInt(1 << 20));
                case 6 -> generator.rstStream(scratch, 1 + random.nextInt(9), ErrorCode.of(random.nextInt(15)));
                case 7 ->
                    generator.priority(
                            scratch,
                            1 + 2 * random.nextInt(5),
                            random.nextInt(3),
                            random.nextBoolean(),
                            1 + random.nextInt(256));
                case 8 -> generator.settingsAck(scratch);
                case 9 ->
                    FrameGenerator.frame(
                            scratch,
                            0x10 + random.nextInt(200),
                            random.nextInt(256),
                            random.nextInt(5),
                            ByteBuffer.allocate(random.nextInt(30)));
                case 10 -> generator.trailers(scratch, stream, randomFields(random));
                default -> generator.goAway(scratch, random.nextInt(10), ErrorCode.NO_ERROR, "fuzz");
            }
        }
        out.write(scratch.array(), 0, scratch.position());
        return out.toByteArray();
    }

    private static HttpFields randomFields(Random random) {
        HttpFields fields = new HttpFields();
        int n = random.nextInt(6);
        for (int i = 0; i < n; i++) {
            fields.add("x-f" + random.nextInt(5), "v" + Long.toString(random.nextLong(), 36));
        }
        if (random.nextInt(4) == 0) {
            fields.add("cookie", "c".repeat(random.nextInt(300)));
        }
        return fields;
    }

    /** A raw header block, possibly with odd fields, cut into HEADERS and CONTINUATION frames. */
    private static void splitBlock(Random random, HpackEncoder encoder, ByteBuffer out, int stream, boolean server) {
        List<HeaderField> fields = new ArrayList<>();
        if (server) {
            fields.add(new HeaderField(":method", random.nextBoolean() ? "GET" : "POST"));
            fields.add(new HeaderField(":scheme", "https"));
            fields.add(new HeaderField(":path", "/" + random.nextInt(1000)));
        } else {
            fields.add(new HeaderField(":status", "200"));
        }
        String[] odd = {"X-Upper", "connection", "te", "", ":late", "x-ok", "content-length", "host"};
        int n = random.nextInt(5);
        for (int i = 0; i < n; i++) {
            fields.add(new HeaderField(odd[random.nextInt(odd.length)], random.nextBoolean() ? "1" : " v\r"));
        }
        HpackOutput block = new HpackOutput();
        encoder.encode(fields, block);
        byte[] bytes = block.toByteArray();
        int at = 0;
        boolean first = true;
        do {
            int length = Math.min(bytes.length - at, 1 + random.nextInt(Math.max(1, bytes.length)));
            boolean last = at + length == bytes.length;
            int flags = (last ? Frames.END_HEADERS : 0) | (first ? Frames.END_STREAM : 0);
            FrameGenerator.frame(
                    out,
                    first ? Frames.HEADERS : Frames.CONTINUATION,
                    flags,
                    stream,
                    ByteBuffer.wrap(bytes, at, length));
            at += length;
            first = false;
        } while (at < bytes.length);
    }

    private static final byte[] INTERESTING = {0, 1, 4, 5, 8, 9, 0x20, 0x3F, 0x40, 0x7F, (byte) 0x80, (byte) 0xFF};

    private static byte[] mutate(Random random, byte[] valid) {
        byte[] bytes = valid.clone();
        int mutations = random.nextInt(4);
        for (int m = 0; m < mutations && bytes.length > 0; m++) {
            int at = random.nextInt(bytes.length);
            switch (random.nextInt(5)) {
                case 0 -> bytes[at] = (byte) random.nextInt(256);
                case 1 -> bytes[at] = INTERESTING[random.nextInt(INTERESTING.length)];
                case 2 -> bytes[at] ^= (byte) (1 << random.nextInt(8));
                case 3 -> bytes = java.util.Arrays.copyOf(bytes, at);
                default -> {
                    byte[] longer = new byte[bytes.length + 1 + random.nextInt(8)];
                    System.arraycopy(bytes, 0, longer, 0, at);
                    for (int k = at; k < at + longer.length - bytes.length; k++) {
                        longer[k] = (byte) random.nextInt(256);
                    }
                    System.arraycopy(bytes, at, longer, at + longer.length - bytes.length, bytes.length - at);
                    bytes = longer;
                }
            }
        }
        return bytes;
    }
}
