package dev.quarry.http.hpack;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every example of RFC 7541 Appendix C.2 to C.6, byte for byte: decoding gives the listed headers and dynamic table,
 * and encoding the headers gives the listed octets (the RFC's encoder indexes every field, Huffman-codes strings in
 * C.4 and C.6 and not in C.3 and C.5).
 */
class RfcExamplesTest {

    /** The RFC's examples index every literal; our default policy would keep location and set-cookie out. */
    private static final HpackEncoder.IndexingPolicy INDEX_ALL = (name, value) -> HpackEncoder.Indexing.INCREMENTAL;

    // C.2: independent representations, each with a fresh context.

    @Test
    void c21LiteralHeaderFieldWithIndexing() throws HpackException {
        String wire = "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572";
        HpackDecoder decoder = new HpackDecoder();
        assertDecodes(decoder, wire, List.of(field("custom-key", "custom-header")));
        assertTable(decoder, 55, "custom-key: custom-header");
        assertEncodes(
                new HpackEncoder(4096, false, HpackEncoder.DEFAULT_POLICY), wire, field("custom-key", "custom-header"));
    }

    @Test
    void c22LiteralHeaderFieldWithoutIndexing() throws HpackException {
        String wire = "040c 2f73 616d 706c 652f 7061 7468";
        HpackDecoder decoder = new HpackDecoder();
        assertDecodes(decoder, wire, List.of(field(":path", "/sample/path")));
        assertTable(decoder, 0);
        assertEncodes(new HpackEncoder(4096, false, HpackEncoder.DEFAULT_POLICY), wire, field(":path", "/sample/path"));
    }

    @Test
    void c23LiteralHeaderFieldNeverIndexed() throws HpackException {
        String wire = "1008 7061 7373 776f 7264 0673 6563 7265 74";
        HpackDecoder decoder = new HpackDecoder();
        CollectingSink sink = new CollectingSink();
        decoder.decode(Hex.buffer(wire), sink);
        assertEquals(List.of(new HeaderField("password", "secret", true)), sink.fields, "never-indexed flag reported");
        assertTable(decoder, 0);
        assertEncodes(
                new HpackEncoder(4096, false, HpackEncoder.DEFAULT_POLICY),
                wire,
                new HeaderField("password", "secret", true));
    }

    @Test
    void c24IndexedHeaderField() throws HpackException {
        HpackDecoder decoder = new HpackDecoder();
        assertDecodes(decoder, "82", List.of(field(":method", "GET")));
        assertTable(decoder, 0);
        assertEncodes(new HpackEncoder(), "82", field(":method", "GET"));
    }

    // C.3 and C.4: three requests on one connection, without and with Huffman coding.

    private static final List<HeaderField> REQUEST_1 = List.of(
            field(":method", "GET"),
            field(":scheme", "http"),
            field(":path", "/"),
            field(":authority", "www.example.com"));
    private static final List<HeaderField> REQUEST_2 = List.of(
            field(":method", "GET"),
            field(":scheme", "http"),
            field(":path", "/"),
            field(":authority", "www.example.com"),
            field("cache-control", "no-cache"));
    private static final List<HeaderField> REQUEST_3 = List.of(
            field(":method", "GET"),
            field(":scheme", "https"),
            field(":path", "/index.html"),
            field(":authority", "www.example.com"),
            field("custom-key", "custom-value"));

    @Test
    void c3RequestsWithoutHuffmanCoding() throws HpackException {
        String[] wires = {
            "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
            "8286 84be 5808 6e6f 2d63 6163 6865",
            "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65"
        };
        requests(wires, new HpackEncoder(4096, false, HpackEncoder.DEFAULT_POLICY));
    }

    @Test
    void c4RequestsWithHuffmanCoding() throws HpackException {
        String[] wires = {
            "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
            "8286 84be 5886 a8eb 1064 9cbf",
            "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"
        };
        requests(wires, new HpackEncoder(4096, true, HpackEncoder.DEFAULT_POLICY));
    }

    private static void requests(String[] wires, HpackEncoder encoder) throws HpackException {
        HpackDecoder decoder = new HpackDecoder();
        assertDecodes(decoder, wires[0], REQUEST_1);
        assertTable(decoder, 57, ":authority: www.example.com");
        assertDecodes(decoder, wires[1], REQUEST_2);
        assertTable(decoder, 110, "cache-control: no-cache", ":authority: www.example.com");
        assertDecodes(decoder, wires[2], REQUEST_3);
        assertTable(decoder, 164, "custom-key: custom-value", "cache-control: no-cache", ":authority: www.example.com");

        assertEncodes(encoder, wires[0], REQUEST_1.toArray(HeaderField[]::new));
        assertEncodes(encoder, wires[1], REQUEST_2.toArray(HeaderField[]::new));
        assertEncodes(encoder, wires[2], REQUEST_3.toArray(HeaderField[]::new));
        assertArrayEquals(
                new String[] {"custom-key: custom-value", "cache-control: no-cache", ":authority: www.example.com"},
                encoder.tableEntries());
    }

