package dev.quarry.http.hpack;

/**
 * The canonical Huffman code of RFC 7541 Appendix B: code lengths and encoding.
 *
 * <p>Stateless and thread-safe. {@link #encodedLength} and {@link #encode} cost one table read per octet and allocate
 * nothing. Strings here are octet strings: every {@code char} must be at most {@code 0xFF} (the caller checks).
 *
 * @see HuffmanDecoder
 */
final class Huffman {

    /** Symbol 256, the end-of-string code (30 ones); it never appears inside a valid string (RFC 7541 5.2). */
    static final int EOS = 256;

    /**
     * RFC 7541 Appendix B, one {@code (code, length in bits)} pair per symbol 0 to 256, the code aligned to the least
     * significant bit as in the appendix's "code as hex" column. The code is canonical (codes of equal length are
     * consecutive and ordered by symbol); {@code HuffmanTest} checks that, and that the code is complete.
     */
    private static final int[] TABLE = {
        0x1ff8, 13, 0x7fffd8, 23, 0xfffffe2, 28, 0xfffffe3, 28, // 0
        0xfffffe4, 28, 0xfffffe5, 28, 0xfffffe6, 28, 0xfffffe7, 28, // 4
        0xfffffe8, 28, 0xffffea, 24, 0x3ffffffc, 30, 0xfffffe9, 28, // 8
        0xfffffea, 28, 0x3ffffffd, 30, 0xfffffeb, 28, 0xfffffec, 28, // 12
        0xfffffed, 28, 0xfffffee, 28, 0xfffffef, 28, 0xffffff0, 28, // 16
        0xffffff1, 28, 0xffffff2, 28, 0x3ffffffe, 30, 0xffffff3, 28, // 20
        0xffffff4, 28, 0xffffff5, 28, 0xffffff6, 28, 0xffffff7, 28, // 24
        0xffffff8, 28, 0xffffff9, 28, 0xffffffa, 28, 0xffffffb, 28, // 28
        0x14, 6, 0x3f8, 10, 0x3f9, 10, 0xffa, 12, // 32
        0x1ff9, 13, 0x15, 6, 0xf8, 8, 0x7fa, 11, // 36
        0x3fa, 10, 0x3fb, 10, 0xf9, 8, 0x7fb, 11, // 40
        0xfa, 8, 0x16, 6, 0x17, 6, 0x18, 6, // 44
        0x0, 5, 0x1, 5, 0x2, 5, 0x19, 6, // 48
        0x1a, 6, 0x1b, 6, 0x1c, 6, 0x1d, 6, // 52
        0x1e, 6, 0x1f, 6, 0x5c, 7, 0xfb, 8, // 56
        0x7ffc, 15, 0x20, 6, 0xffb, 12, 0x3fc, 10, // 60
        0x1ffa, 13, 0x21, 6, 0x5d, 7, 0x5e, 7, // 64
        0x5f, 7, 0x60, 7, 0x61, 7, 0x62, 7, // 68
        0x63, 7, 0x64, 7, 0x65, 7, 0x66, 7, // 72
        0x67, 7, 0x68, 7, 0x69, 7, 0x6a, 7, // 76
        0x6b, 7, 0x6c, 7, 0x6d, 7, 0x6e, 7, // 80
        0x6f, 7, 0x70, 7, 0x71, 7, 0x72, 7, // 84
        0xfc, 8, 0x73, 7, 0xfd, 8, 0x1ffb, 13, // 88
        0x7fff0, 19, 0x1ffc, 13, 0x3ffc, 14, 0x22, 6, // 92
        0x7ffd, 15, 0x3, 5, 0x23, 6, 0x4, 5, // 96
        0x24, 6, 0x5, 5, 0x25, 6, 0x26, 6, // 100
        0x27, 6, 0x6, 5, 0x74, 7, 0x75, 7, // 104
        0x28, 6, 0x29, 6, 0x2a, 6, 0x7, 5, // 108
        0x2b, 6, 0x76, 7, 0x2c, 6, 0x8, 5, // 112
        0x9, 5, 0x2d, 6, 0x77, 7, 0x78, 7, // 116
        0x79, 7, 0x7a, 7, 0x7b, 7, 0x7ffe, 15, // 120
        0x7fc, 11, 0x3ffd, 14, 0x1ffd, 13, 0xffffffc, 28, // 124
        0xfffe6, 20, 0x3fffd2, 22, 0xfffe7, 20, 0xfffe8, 20, // 128
        0x3fffd3, 22, 0x3fffd4, 22, 0x3fffd5, 22, 0x7fffd9, 23, // 132
        0x3fffd6, 22, 0x7fffda, 23, 0x7fffdb, 23, 0x7fffdc, 23, // 136
        0x7fffdd, 23, 0x7fffde, 23, 0xffffeb, 24, 0x7fffdf, 23, // 140
        0xffffec, 24, 0xffffed, 24, 0x3fffd7, 22, 0x7fffe0, 23, // 144
        0xffffee, 24, 0x7fffe1, 23, 0x7fffe2, 23, 0x7fffe3, 23, // 148
        0x7fffe4, 23, 0x1fffdc, 21, 0x3fffd8, 22, 0x7fffe5, 23, // 152
        0x3fffd9, 22, 0x7fffe6, 23, 0x7fffe7, 23, 0xffffef, 24, // 156
        0x3fffda, 22, 0x1fffdd, 21, 0xfffe9, 20, 0x3fffdb, 22, // 160
        0x3fffdc, 22, 0x7fffe8, 23, 0x7fffe9, 23, 0x1fffde, 21, // 164
        0x7fffea, 23, 0x3fffdd, 22, 0x3fffde, 22, 0xfffff0, 24, // 168
        0x1fffdf, 21, 0x3fffdf, 22, 0x7fffeb, 23, 0x7fffec, 23, // 172
        0x1fffe0, 21, 0x1fffe1, 21, 0x3fffe0, 22, 0x1fffe2, 21, // 176
        0x7fffed, 23, 0x3fffe1, 22, 0x7fffee, 23, 0x7fffef, 23, // 180
        0xfffea, 20, 0x3fffe2, 22, 0x3fffe3, 22, 0x3fffe4, 22, // 184
        0x7ffff0, 23, 0x3fffe5, 22, 0x3fffe6, 22, 0x7ffff1, 23, // 188
        0x3ffffe0, 26, 0x3ffffe1, 26, 0xfffeb, 20, 0x7fff1, 19, // 192
        0x3fffe7, 22, 0x7ffff2, 23, 0x3fffe8, 22, 0x1ffffec, 25, // 196
        0x3ffffe2, 26, 0x3ffffe3, 26, 0x3ffffe4, 26, 0x7ffffde, 27, // 200
        0x7ffffdf, 27, 0x3ffffe5, 26, 0xfffff1, 24, 0x1ffffed, 25, // 204
        0x7fff2, 19, 0x1fffe3, 21, 0x3ffffe6, 26, 0x7ffffe0, 27, // 208
        0x7ffffe1, 27, 0x3ffffe7, 26, 0x7ffffe2, 27, 0xfffff2, 24, // 212
        0x1fffe4, 21, 0x1fffe5, 21, 0x3ffffe8, 26, 0x3ffffe9, 26, // 216
        0xffffffd, 28, 0x7ffffe3, 27, 0x7ffffe4, 27, 0x7ffffe5, 27, // 220
        0xfffec, 20, 0xfffff3, 24, 0xfffed, 20, 0x1fffe6, 21, // 224
        0x3fffe9, 22, 0x1fffe7, 21, 0x1fffe8, 21, 0x7ffff3, 23, // 228
        0x3fffea, 22, 0x3fffeb, 22, 0x1ffffee, 25, 0x1ffffef, 25, // 232
        0xfffff4, 24, 0xfffff5, 24, 0x3ffffea, 26, 0x7ffff4, 23, // 236
        0x3ffffeb, 26, 0x7ffffe6, 27, 0x3ffffec, 26, 0x3ffffed, 26, // 240
        0x7ffffe7, 27, 0x7ffffe8, 27, 0x7ffffe9, 27, 0x7ffffea, 27, // 244
        0x7ffffeb, 27, 0xffffffe, 28, 0x7ffffec, 27, 0x7ffffed, 27, // 248
        0x7ffffee, 27, 0x7ffffef, 27, 0x7fffff0, 27, 0x3ffffee, 26, // 252
        0x3fffffff, 30, // 256
    };

