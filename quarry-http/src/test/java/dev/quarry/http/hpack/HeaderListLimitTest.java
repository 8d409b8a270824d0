package dev.quarry.http.hpack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A header list over the limits is a stream error ({@link HeaderListTooLargeException}): the sink stops receiving
 * fields, yet the whole block is decoded into the dynamic table so that the connection can continue.
 */
class HeaderListLimitTest {

    /** custom-key: custom-header, literal with incremental indexing (RFC 7541 C.2.1): 55 octets. */
    private static final String CUSTOM = "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572";

    @Test
    void listLargerThanTheLimitIsAStreamErrorAndTheSinkStopsAtTheLimit() {
        HpackDecoder decoder = new HpackDecoder(4096, HpackLimits.DEFAULT.withMaxHeaderListSize(100));
        CollectingSink sink = new CollectingSink();
        var x = assertThrows(
                HeaderListTooLargeException.class, () -> decoder.decode(Hex.buffer(CUSTOM + "be 82"), sink));
        assertFalse(x.isConnectionError());
        assertEquals(3, x.fieldCount());
        assertEquals(55 + 55 + 42, x.headerListSize());
        assertTrue(x.getMessage().contains("exceeds 100 octets at field 2"), x.getMessage());
        assertEquals(List.of(new HeaderField("custom-key", "custom-header")), sink.plain());
    }

    @Test
    void decoderStaysInStepAfterATooLargeList() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(4096, HpackLimits.DEFAULT.withMaxHeaderListSize(90));
        // Four literals with incremental indexing, 42 octets each: the limit is crossed at the third, yet all four
        // are added to the table.
        HpackOutput block = new HpackOutput();
        for (String value : new String[] {"one", "two", "six", "ten"}) {
            block.writeInteger(0x40, 6, 0);
            block.writeString("x-field", false);
            block.writeString(value, false);
        }
        CollectingSink sink = new CollectingSink();
        assertThrows(HeaderListTooLargeException.class, () -> decoder.decode(block.asByteBuffer(), sink));
        assertEquals(2, sink.fields.size());
        assertEquals(4, decoder.tableLength());

        // The next block refers to the entry added after the limit was crossed: index 62 is "ten", 64 is "two".
        CollectingSink next = new CollectingSink();
        decoder.decode(Hex.buffer("be c0"), next);
        assertEquals(List.of(new HeaderField("x-field", "ten"), new HeaderField("x-field", "two")), next.plain());
    }

    @Test
    void tooManyFieldsIsAStreamError() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(4096, HpackLimits.DEFAULT.withMaxFieldCount(3));
        CollectingSink sink = new CollectingSink();
        var x = assertThrows(HeaderListTooLargeException.class, () -> decoder.decode(Hex.buffer("82 86 84 82"), sink));
        assertEquals(4, x.fieldCount());
        assertTrue(x.getMessage().contains("more than 3 fields"), x.getMessage());
        assertEquals(3, sink.fields.size());
        decoder.decode(Hex.buffer("82 86 84"), new CollectingSink());
    }

    @Test
    void hpackBombIsStoppedWithoutHandingTheFieldsToTheSink() throws HpackException {
        // One 4000-octet entry, then a block of 1000 one-octet references to it: 4 MB of headers from 1 kB.
        HpackDecoder decoder = new HpackDecoder();
        HpackOutput setup = new HpackOutput();
        setup.writeInteger(0x40, 6, 0);
        setup.writeString("x-bomb", false);
        setup.writeString("b".repeat(4000), false);
        decoder.decode(setup.asByteBuffer(), new CollectingSink());

        byte[] bomb = new byte[1000];
        java.util.Arrays.fill(bomb, (byte) 0xbe);
        int[] calls = {0};
        var x = assertThrows(
                HeaderListTooLargeException.class,
                () -> decoder.decode(java.nio.ByteBuffer.wrap(bomb), (name, value) -> calls[0]++));
        assertEquals(4, calls[0], "the sink gets the 4 fields (4 x 4038 octets) that fit in 16 KiB, then none");
        assertEquals(1000, x.fieldCount());
        assertEquals(1000L * (6 + 4000 + 32), x.headerListSize());
    }

    @Test
    void listExactlyAtTheLimitIsAccepted() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(4096, HpackLimits.DEFAULT.withMaxHeaderListSize(55));
        CollectingSink sink = new CollectingSink();
        decoder.decode(Hex.buffer(CUSTOM), sink);
        assertEquals(1, sink.fields.size());
    }
}