    // C.5 and C.6: three responses with SETTINGS_HEADER_TABLE_SIZE = 256, causing evictions.

    private static final List<HeaderField> RESPONSE_1 = List.of(
            field(":status", "302"),
            field("cache-control", "private"),
            field("date", "Mon, 21 Oct 2013 20:13:21 GMT"),
            field("location", "https://www.example.com"));
    private static final List<HeaderField> RESPONSE_2 = List.of(
            field(":status", "307"),
            field("cache-control", "private"),
            field("date", "Mon, 21 Oct 2013 20:13:21 GMT"),
            field("location", "https://www.example.com"));
    private static final List<HeaderField> RESPONSE_3 = List.of(
            field(":status", "200"),
            field("cache-control", "private"),
            field("date", "Mon, 21 Oct 2013 20:13:22 GMT"),
            field("location", "https://www.example.com"),
            field("content-encoding", "gzip"),
            field("set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"));

    @Test
    void c5ResponsesWithoutHuffmanCoding() throws HpackException {
        String[] wires = {
            "4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32"
                    + "3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
            "4803 3330 37c1 c0bf",
            "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970"
                    + "7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d"
                    + "6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31"
        };
        responses(wires, false);
    }

    @Test
    void c6ResponsesWithHuffmanCoding() throws HpackException {
        String[] wires = {
            "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad"
                    + "1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
            "4883 640e ffc1 c0bf",
            "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2"
                    + "e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106"
                    + "3d50 07"
        };
        // The RFC's encoder Huffman-codes "307" although that takes 3 octets (17 bits) like the raw string; ours sends
        // Huffman only when strictly shorter, so its second response differs in exactly that string.
        String ours = "4803 3330 37c1 c0bf";
        responses(wires, true, ours);
    }

    private static void responses(String[] wires, boolean huffman) throws HpackException {
        responses(wires, huffman, wires[1]);
    }

    private static void responses(String[] wires, boolean huffman, String ourSecondWire) throws HpackException {
        HpackDecoder decoder = new HpackDecoder(256, HpackLimits.DEFAULT);
        assertDecodes(decoder, wires[0], RESPONSE_1);
        assertTable(
                decoder,
                222,
                "location: https://www.example.com",
                "date: Mon, 21 Oct 2013 20:13:21 GMT",
                "cache-control: private",
                ":status: 302");
        assertDecodes(decoder, wires[1], RESPONSE_2);
        assertTable(
                decoder,
                222,
                ":status: 307",
                "location: https://www.example.com",
                "date: Mon, 21 Oct 2013 20:13:21 GMT",
                "cache-control: private");
        assertDecodes(decoder, wires[2], RESPONSE_3);
        assertTable(
                decoder,
                215,
                "set-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
                "content-encoding: gzip",
                "date: Mon, 21 Oct 2013 20:13:22 GMT");

        // The RFC's connection starts at 256 octets; ours starts at HTTP/2's 4096, so the first block also carries
        // the dynamic table size update to 256 (3f e1 01) before the RFC's octets.
        HpackEncoder encoder = new HpackEncoder(4096, huffman, INDEX_ALL);
        encoder.setMaxTableSize(256);
        assertEncodes(encoder, "3fe101" + wires[0], RESPONSE_1.toArray(HeaderField[]::new));
        assertEncodes(encoder, ourSecondWire, RESPONSE_2.toArray(HeaderField[]::new));
        assertEncodes(encoder, wires[2], RESPONSE_3.toArray(HeaderField[]::new));
        assertEquals(215, encoder.tableSize());
    }

    private static HeaderField field(String name, String value) {
        return new HeaderField(name, value);
    }

    private static void assertDecodes(HpackDecoder decoder, String wire, List<HeaderField> expected)
            throws HpackException {
        CollectingSink sink = new CollectingSink();
        decoder.decode(Hex.buffer(wire), sink);
        assertEquals(expected, sink.plain());
    }

    private static void assertTable(HpackDecoder decoder, int size, String... entries) {
        assertArrayEquals(entries, decoder.tableEntries());
        assertEquals(size, decoder.tableSize());
    }

    private static void assertEncodes(HpackEncoder encoder, String wire, HeaderField... fields) {
        HpackOutput out = new HpackOutput();
        encoder.encode(List.of(fields), out);
        assertEquals(Hex.of(Hex.bytes(wire)), Hex.of(out.toByteArray()));
    }
}
