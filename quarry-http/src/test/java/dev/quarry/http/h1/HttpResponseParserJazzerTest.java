package dev.quarry.http.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.quarry.http.HttpCompliance;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * Coverage-guided fuzz target for the response parser (Jazzer), replayed from
 * {@code src/test/resources/dev/quarry/http/h1/HttpResponseParserJazzerTestInputs/} by {@code mvn verify}.
 *
 * <p>Input layout: byte 0 holds flags (bit 0: every leniency allowed, bit 1: direct buffers, bit 2: EOF after the last
 * byte, bit 3: the responses answer HEAD), byte 1 the split stride (0: byte by byte), the rest is the bytes on the wire.
 */
class HttpResponseParserJazzerTest {
    private static final HttpParserConfig LENIENT = HttpParserConfig.builder()
            .compliance(HttpCompliance.STRICT.with(HttpCompliance.Violation.values()))
            .maxHeaderSize(512)
            .maxRequestLineLength(128)
            .maxChunkExtensionLength(32)
            .build();

    /**
     * Any bytes: the parser reports events or one bad message, never throws, always progresses, and reports the same
     * events whole from a heap buffer as split at any stride, heap or direct.
     */
    @FuzzTest
    void responsesParseTheSameWholeAndSplit(byte[] input) {
        if (input.length < 2) {
            return;
        }
        int flags = input[0];
        HttpParserConfig config = (flags & 1) != 0 ? LENIENT : HttpParserConfig.DEFAULT;
        boolean direct = (flags & 2) != 0;
        boolean eof = (flags & 4) != 0;
        boolean head = (flags & 8) != 0;
        byte[] message = Arrays.copyOfRange(input, 2, input.length);
        List<String> whole = feed(message, config, List.of(), false, head, eof);
        List<Integer> splits = HttpParserJazzerTest.splits(message.length, input[1] & 0xFF);
        List<String> split = feed(message, config, splits, direct, head, eof);
        assertEquals(
                whole,
                split,
                () -> "split at stride " + (input[1] & 0xFF) + ": " + HttpParserJazzerTest.quote(message));
    }

    private static List<String> feed(
            byte[] bytes, HttpParserConfig config, List<Integer> splits, boolean direct, boolean head, boolean eof) {
        HttpResponseParserTest.Events events = new HttpResponseParserTest.Events();
        HttpResponseParser parser = new HttpResponseParser(events, config);
        parser.responseToHead(head);
        int from = 0;
        for (int i = 0; i <= splits.size(); i++) {
            int cut = i < splits.size() ? splits.get(i) : bytes.length;
            ByteBuffer piece = direct ? ByteBuffer.allocateDirect(cut - from) : ByteBuffer.allocate(cut - from);
            piece.put(bytes, from, cut - from).flip();
            drive(parser, piece, head);
            from = cut;
        }
        if (eof) {
            parser.atEOF();
            drive(parser, ByteBuffer.allocate(0), head);
        }
        if (events.failure != null) {
            events.log.add("failure " + events.failure);
        }
        if (events.content.length() > 0) {
            events.log.add("partial content " + events.content);
        }
        return events.log;
    }

    private static void drive(HttpResponseParser parser, ByteBuffer buffer, boolean head) {
        for (int guard = 0; guard <= buffer.capacity() + 16; guard++) {
            int before = buffer.position();
            HttpResponseParser.State stateBefore = parser.state();
            boolean stopped = parser.parse(buffer);
            if (parser.isComplete()) {
                parser.reset();
                parser.responseToHead(head);
                continue;
            }
            if (!stopped || parser.isClosed()) {
                return;
            }
            if (buffer.position() == before && parser.state() == stateBefore) {
                throw new AssertionError("parser stopped without progress: " + parser);
            }
        }
        throw new AssertionError("parser makes no progress: " + parser);
    }
}
