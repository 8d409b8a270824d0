package dev.quarry.http.hpack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Integers with an N-bit prefix (RFC 7541 5.1, examples C.1). */
class IntegerRepresentationTest {

    @Test
    void c11EncodesTenInAFiveBitPrefix() {
        assertEquals("0a", write(0, 5, 10));
    }

    @Test
    void c12Encodes1337InAFiveBitPrefix() {
        assertEquals("1f9a0a", write(0, 5, 1337));
    }

    @Test
    void c13EncodesFortyTwoOnAnOctetBoundary() {
        assertEquals("2a", write(0, 8, 42));
    }

    @Test
    void prefixBoundaryValuesTakeOneContinuationOctet() {
        assertEquals("1f00", write(0, 5, 31));
        assertEquals("1e", write(0, 5, 30));
        assertEquals("7f00", write(0, 7, 127));
        assertEquals("ff8001", write(0, 8, 255 + 128));
    }

    @Test
    void flagsAboveThePrefixAreKept() {
        assertEquals("ff01", write(0x80, 7, 128));
        assertEquals("4a", write(0x40, 6, 10));
    }

    @Test
    void decoderReadsLargeIndicesAndSizesItWrote() throws HpackException {
        // A table size update to Integer.MAX_VALUE, when that is what SETTINGS allows.
        HpackDecoder decoder = new HpackDecoder(Integer.MAX_VALUE, HpackLimits.DEFAULT);
        HpackOutput out = new HpackOutput();
        out.writeInteger(0x20, 5, Integer.MAX_VALUE);
        decoder.decode(out.asByteBuffer(), new CollectingSink());
        assertEquals(Integer.MAX_VALUE, decoder.tableMaxSize());
    }

    @Test
    void decoderRejectsAValueBeyondAnInt() {
        // 31 + 2^31 in a 5-bit prefix: 1f 80 80 80 80 08.
        var x = assertThrows(
                HpackCompressionException.class,
                () -> new HpackDecoder(Integer.MAX_VALUE, HpackLimits.DEFAULT)
                        .decode(Hex.buffer("3f 80 80 80 80 08"), new CollectingSink()));
        assertTrue(x.getMessage().contains("integer overflow"), x.getMessage());
    }

    @Test
    void decoderRejectsMoreThanFiveContinuationOctets() {
        // Value 31 padded with zero-valued continuation octets.
        var x = assertThrows(
                HpackCompressionException.class,
                () -> new HpackDecoder().decode(Hex.buffer("3f 80 80 80 80 80 00"), new CollectingSink()));
        assertTrue(x.getMessage().contains("longer than 5 continuation octets"), x.getMessage());
    }

    private static String write(int flags, int prefixBits, int value) {
        HpackOutput out = new HpackOutput(0);
        out.writeInteger(flags, prefixBits, value);
        return Hex.of(out.toByteArray());
    }
}
