package dev.quarry.http.hpack;

import java.util.Arrays;

/**
 * Decodes Huffman-coded string literals (RFC 7541 5.2) with a multi-level lookup table that resolves a symbol per
 * lookup of 8 input bits.
 *
 * <p>The table is a tree of 256-entry sub-tables built once from {@link Huffman}: the root is indexed by the next 8
 * bits; an entry is either a symbol with the number of those bits its code uses, or a link to the sub-table for the
 * next 8 bits. Codes of up to 8 bits, which cover the characters of almost every header, take one lookup; only the
 * prefixes {@code 0xFE} and {@code 0xFF} lead to sub-tables, and the longest (30-bit) codes take four. The root and its
 * 14 sub-tables take 15 KiB.
 *
 * <p>Stateless and thread-safe: the caller owns the input and output arrays. Decoding allocates nothing and costs O(n)
 * in the input length.
 */
final class HuffmanDecoder {

    /** Entry layout: low 8 bits are the bits used at this level (1 to 8), or 0 for a link; the rest is the payload. */
    private static final int LINK = 0;

    private static final int[] TABLE = build();

    private HuffmanDecoder() {}

    /**
     * The most octets {@code encodedLength} Huffman octets can decode to: the shortest code is 5 bits, so each 5 bits
     * of input make at most one octet.
     */
    static int maxDecodedLength(int encodedLength) {
        return (int) (((long) encodedLength * 8) / 5);
    }

    /**
     * Decodes {@code length} octets of {@code src} from {@code offset} into {@code dst} from index 0.
     *
     * @param dst must hold at least {@link #maxDecodedLength(int) maxDecodedLength(length)} octets
     * @return the number of octets decoded
     * @throws HpackCompressionException if the input contains EOS, ends in padding longer than 7 bits or padding that
     *     is not a prefix of EOS (all ones)
     */
    static int decode(byte[] src, int offset, int length, byte[] dst) throws HpackCompressionException {
        int[] table = TABLE;
        // The unconsumed input bits are the low `count` bits of `bits` (count < 16 once the inner loop ends).
        int bits = 0;
        int count = 0;
        int level = 0; // offset of the sub-table to index next; 0 is the root
        int out = 0;
        for (int i = offset, end = offset + length; i < end; i++) {
            bits = (bits << 8) | (src[i] & 0xFF);
            count += 8;
            do {
                int entry = table[level + ((bits >>> (count - 8)) & 0xFF)];
                int used = entry & 0xFF;
                if (used == LINK) {
                    level = entry >>> 8;
                    count -= 8;
                } else {
                    int symbol = entry >>> 8;
                    if (symbol == Huffman.EOS) {
                        throw new HpackCompressionException("Huffman-coded string contains the EOS symbol at octet "
                                + (i - offset) + " of " + length);
                    }
                    dst[out++] = (byte) symbol;
                    count -= used;
                    level = 0;
                }
            } while (count >= 8);
        }
        // Fewer than 8 bits remain; they may still complete one code (a code of the current sub-table, or a short one
        // at the root), then leave at most 7 bits of padding. Fill the lookup with ones, the padding pattern, so that
        // a code that fits in the remaining bits is found and a partial one is not.
        while (count > 0) {
            int fill = 8 - count;
            int entry = table[level + (((bits << fill) | ((1 << fill) - 1)) & 0xFF)];
            int used = entry & 0xFF;
            if (used == LINK || used > count) {
                break;
            }
            int symbol = entry >>> 8;
            if (symbol == Huffman.EOS) {
                throw new HpackCompressionException("Huffman-coded string contains the EOS symbol at its end");
            }
            dst[out++] = (byte) symbol;
            count -= used;
            level = 0;
        }
        if (level != 0) {
            // 8 or more bits since the last symbol without completing a code: either padding longer than 7 bits or
            // a truncated symbol; both are decoding errors (RFC 7541 5.2).
            throw new HpackCompressionException("Huffman-coded string of " + length
                    + " octets ends inside a code: padding longer than 7 bits or a truncated symbol");
        }
        if (count > 0) {
            int mask = (1 << count) - 1;
            if ((bits & mask) != mask) {
                throw new HpackCompressionException("Huffman-coded string of " + length + " octets ends with "
                        + count + " padding bits 0b" + pad(Integer.toBinaryString(bits & mask), count)
                        + " that are not the EOS prefix (all ones)");
            }
        }
        return out;
    }

    private static String pad(String binary, int width) {
        return "0".repeat(Math.max(0, width - binary.length())) + binary;
    }

    private static int[] build() {
        int[] table = new int[16 * 256];
        Arrays.fill(table, -1);
        int next = 256; // offset of the next free sub-table; the root is at 0
        for (int symbol = 0; symbol <= Huffman.EOS; symbol++) {
            int code = Huffman.CODES[symbol];
            int length = Huffman.LENGTHS[symbol];
            int level = 0;
            int depth = 0; // bits of the code resolved by the levels above
            while (length - depth > 8) {
                int index = level + ((code >>> (length - depth - 8)) & 0xFF);
                int entry = table[index];
                if (entry == -1) {
                    if (next == table.length) {
                        table = Arrays.copyOf(table, table.length * 2);
                        Arrays.fill(table, next, table.length, -1);
                    }
                    entry = next << 8;
                    table[index] = entry;
                    next += 256;
                } else if ((entry & 0xFF) != LINK) {
                    throw new IllegalStateException("Huffman code of symbol " + symbol + " is not prefix-free");
                }
                level = entry >>> 8;
                depth += 8;
            }
            int rest = length - depth; // 1 to 8 bits, left-aligned in the 8-bit index below
            int first = (code & ((1 << rest) - 1)) << (8 - rest);
            for (int fill = 0; fill < 1 << (8 - rest); fill++) {
                if (table[level + first + fill] != -1) {
                    throw new IllegalStateException("Huffman code of symbol " + symbol + " is not prefix-free");
                }
                table[level + first + fill] = (symbol << 8) | rest;
            }
        }
        for (int i = 0; i < next; i++) {
            if (table[i] == -1) {
                throw new IllegalStateException("Huffman code is not complete: no symbol for table entry " + i);
            }
        }
        return Arrays.copyOf(table, next);
    }
}