    /** Code of each symbol, aligned to the least significant bit. */
    static final int[] CODES = new int[257];

    /** Length in bits (5 to 30) of each symbol's code. */
    static final byte[] LENGTHS = new byte[257];

    static {
        for (int symbol = 0; symbol <= EOS; symbol++) {
            CODES[symbol] = TABLE[2 * symbol];
            LENGTHS[symbol] = (byte) TABLE[2 * symbol + 1];
        }
    }

    private Huffman() {}

    /**
     * @param s an octet string (every char at most 0xFF)
     * @return the length in octets of the Huffman encoding of {@code s}, padding included
     */
    static int encodedLength(String s) {
        long bits = 0;
        for (int i = 0, n = s.length(); i < n; i++) {
            bits += LENGTHS[s.charAt(i) & 0xFF];
        }
        return (int) ((bits + 7) >>> 3);
    }

    /**
     * Writes the Huffman encoding of {@code s} padded with the most significant bits of EOS (ones).
     *
     * @param s an octet string (every char at most 0xFF)
     * @param dst where to write; must have room for {@link #encodedLength(String)} octets from {@code pos}
     * @param pos where to start writing
     * @return the position after the last octet written
     */
    static int encode(String s, byte[] dst, int pos) {
        // At most 7 pending bits plus one code of at most 30 bits: always fits in a long.
        long pending = 0;
        int count = 0;
        for (int i = 0, n = s.length(); i < n; i++) {
            int symbol = s.charAt(i) & 0xFF;
            int length = LENGTHS[symbol];
            pending = (pending << length) | CODES[symbol];
            count += length;
            while (count >= 8) {
                count -= 8;
                dst[pos++] = (byte) (pending >>> count);
            }
        }
        if (count > 0) {
            dst[pos++] = (byte) ((pending << (8 - count)) | (0xFF >>> count));
        }
        return pos;
    }
}
