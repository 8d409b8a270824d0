package dev.quarry.http.hpack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Coverage-guided fuzz target for the HPACK decoder (Jazzer), replayed from
 * {@code src/test/resources/dev/quarry/http/hpack/HpackDecoderJazzerTestInputs/} by {@code mvn verify}.
 *
 * <p>Input layout: byte 0 holds flags (bits 0-1: one to four header blocks, bits 2-3: our table size setting applied
 * before the second block: unchanged, 0, 256 or 8192; bit 4: small limits), the rest is the blocks, cut in equal parts.
 */
class HpackDecoderJazzerTest {
    private static final int[] TABLE_SIZES = {HpackDecoder.DEFAULT_MAX_TABLE_SIZE, 0, 256, 8192};

    /**
     * Any sequence of blocks: the decoder decodes each or throws {@link HpackCompressionException} (then is unusable)
     * or {@link HeaderListTooLargeException} (then goes on); heap and direct buffers decode alike; its dynamic table
     * never exceeds its maximum size, and after a block that was not empty that size is within our setting; and every
     * header list it decodes, re-encoded by {@link HpackEncoder}, decodes back the same.
     */
    @FuzzTest
    void blocksDecodeAlikeAndRoundTrip(byte[] input) {
        if (input.length < 1) {
            return;
        }
        int flags = input[0];
        int count = 1 + (flags & 3);
        int tableSize = TABLE_SIZES[(flags >> 2) & 3];
        HpackLimits limits = (flags & 16) != 0 ? new HpackLimits(150, 4, 100) : HpackLimits.DEFAULT;
        List<byte[]> blocks = new ArrayList<>();
        int length = input.length - 1;
        for (int i = 0, from = 1; i < count; i++) {
            int to = i == count - 1 ? input.length : from + length / count;
            byte[] block = new byte[to - from];
            System.arraycopy(input, from, block, 0, block.length);
            blocks.add(block);
            from = to;
        }
        List<String> heap = decode(blocks, tableSize, limits, false);
        List<String> direct = decode(blocks, tableSize, limits, true);
        assertEquals(
                heap,
                direct,
                () -> "heap and direct differ for " + HexFormat.of().formatHex(input));
    }

    private static List<String> decode(List<byte[]> blocks, int tableSize, HpackLimits limits, boolean direct) {
        HpackDecoder decoder = new HpackDecoder(HpackDecoder.DEFAULT_MAX_TABLE_SIZE, limits);
        List<String> results = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            if (i == 1) {
                decoder.setMaxTableSize(tableSize);
            }
            byte[] bytes = blocks.get(i);
            ByteBuffer block = direct ? ByteBuffer.allocateDirect(bytes.length) : ByteBuffer.allocate(bytes.length);
            block.put(bytes).flip();
            CollectingSink sink = new CollectingSink();
            try {
                decoder.decode(block, sink);
                assertEquals(0, block.remaining(), "a decoded block is consumed");
                roundTrip(sink.fields);
                results.add("fields " + sink.fields);
            } catch (HeaderListTooLargeException x) {
                results.add("too large " + x.getMessage());
            } catch (HpackCompressionException x) {
                results.add("compression error " + x.getMessage());
                return results;
            } catch (HpackException x) {
                throw new AssertionError("an HpackException that is neither of the documented two: " + x, x);
            }
            assertTrue(decoder.tableSize() <= decoder.tableMaxSize(), decoder::toString);
            // After a lowered setting, the first block that holds anything must begin with a size update within it
            // (RFC 7541 4.2); an empty block holds no update, and the requirement passes on to the next block.
            if (bytes.length > 0) {
                assertTrue(decoder.tableMaxSize() <= decoder.maxTableSize(), decoder::toString);
            }
        }
        return results;
    }

    private static void roundTrip(List<HeaderField> fields) throws HpackException {
        HpackEncoder encoder = new HpackEncoder();
        HpackOutput out = new HpackOutput();
        encoder.encode(fields, out);
        HpackDecoder decoder = new HpackDecoder(
                HpackDecoder.DEFAULT_MAX_TABLE_SIZE, HpackLimits.DEFAULT.withMaxHeaderListSize(1 << 20));
        CollectingSink sink = new CollectingSink();
        decoder.decode(out.asByteBuffer(), sink);
        assertEquals(
                fields.stream().map(f -> f.name() + ": " + f.value()).toList(),
                sink.fields.stream().map(f -> f.name() + ": " + f.value()).toList(),
                "re-encoded fields decode back the same");
    }
}
