package dev.quarry.http.hpack;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Encoder choices: indexing policy, table matches, Huffman, table size updates. */
class HpackEncoderTest {

    private final HpackEncoder encoder = new HpackEncoder();
    private final HpackDecoder decoder = new HpackDecoder();

    @Test
    void secretsAreSentNeverIndexedAndKeptOutOfTheTable() throws HpackException {
        List<HeaderField> fields = List.of(
                new HeaderField("authorization", "Bearer abc.def"),
                new HeaderField("proxy-authorization", "Basic dXNlcjpwYXNz"),
                new HeaderField("set-cookie", "session=0123456789abcdef0123456789; Secure"),
                new HeaderField("cookie", "sid=short"),
                new HeaderField("x-api-key", "k-123", true));
        List<HeaderField> received = roundTrip(fields);
        for (HeaderField field : received) {
            assertTrue(field.sensitive(), field + " arrives never-indexed");
        }
        assertEquals(0, encoder.tableLength());
    }

    @Test
    void longCookiesAreIndexedForTheNextRequest() throws HpackException {
        HeaderField cookie = new HeaderField("cookie", "preferences=dark-mode; locale=en-GB");
        assertFalse(roundTrip(List.of(cookie)).get(0).sensitive());
        assertEquals(1, encoder.tableLength());
        assertEquals(1, encode(List.of(cookie)).length, "second time: one indexed octet");
    }

    @Test
    void valuesThatRarelyRepeatAreNotIndexed() throws HpackException {
        List<HeaderField> fields = List.of(
                new HeaderField(":path", "/a/b?c=d"),
                new HeaderField("content-length", "1234"),
                new HeaderField("etag", "\"abc\""),
                new HeaderField("location", "https://example.com/x"));
        for (HeaderField field : roundTrip(fields)) {
            assertFalse(field.sensitive(), field.toString());
        }
        assertEquals(0, encoder.tableLength());
    }

    @Test
    void repeatedResponseHeadersEncodeToOneOctetEach() throws HpackException {
        List<HeaderField> response = List.of(
                new HeaderField(":status", "200"),
                new HeaderField("content-type", "text/plain"),
                new HeaderField("server", "quarry"),
                new HeaderField("date", "Mon, 21 Oct 2013 20:13:21 GMT"));
        roundTrip(response);
        byte[] second = encode(response);
        assertEquals("88c0bfbe", Hex.of(second));
        CollectingSink sink = new CollectingSink();
        decoder.decode(java.nio.ByteBuffer.wrap(second), sink);
        assertEquals(response, sink.plain());
    }

    @Test
    void newValueOfAnIndexedNameRefersToTheName() {
        encode(List.of(new HeaderField("x-custom", "a")));
        byte[] second = encode(List.of(new HeaderField("x-custom", "b")));
        assertEquals((byte) 0x7e, second[0], "literal with incremental indexing, name index 62");
    }

    @Test
    void staticNameIsPreferredAndHuffmanOnlyWhenShorter() {
        // "1234": Huffman 4 x 5..6 bits = 3 octets < 4.
        assertEquals(
                "0f0d83",
                Hex.of(encode(List.of(new HeaderField("content-length", "1234"))))
                        .substring(0, 6));
        // "13": 5 + 5 bits = 2 octets, not shorter than 2: raw.
        assertEquals("0f0d023133", Hex.of(encode(List.of(new HeaderField("content-length", "13")))));
    }

    @Test
    void fieldLargerThanThreeQuartersOfTheTableIsNotIndexed() throws HpackException {
        encoder.setMaxTableSize(128);
        decoder.setMaxTableSize(128);
        roundTrip(List.of(new HeaderField("x-big", "v".repeat(65)))); // 5 + 65 + 32 = 102 > 96
        assertEquals(0, encoder.tableLength());
        roundTrip(List.of(new HeaderField("x-big", "v".repeat(59)))); // 96: indexed
        assertEquals(1, encoder.tableLength());
    }

    @Test
    void entryThatEvictsTheEntryItsNameCameFromRoundTrips() throws HpackException {
        encoder.setMaxTableSize(100);
        decoder.setMaxTableSize(100);
        String name = "x-" + "n".repeat(30);
        roundTrip(List.of(new HeaderField(name, "first")));
        List<HeaderField> received = roundTrip(List.of(new HeaderField(name, "second")));
        assertEquals("second", received.get(0).value());
        assertArrayEquals(new String[] {name + ": second"}, encoder.tableEntries());
        assertArrayEquals(encoder.tableEntries(), decoder.tableEntries());
    }

