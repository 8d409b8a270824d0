package dev.quarry.http.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.quarry.http.HttpCompliance;
import dev.quarry.http.internal.HttpChars;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Coverage-guided fuzz targets for the request parser (Jazzer). {@code mvn verify} replays the corpus in
 * {@code src/test/resources/dev/quarry/http/h1/HttpParserJazzerTestInputs/<method>}; {@code scripts/fuzz.sh} fuzzes.
 *
 * <p>Input layout of {@link #requestsParseTheSameWholeAndSplit}: byte 0 holds flags (bit 0: every leniency allowed and
 * small limits, bit 1: direct buffers, bit 2: EOF after the last byte), byte 1 the split stride (0: byte by byte), the
 * rest is the bytes on the wire. Layout of {@link #chunkedContentMatchesAStrictDecoder}: byte 0 is the split stride, the
 * rest is what follows the header section of a chunked POST.
 */
class HttpParserJazzerTest {
    private static final Set<Integer> STATUSES = Set.of(400, 413, 414, 431, 501, 505);
    private static final HttpParserConfig LENIENT = HttpParserConfig.builder()
            .compliance(HttpCompliance.STRICT.with(HttpCompliance.Violation.values()))
            .maxHeaderSize(512)
            .maxRequestLineLength(128)
            .maxChunkExtensionLength(32)
            .build();
    private static final byte[] CHUNKED_HEAD =
            Feeder.bytes("POST /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n");

    /**
     * Any bytes: the parser reports events or one bad message with an error status, never throws, always progresses,
     * and reports the same events (content merged) whole from a heap buffer as split at any stride, heap or direct.
     */
    @FuzzTest
    void requestsParseTheSameWholeAndSplit(byte[] input) {
        if (input.length < 2) {
            return;
        }
        int flags = input[0];
        HttpParserConfig config = (flags & 1) != 0 ? LENIENT : HttpParserConfig.DEFAULT;
        boolean direct = (flags & 2) != 0;
        boolean eof = (flags & 4) != 0;
        byte[] message = Arrays.copyOfRange(input, 2, input.length);
        Recorder whole = Feeder.parse(message, config, List.of(), false, eof);
        Recorder split = Feeder.parse(message, config, splits(message.length, input[1] & 0xFF), direct, eof);
        checkFailure(whole, message);
        assertEquals(whole.events, split.events, () -> "split at stride " + (input[1] & 0xFF) + ": " + quote(message));
        long content = whole.events.stream()
                .filter(e -> e.startsWith("content "))
                .mapToLong(e -> e.length() - "content ".length())
                .sum();
        assertTrue(content <= message.length, "content cannot exceed the input");
    }

    /**
     * The smuggling check ("funky chunks"): what follows the header section of a chunked request is read by the parser
     * and by {@link StrictChunkedDecoder}, a reference written from RFC 9112 §7.1 alone. When the parser completes the
     * message, the reference accepts the same content and ends it at the same byte; when the reference accepts, the
     * parser completes it too, unless a documented limit (413, 431) stopped it. Both may reject or wait for more.
     */
    @FuzzTest
    void chunkedContentMatchesAStrictDecoder(byte[] input) {
        if (input.length < 1) {
            return;
        }
        byte[] body = Arrays.copyOfRange(input, 1, input.length);
        byte[] message = new byte[CHUNKED_HEAD.length + body.length];
        System.arraycopy(CHUNKED_HEAD, 0, message, 0, CHUNKED_HEAD.length);
        System.arraycopy(body, 0, message, CHUNKED_HEAD.length, body.length);

        Recorder recorder = new Recorder();
        HttpParser parser = new HttpParser(recorder, HttpParserConfig.DEFAULT);
        ByteBuffer buffer = ByteBuffer.wrap(message);
        for (int guard = 0; guard <= message.length && parser.parse(buffer) && !parser.isComplete(); guard++) {
            if (parser.isClosed()) {
                break;
            }
        }
        checkFailure(recorder, message);
        StrictChunkedDecoder.Result reference = StrictChunkedDecoder.decode(body, HttpParserConfig.DEFAULT);
        if (parser.isComplete()) {
            if (!(reference instanceof StrictChunkedDecoder.Accepted accepted)) {
                fail("the parser accepted a chunked body that a strict decoder finds " + reference + ": "
                        + quote(body));
                return;
            }
            assertEquals(accepted.length(), buffer.position() - CHUNKED_HEAD.length, () -> "end of " + quote(body));
            assertEquals(accepted.content(), content(recorder), () -> "content of " + quote(body));
        } else if (reference instanceof StrictChunkedDecoder.Accepted) {
            boolean limited =
                    recorder.failure != null && (recorder.failure.status() == 413 || recorder.failure.status() == 431);
            assertTrue(
                    limited,
                    () -> "the parser did not accept a valid chunked body: " + recorder.events + " " + quote(body));
        }

        Recorder split =
                Feeder.parse(message, HttpParserConfig.DEFAULT, splits(message.length, input[0] & 0xFF), true, false);
        Recorder whole = Feeder.parse(message, HttpParserConfig.DEFAULT, List.of(), false, false);
        assertEquals(whole.events, split.events, () -> "split at stride " + (input[0] & 0xFF) + ": " + quote(body));
    }

    private static void checkFailure(Recorder recorder, byte[] message) {
        if (recorder.failure != null && !STATUSES.contains(recorder.failure.status())) {
            fail("unexpected status " + recorder.failure.status() + " for " + quote(message), recorder.failure);
        }
    }

    private static String content(Recorder recorder) {
        StringBuilder content = new StringBuilder();
        for (String event : recorder.events) {
            if (event.startsWith("content ")) {
                content.append(event, "content ".length(), event.length());
            }
        }
        return content.toString();
    }

    /** Cut points every {@code stride} bytes; 0 means every byte. */
    static List<Integer> splits(int length, int stride) {
        int step = Math.max(1, stride);
        List<Integer> splits = new ArrayList<>();
        for (int at = step; at < length; at += step) {
            splits.add(at);
        }
        return splits;
    }

    static String quote(byte[] bytes) {
        return HttpChars.quote(bytes, 0, bytes.length) + " (" + bytes.length + " bytes)";
    }

    static String latin1(byte[] bytes, int from, int to) {
        return new String(bytes, from, to - from, StandardCharsets.ISO_8859_1);
    }
}
