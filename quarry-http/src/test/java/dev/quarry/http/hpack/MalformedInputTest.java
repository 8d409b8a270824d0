package dev.quarry.http.hpack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Malformed blocks are connection errors ({@link HpackCompressionException}) whose messages name the problem. */
class MalformedInputTest {

    @Test
    void truncatedIntegerIsRejected() {
        assertCompressionError(new HpackDecoder(), "ff", "truncated integer");
        assertCompressionError(new HpackDecoder(), "ff 80", "truncated integer");
    }

    @Test
    void integerOverflowIsRejected() {
        assertCompressionError(new HpackDecoder(), "ff 80 80 80 80 08", "integer overflow");
    }

    @Test
    void missingStringIsRejected() {
        assertCompressionError(new HpackDecoder(), "40", "string length was expected");
        assertCompressionError(new HpackDecoder(), "40 01 61", "string length was expected");
    }

    @Test
    void truncatedStringIsRejected() {
        assertCompressionError(new HpackDecoder(), "40 0a 63 75", "length 10 but only 2 octets remain");
        assertCompressionError(new HpackDecoder(), "04 8a 63", "length 10 but only 1 octets remain");
    }

    @Test
    void indexZeroIsRejected() {
        assertCompressionError(new HpackDecoder(), "80", "index 0");
    }

    @Test
    void indexBeyondTheTablesIsRejected() {
        assertCompressionError(new HpackDecoder(), "be", "index 62 is beyond the tables: 61 static + 0 dynamic");
        // As the name of a literal with incremental indexing.
        assertCompressionError(new HpackDecoder(), "7e 01 61", "index 62 is beyond the tables");
        // After one entry was added, index 63 is still beyond.
        assertCompressionError(new HpackDecoder(), "41 01 61 bf", "index 63 is beyond the tables: 61 static + 1");
    }

    @Test
    void huffmanStringWithEosIsRejected() {
        assertCompressionError(new HpackDecoder(), "04 84 ff ff ff ff", "EOS");
    }

    @Test
    void huffmanPaddingLongerThanSevenBitsIsRejected() {
        assertCompressionError(new HpackDecoder(), "04 82 1f ff", "padding longer than 7 bits");
    }

    @Test
    void huffmanPaddingThatIsNotAllOnesIsRejected() {
        assertCompressionError(new HpackDecoder(), "04 81 18", "not the EOS prefix");
    }

    @Test
    void tableSizeUpdateAboveSettingsIsRejected() {
        assertCompressionError(
                new HpackDecoder(), "3f e2 1f", "update to 4097 octets exceeds SETTINGS_HEADER_TABLE_SIZE 4096");
    }

    @Test
    void tableSizeUpdateAfterAFieldIsRejected() {
        assertCompressionError(new HpackDecoder(), "82 20", "dynamic table size update after a header field");
    }

    @Test
    void missingRequiredTableSizeUpdateIsRejected() {
        HpackDecoder decoder = new HpackDecoder();
        decoder.setMaxTableSize(100);
        assertCompressionError(decoder, "82", "must begin with a dynamic table size update to at most 100");
    }

    @Test
    void updateAboveTheSmallestSizeSinceTheLastBlockIsNotEnough() throws HpackException {
        HpackDecoder decoder = new HpackDecoder();
        decoder.setMaxTableSize(100);
        decoder.setMaxTableSize(4096);
        // Only to 4096: the peer must also have signalled 100 (RFC 7541 4.2).
        assertCompressionError(decoder, "3f e1 1f 82", "at most 100");

        HpackDecoder fine = new HpackDecoder();
        fine.setMaxTableSize(100);
        fine.setMaxTableSize(4096);
        fine.decode(Hex.buffer("3f 45 3f e1 1f 82"), new CollectingSink());
        assertEquals(4096, fine.tableMaxSize());
    }

    @Test
    void stringLongerThanTheLimitIsRejected() {
        HpackLimits limits = HpackLimits.DEFAULT.withMaxStringLength(10);
        assertCompressionError(
                new HpackDecoder(4096, limits),
                "04 0b 2f 2f 2f 2f 2f 2f 2f 2f 2f 2f 2f",
                "string of 11 octets exceeds the limit of 10");
        // Huffman: 7 octets of "aaaaaaaaaaa" (11 x 5 bits + 1 bit padding) decode to 11 octets.
        HpackOutput out = new HpackOutput();
        out.writeInteger(0x00, 4, 4);
        out.writeString("aaaaaaaaaaa", true);
        assertEquals((byte) 0x87, out.toByteArray()[1], "Huffman-coded, 7 octets");
        assertCompressionError(new HpackDecoder(4096, limits), Hex.of(out.toByteArray()), "decodes to 11 octets");
    }

    @Test
    void decoderIsUnusableAfterACompressionError() {
        HpackDecoder decoder = new HpackDecoder();
        assertCompressionError(decoder, "80", "index 0");
        var x = assertThrows(IllegalStateException.class, () -> decoder.decode(Hex.buffer("82"), new CollectingSink()));
        assertTrue(x.getMessage().contains("index 0"), x.getMessage());
        assertTrue(decoder.toString().contains("FAILED"), decoder.toString());
    }

    @Test
    void decoderIsUnusableAfterTheSinkThrew() {
        HpackDecoder decoder = new HpackDecoder();
        assertThrows(
                IllegalArgumentException.class,
                () -> decoder.decode(Hex.buffer("82"), (name, value) -> {
                    throw new IllegalArgumentException("sink refuses " + name);
                }));
        assertThrows(IllegalStateException.class, () -> decoder.decode(Hex.buffer("82"), new CollectingSink()));
    }

    @Test
    void errorMessagesGiveTheOffsetInTheBlock() {
        assertCompressionError(new HpackDecoder(), "82 86 80", "at octet 2 of a 3-octet block");
    }

    private static void assertCompressionError(HpackDecoder decoder, String wire, String expected) {
        CollectingSink sink = new CollectingSink();
        var x = assertThrows(HpackCompressionException.class, () -> decoder.decode(Hex.buffer(wire), sink));
        assertTrue(x.getMessage().contains(expected), () -> "message: " + x.getMessage() + ", expected: " + expected);
        assertTrue(x.isConnectionError());
    }

    @Test
    void decodersShareNoStateAnotherStillDecodesAfterOneFailed() throws HpackException {
        assertCompressionError(new HpackDecoder(), "80", "index 0");
        CollectingSink sink = new CollectingSink();
        new HpackDecoder().decode(Hex.buffer("82"), sink);
        assertEquals(List.of(new HeaderField(":method", "GET")), sink.plain());
        assertFalse(sink.fields.get(0).sensitive());
    }
}