    @Test
    void lowerPeerSettingIsSignalledAtTheStartOfTheNextBlock() {
        encoder.setMaxTableSize(1024);
        assertEquals("3fe10782", Hex.of(encode(List.of(new HeaderField(":method", "GET")))));
        assertEquals("82", Hex.of(encode(List.of(new HeaderField(":method", "GET")))));
    }

    @Test
    void shrinkThenGrowBetweenBlocksSignalsTheMinimumThenTheFinalSize() {
        encoder.setMaxTableSize(0);
        encoder.setMaxTableSize(4096);
        assertEquals("203fe11f82", Hex.of(encode(List.of(new HeaderField(":method", "GET")))));
    }

    @Test
    void unchangedSettingSignalsNothing() {
        encoder.setMaxTableSize(4096);
        encoder.setMaxTableSize(8192); // above our own limit of 4096: no change
        assertEquals("82", Hex.of(encode(List.of(new HeaderField(":method", "GET")))));
    }

    @Test
    void higherSettingWithinOurLimitIsSignalled() {
        HpackEncoder large = new HpackEncoder(16384, true, HpackEncoder.DEFAULT_POLICY);
        large.setMaxTableSize(16384);
        HpackOutput out = new HpackOutput();
        large.encode(List.of(), out);
        assertEquals("3fe17f", Hex.of(out.toByteArray()));
        assertEquals(16384, large.tableMaxSize());
    }

    @Test
    void encoderLimitBelowTheDefaultIsSignalledInTheFirstBlock() throws HpackException {
        HpackEncoder small = new HpackEncoder(0, true, HpackEncoder.DEFAULT_POLICY);
        HpackOutput out = new HpackOutput();
        small.encode(List.of(new HeaderField("x-a", "b")), out);
        assertEquals((byte) 0x20, out.toByteArray()[0]);
        assertEquals(0, small.tableLength());
        CollectingSink sink = new CollectingSink();
        decoder.decode(out.asByteBuffer(), sink);
        assertEquals(0, decoder.tableMaxSize());
    }

    @Test
    void fieldWithoutBeginBlockAfterASettingsChangeIsRefused() {
        encoder.setMaxTableSize(100);
        var x = assertThrows(
                IllegalStateException.class, () -> encoder.encodeField(new HpackOutput(), "a", "b", false));
        assertTrue(x.getMessage().contains("update to 100"), x.getMessage());
    }

    @Test
    void charactersAboveOctetsAreRefused() {
        var x = assertThrows(
                IllegalArgumentException.class, () -> encode(List.of(new HeaderField("x-name", "caf\u20ac"))));
        assertTrue(x.getMessage().contains("above 0xFF"), x.getMessage());
    }

    @Test
    void evictedEntriesLeaveTheLookupMaps() throws HpackException {
        encoder.setMaxTableSize(256);
        decoder.setMaxTableSize(256);
        for (int i = 0; i < 500; i++) {
            List<HeaderField> fields = new ArrayList<>();
            fields.add(new HeaderField("x-n" + (i % 7), "v" + i));
            fields.add(new HeaderField("x-n" + (i % 7), "v" + (i / 3)));
            roundTrip(fields);
            int[] sizes = encoder.tableMapSizes();
            assertEquals(encoder.tableLength(), sizes[0], "one field key per live entry");
            assertTrue(sizes[1] <= encoder.tableLength(), "one name key per live name");
        }
    }

    @Test
    void toStringAndDumpDescribeTheTable() throws Exception {
        roundTrip(List.of(new HeaderField("server", "quarry")));
        assertTrue(encoder.toString().contains("1 entries, 44/4096 octets"), encoder.toString());
        assertTrue(encoder.dump().contains("[1] (s = 44) server: quarry"), encoder.dump());
    }

    private byte[] encode(List<HeaderField> fields) {
        HpackOutput out = new HpackOutput(0);
        encoder.encode(fields, out);
        return out.toByteArray();
    }

    private List<HeaderField> roundTrip(List<HeaderField> fields) throws HpackException {
        CollectingSink sink = new CollectingSink();
        decoder.decode(java.nio.ByteBuffer.wrap(encode(fields)), sink);
        assertEquals(
                fields.stream().map(f -> new HeaderField(f.name(), f.value())).toList(), sink.plain());
        assertArrayEquals(encoder.tableEntries(), decoder.tableEntries());
        return sink.fields;
    }
}
