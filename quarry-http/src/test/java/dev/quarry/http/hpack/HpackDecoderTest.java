package dev.quarry.http.hpack;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Decoder behaviour beyond the RFC examples: allocation-light results, buffers, table updates, name checks. */
class HpackDecoderTest {

    private static final String CUSTOM = "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572";

    @Test
    void indexedStaticFieldIsTheStaticTablesOwnStrings() throws HpackException {
        CollectingSink sink = new CollectingSink();
        new HpackDecoder().decode(Hex.buffer("82 88"), sink);
        assertSame(StaticTable.name(2), sink.fields.get(0).name());
        assertSame(StaticTable.value(2), sink.fields.get(0).value());
        assertSame(StaticTable.value(8), sink.fields.get(1).value());
    }

    @Test
    void indexedDynamicFieldIsTheDynamicTablesOwnStrings() throws HpackException {
        HpackDecoder decoder = new HpackDecoder();
        CollectingSink sink = new CollectingSink();
        decoder.decode(Hex.buffer(CUSTOM + "be be"), sink);
        HeaderField literal = sink.fields.get(0);
        for (HeaderField indexed : sink.fields.subList(1, 3)) {
            assertSame(literal.name(), indexed.name());
            assertSame(literal.value(), indexed.value());
        }
    }

    @Test
    void literalNameFromTheStaticTableIsTheStaticString() throws HpackException {
        CollectingSink sink = new CollectingSink();
        new HpackDecoder().decode(Hex.buffer("040c 2f73 616d 706c 652f 7061 7468"), sink);
        assertSame(StaticTable.name(4), sink.fields.get(0).name());
    }

    @Test
    void decodesDirectReadOnlyAndOffsetBuffersAndConsumesThem() throws HpackException {
        byte[] wire = Hex.bytes(CUSTOM);
        ByteBuffer direct = ByteBuffer.allocateDirect(wire.length).put(wire).flip();
        ByteBuffer readOnly = ByteBuffer.wrap(wire).asReadOnlyBuffer();
        byte[] padded = new byte[wire.length + 10];
        System.arraycopy(wire, 0, padded, 5, wire.length);
        ByteBuffer slice = ByteBuffer.wrap(padded, 5, wire.length).slice();
        for (ByteBuffer block : List.of(direct, readOnly, slice)) {
            CollectingSink sink = new CollectingSink();
            new HpackDecoder().decode(block, sink);
            assertEquals(List.of(new HeaderField("custom-key", "custom-header")), sink.plain(), block.toString());
            assertFalse(block.hasRemaining(), block.toString());
        }
    }

    @Test
    void literalWithoutIndexingIsNotNeverIndexed() throws HpackException {
        CollectingSink sink = new CollectingSink();
        new HpackDecoder().decode(Hex.buffer("040c 2f73 616d 706c 652f 7061 7468 1408 2f70 7269 7661 7465"), sink);
        assertFalse(sink.fields.get(0).sensitive());
        assertTrue(sink.fields.get(1).sensitive(), "0x14: never indexed, name index 4");
        assertEquals("/private", sink.fields.get(1).value());
    }

    @Test
    void emptyBlockDecodesToNothing() throws HpackException {
        HpackDecoder decoder = new HpackDecoder();
        CollectingSink sink = new CollectingSink();
        decoder.decode(ByteBuffer.allocate(0), sink);
        assertTrue(sink.fields.isEmpty());
        assertEquals(1, decoder.blocks());
    }

    @Test
    void emptyStringsDecode() throws HpackException {
        CollectingSink sink = new CollectingSink();
        new HpackDecoder().decode(Hex.buffer("00 00 00 10 00 80"), sink);
        assertEquals(List.of(new HeaderField("", ""), new HeaderField("", "", true)), sink.fields);
    }

    @Test
    void tableSizeUpdateToZeroEmptiesTheTable() throws HpackException {
        HpackDecoder decoder = new HpackDecoder();
        decoder.decode(Hex.buffer(CUSTOM), new CollectingSink());
        assertEquals(1, decoder.tableLength());
        decoder.decode(Hex.buffer("20 3f e1 1f 82"), new CollectingSink());
        assertEquals(0, decoder.tableLength());
        assertEquals(4096, decoder.tableMaxSize());
    }

    @Test
    void entryLargerThanTheTableEmptiesItAndIsNotAdded() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(64, HpackLimits.DEFAULT);
        decoder.decode(Hex.buffer("41 01 61"), new CollectingSink()); // :authority: a, 43 octets
        assertEquals(1, decoder.tableLength());
        CollectingSink sink = new CollectingSink();
        decoder.decode(Hex.buffer(CUSTOM), sink); // 55 octets: evicts the first, fits
        assertArrayEquals(new String[] {"custom-key: custom-header"}, decoder.tableEntries());
        HpackOutput big = new HpackOutput();
        big.writeInteger(0x40, 6, 1);
        big.writeString("x".repeat(40), false); // 10 + 40 + 32 > 64
        decoder.decode(big.asByteBuffer(), sink);
        assertEquals(0, decoder.tableLength());
        assertEquals(0, decoder.tableSize());
    }

    @Test
    void lowerSettingWithTheUpdateInTheNextBlockIsAccepted() throws HpackException {
        HpackDecoder decoder = new HpackDecoder();
        decoder.decode(Hex.buffer(CUSTOM), new CollectingSink());
        decoder.setMaxTableSize(0);
        assertTrue(decoder.toString().contains("update to <= 0 required"), decoder.toString());
        decoder.decode(Hex.buffer("20 82"), new CollectingSink());
        assertEquals(0, decoder.tableMaxSize());
        assertEquals(0, decoder.tableLength());
    }

    @Test
    void blockOfOnlyATableSizeUpdateIsAccepted() throws HpackException {
        HpackDecoder decoder = new HpackDecoder();
        decoder.setMaxTableSize(1000);
        decoder.decode(Hex.buffer("3f c9 07"), new CollectingSink());
        assertEquals(1000, decoder.tableMaxSize());
    }

    @Test
    void validHttp2NamesAreLowercaseTokensOrPseudoHeaders() {
        for (String name : List.of(":path", ":status", "content-type", "x-a_b.c~1", "!#$%&'*+-.^_`|~")) {
            assertTrue(HpackDecoder.isValidHttp2Name(name), name);
        }
        for (String name : List.of("", ":", "Content-Type", "a b", "a:b", "caf\u00e9", "a\u0000", "a\"b", "(a)")) {
            assertFalse(HpackDecoder.isValidHttp2Name(name), name);
        }
    }

    @Test
    void validHttp2ValuesHaveNoNulCrLfNorOuterWhitespace() {
        for (String value : List.of("", "a b", "text/plain; charset=utf-8", "\u00ff obs-text")) {
            assertTrue(HpackDecoder.isValidHttp2Value(value), value);
        }
        for (String value : List.of(" a", "a ", "\ta", "a\r\nb", "a\u0000", "a\nb")) {
            assertFalse(HpackDecoder.isValidHttp2Value(value), value);
        }
    }

    @Test
    void dumpListsTheDynamicTableAsTheRfcPrintsIt() throws Exception {
        HpackDecoder decoder = new HpackDecoder();
        decoder.decode(Hex.buffer(CUSTOM), new CollectingSink());
        String dump = decoder.dump();
        assertTrue(dump.contains("[1] (s = 55) custom-key: custom-header"), dump);
        assertTrue(decoder.toString().contains("1 entries, 55/4096 octets"), decoder.toString());
    }
}
