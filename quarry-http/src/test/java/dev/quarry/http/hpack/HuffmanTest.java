package dev.quarry.http.hpack;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The Huffman code of RFC 7541 Appendix B, its encoder and its table-driven decoder. */
class HuffmanTest {

    @Test
    void codeIsCompleteKraftSumIsExactlyOne() {
        // Sum of 2^-length over the 257 symbols, scaled by 2^30: a complete prefix code sums to exactly 1.
        BigInteger sum = BigInteger.ZERO;
        for (int symbol = 0; symbol <= Huffman.EOS; symbol++) {
            sum = sum.add(BigInteger.ONE.shiftLeft(30 - Huffman.LENGTHS[symbol]));
        }
        assertEquals(BigInteger.ONE.shiftLeft(30), sum);
    }

    @Test
    void codeIsCanonicalConsecutiveCodesOrderedByLengthThenSymbol() {
        // RFC 7541 5.2 calls the code canonical: rebuilding it from the lengths alone must give every code back,
        // which catches a mistyped code or length in the table.
        Integer[] order = new Integer[Huffman.EOS + 1];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(
                order,
                (a, b) -> Huffman.LENGTHS[a] != Huffman.LENGTHS[b] ? Huffman.LENGTHS[a] - Huffman.LENGTHS[b] : a - b);
        long code = 0;
        int previousLength = Huffman.LENGTHS[order[0]];
        for (int i = 0; i < order.length; i++) {
            int symbol = order[i];
            int length = Huffman.LENGTHS[symbol];
            if (i > 0) {
                code = (code + 1) << (length - previousLength);
            }
            previousLength = length;
            assertEquals(code, Huffman.CODES[symbol], "code of symbol " + symbol);
        }
    }

    @Test
    void codesMatchSamplesOfRfc7541AppendixB() {
        assertCode(0, 0x1ff8, 13);
        assertCode(' ', 0x14, 6);
        assertCode('/', 0x18, 6);
        assertCode('0', 0x0, 5);
        assertCode('a', 0x3, 5);
        assertCode('\\', 0x7fff0, 19);
        assertCode(200, 0x3ffffe2, 26);
        assertCode(255, 0x3ffffee, 26);
        assertCode(Huffman.EOS, 0x3fffffff, 30);
    }

    private static void assertCode(int symbol, int code, int length) {
        assertEquals(code, Huffman.CODES[symbol], "code of " + symbol);
        assertEquals(length, Huffman.LENGTHS[symbol], "length of " + symbol);
    }

    @Test
    void encodesRfcExampleWwwExampleCom() {
        assertEquals("f1e3c2e5f23a6ba0ab90f4ff", Hex.of(encode("www.example.com")));
        assertEquals(12, Huffman.encodedLength("www.example.com"));
    }

    @Test
    void everyOctetRoundTripsAloneAndInEveryPairPosition() throws HpackCompressionException {
        for (int a = 0; a < 256; a++) {
            assertRoundTrip(String.valueOf((char) a));
            for (int b = 0; b < 256; b += 17) {
                assertRoundTrip("" + (char) a + (char) b + "x");
            }
        }
    }

    @Test
    void randomOctetStringsRoundTrip() throws HpackCompressionException {
        Random random = new Random(7541);
        for (int n = 0; n < 2000; n++) {
            char[] chars = new char[random.nextInt(64)];
            for (int i = 0; i < chars.length; i++) {
                chars[i] = (char) (random.nextBoolean() ? 32 + random.nextInt(95) : random.nextInt(256));
            }
            assertRoundTrip(new String(chars));
        }
    }

    @Test
    void emptyInputDecodesToNothing() throws HpackCompressionException {
        assertEquals(0, HuffmanDecoder.decode(new byte[0], 0, 0, new byte[0]));
    }

    @Test
    void rejectsEosInsideTheString() {
        // 'a' (00011) then EOS (30 ones) then 5 ones of padding: 40 bits.
        byte[] input = Hex.bytes("1fffffffff");
        var x = assertThrows(HpackCompressionException.class, () -> decode(input));
        assertTrue(x.getMessage().contains("EOS"), x.getMessage());
    }

    @Test
    void rejectsPaddingLongerThanSevenBits() {
        // 'a' (00011) then 11 ones.
        var x = assertThrows(HpackCompressionException.class, () -> decode(Hex.bytes("1fff")));
        assertTrue(x.getMessage().contains("padding longer than 7 bits"), x.getMessage());
        // A whole octet of ones after a complete string.
        assertThrows(HpackCompressionException.class, () -> decode(Hex.bytes("1fffff")));
        assertThrows(HpackCompressionException.class, () -> decode(Hex.bytes("ff")));
    }

    @Test
    void rejectsPaddingThatIsNotAllOnes() {
        // 'a' (00011) then 000.
        var x = assertThrows(HpackCompressionException.class, () -> decode(Hex.bytes("18")));
        assertTrue(x.getMessage().contains("0b000"), x.getMessage());
        // 'a' then 101.
        assertThrows(HpackCompressionException.class, () -> decode(Hex.bytes("1d")));
    }

    @Test
    void rejectsATruncatedLongSymbol() {
        // The first 16 bits of a 28-bit code (symbol 2: fffffe2).
        assertThrows(HpackCompressionException.class, () -> decode(Hex.bytes("fffe")));
    }

    @Test
    void decodesAShortCodeLeftInTheLastBitsAfterALongOne() throws HpackCompressionException {
        // '!' (10 bits, 11111110|00), then '0' (00000), then one bit of padding: 16 bits.
        assertEquals("!0", new String(decode(Hex.bytes("fe01")), StandardCharsets.ISO_8859_1));
    }

    private static byte[] encode(String s) {
        byte[] out = new byte[Huffman.encodedLength(s)];
        assertEquals(out.length, Huffman.encode(s, out, 0));
        return out;
    }

    private static byte[] decode(byte[] input) throws HpackCompressionException {
        byte[] out = new byte[HuffmanDecoder.maxDecodedLength(input.length)];
        int length = HuffmanDecoder.decode(input, 0, input.length, out);
        return java.util.Arrays.copyOf(out, length);
    }

    private static void assertRoundTrip(String s) throws HpackCompressionException {
        byte[] encoded = encode(s);
        assertArrayEquals(s.getBytes(StandardCharsets.ISO_8859_1), decode(encoded), () -> "round trip of " + s);
    }
}
