package dev.quarry.http.hpack;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Property: for any sequence of header lists and table size changes, the decoder reproduces every list (with the
 * never-indexed flag of sensitive fields) and ends every block with the encoder's table. Fixed seeds keep it
 * reproducible.
 */
class RandomRoundTripTest {

    private static final String[] NAMES = {
        ":authority",
        ":method",
        ":path",
        ":scheme",
        ":status",
        "accept",
        "accept-encoding",
        "cookie",
        "set-cookie",
        "authorization",
        "content-type",
        "content-length",
        "date",
        "server",
        "user-agent",
        "x-custom",
        "x-trace-id"
    };
    private static final String[] VALUES = {"", "GET", "200", "/", "gzip, deflate", "text/plain", "quarry", "0"};

    @Test
    void randomHeaderListsAndTableSizeChangesRoundTrip() throws HpackException {
        for (long seed = 1; seed <= 20; seed++) {
            run(new Random(seed), seed);
        }
    }

    private static void run(Random random, long seed) throws HpackException {
        boolean huffman = random.nextBoolean();
        HpackEncoder encoder = new HpackEncoder(1 + random.nextInt(8192), huffman, HpackEncoder.DEFAULT_POLICY);
        HpackDecoder decoder = new HpackDecoder(4096, HpackLimits.DEFAULT.withMaxHeaderListSize(1 << 20));
        HpackOutput out = new HpackOutput(16);
        for (int block = 0; block < 300; block++) {
            if (random.nextInt(10) == 0) {
                // Between blocks the peer's setting may change several times, down and up.
                for (int changes = 1 + random.nextInt(3); changes > 0; changes--) {
                    int size = random.nextInt(4) == 0 ? 0 : random.nextInt(8192);
                    decoder.setMaxTableSize(size);
                    encoder.setMaxTableSize(size);
                }
            }
            List<HeaderField> fields = new ArrayList<>();
            for (int n = random.nextInt(20); n > 0; n--) {
                fields.add(randomField(random));
            }
            out.clear();
            encoder.encode(fields, out);
            CollectingSink sink = new CollectingSink();
            decoder.decode(out.asByteBuffer(), sink);
            String where = "seed " + seed + " block " + block;
            assertEquals(fields.size(), sink.fields.size(), where);
            for (int i = 0; i < fields.size(); i++) {
                HeaderField sent = fields.get(i);
                HeaderField received = sink.fields.get(i);
                assertEquals(sent.name(), received.name(), where);
                assertEquals(sent.value(), received.value(), where);
                if (sent.sensitive()) {
                    assertEquals(true, received.sensitive(), where + ": sensitive field arrives never-indexed");
                }
            }
            assertArrayEquals(encoder.tableEntries(), decoder.tableEntries(), where);
            assertEquals(encoder.tableMaxSize(), decoder.tableMaxSize(), where);
        }
    }

    private static HeaderField randomField(Random random) {
        String name = random.nextInt(4) == 0 ? randomString(random, 1 + random.nextInt(12), true) : pick(random, NAMES);
        String value = random.nextInt(3) == 0 ? pick(random, VALUES) : randomString(random, random.nextInt(60), false);
        return new HeaderField(name, value, random.nextInt(20) == 0);
    }

    private static String pick(Random random, String[] choices) {
        return choices[random.nextInt(choices.length)];
    }

    private static String randomString(Random random, int length, boolean token) {
        char[] chars = new char[length];
        for (int i = 0; i < length; i++) {
            if (token) {
                chars[i] = (char) ('a' + random.nextInt(26));
            } else {
                // Mostly printable ASCII, some arbitrary octets (HPACK strings are opaque octets).
                chars[i] = (char) (random.nextInt(8) == 0 ? random.nextInt(256) : 32 + random.nextInt(95));
            }
        }
        return new String(chars);
    }
}
