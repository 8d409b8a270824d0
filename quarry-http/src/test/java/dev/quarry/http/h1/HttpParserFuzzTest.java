package dev.quarry.http.h1;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quarry.http.HttpCompliance;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Feeds mutated valid messages (a fixed seed), split at random points, and asserts the parser either parses them or reports a
 * {@link dev.quarry.http.BadMessageException} with an error status: never another exception, never a loop without
 * progress, never content beyond what the message holds.
 */
class HttpParserFuzzTest {
    private static final byte[] INTERESTING = {
        '\r',
        '\n',
        ' ',
        '\t',
        0,
        ':',
        ';',
        '"',
        '\\',
        ',',
        '0',
        '9',
        'f',
        'F',
        'x',
        '-',
        '+',
        '/',
        '.',
        '%',
        '*',
        '?',
        (byte) 0x7F,
        (byte) 0x80,
        (byte) 0xFF,
        'H',
        'T',
        'P',
        '1'
    };
    private static final Set<Integer> STATUSES = Set.of(400, 413, 414, 431, 501, 505);

    // A fixed seed and a fixed number of cases, so that every run checks the same inputs; the time cap only protects a
    // badly overloaded machine and does not fail the test.
    @Test
    void mutatedMessagesParseOrFailCleanly() {
        run(0x5EED_C0DEL, 5_000, 20_000_000_000L);
    }

    @Tag("stress")
    @Test
    void mutatedMessagesParseOrFailCleanlyLonger() {
        run(42L, 2_000_000, 300_000_000_000L);
    }

    private static void run(long seed, int maxIterations, long capNanos) {
        Random random = new Random(seed);
        List<byte[]> corpus = new ArrayList<>();
        for (Messages.Message message : Messages.VALID) {
            corpus.add(Feeder.bytes(message.text()));
        }
        HttpParserConfig[] configs = {
            HttpParserConfig.DEFAULT,
            HttpParserConfig.builder()
                    .compliance(HttpCompliance.STRICT.with(HttpCompliance.Violation.values()))
                    .maxHeaderSize(512)
                    .maxRequestLineLength(128)
                    .maxChunkExtensionLength(32)
                    .build()
        };
        long deadline = System.nanoTime() + capNanos;
        int iterations = 0;
        int accepted = 0;
        int rejected = 0;
        while (iterations < maxIterations && System.nanoTime() < deadline) {
            byte[] original = corpus.get(random.nextInt(corpus.size()));
            byte[] mutated = mutate(original, random);
            HttpParserConfig config = configs[random.nextInt(configs.length)];
            List<Integer> splits = randomSplits(mutated.length, random);
            Recorder r = new Recorder();
            HttpParser parser = new HttpParser(r, config);
            try {
                Feeder.feed(parser, mutated, splits, random.nextBoolean(), random.nextBoolean());
            } catch (RuntimeException | AssertionError x) {
                fail("unexpected " + x + " for " + quote(mutated) + " split at " + splits, x);
            }
            if (r.failure != null) {
                rejected++;
                if (!STATUSES.contains(r.failure.status())) {
                    fail("unexpected status " + r.failure.status() + " for " + quote(mutated));
                }
            } else {
                accepted++;
            }
            long contentBytes = r.events.stream()
                    .filter(e -> e.startsWith("content "))
                    .mapToLong(e -> e.length() - 8)
                    .sum();
            assertTrue(contentBytes <= mutated.length, "content cannot exceed the input");
            iterations++;
        }
        assertTrue(accepted > 0 && rejected > 0, "accepted=" + accepted + " rejected=" + rejected);
    }

    private static byte[] mutate(byte[] original, Random random) {
        byte[] bytes = original.clone();
        int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations && bytes.length > 0; m++) {
            int at = random.nextInt(bytes.length);
            byte value =
                    random.nextBoolean() ? INTERESTING[random.nextInt(INTERESTING.length)] : (byte) random.nextInt(256);
            switch (random.nextInt(6)) {
                case 0 -> bytes[at] = value;
                case 1 -> bytes = insert(bytes, at, new byte[] {value});
                case 2 -> bytes = remove(bytes, at, 1 + random.nextInt(Math.min(4, bytes.length - at)));
                case 3 -> {
                    int length = 1 + random.nextInt(Math.min(32, bytes.length - at));
                    bytes = insert(bytes, random.nextInt(bytes.length), Arrays.copyOfRange(bytes, at, at + length));
                }
                case 4 -> bytes = Arrays.copyOf(bytes, at);
                default -> bytes = insert(bytes, at, "\r\n".getBytes());
            }
        }
        return bytes;
    }

    private static byte[] insert(byte[] bytes, int at, byte[] inserted) {
        byte[] result = new byte[bytes.length + inserted.length];
        System.arraycopy(bytes, 0, result, 0, at);
        System.arraycopy(inserted, 0, result, at, inserted.length);
        System.arraycopy(bytes, at, result, at + inserted.length, bytes.length - at);
        return result;
    }

    private static byte[] remove(byte[] bytes, int at, int length) {
        byte[] result = new byte[bytes.length - length];
        System.arraycopy(bytes, 0, result, 0, at);
        System.arraycopy(bytes, at + length, result, at, bytes.length - at - length);
        return result;
    }

    private static List<Integer> randomSplits(int length, Random random) {
        List<Integer> splits = new ArrayList<>();
        int at = 0;
        while (length > 1 && random.nextInt(3) > 0) {
            at += 1 + random.nextInt(Math.max(1, length / 3));
            if (at >= length) {
                break;
            }
            splits.add(at);
        }
        return splits;
    }

    private static String quote(byte[] bytes) {
        return dev.quarry.http.internal.HttpChars.quote(bytes, 0, bytes.length) + " (" + bytes.length + " bytes) "
                + ByteBuffer.wrap(bytes);
    }
}
