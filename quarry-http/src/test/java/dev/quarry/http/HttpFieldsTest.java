package dev.quarry.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class HttpFieldsTest {

    @Test
    void keepsArrivalOrderAndMultipleValues() {
        HttpFields fields = new HttpFields(1)
                .add(HttpHeader.ACCEPT, "a")
                .add("X-One", "1")
                .add("accept", "b")
                .add("x-one", "2");
        assertEquals(4, fields.size());
        assertEquals(List.of("a", "b"), fields.getAll(HttpHeader.ACCEPT));
        assertEquals(List.of("a", "b"), fields.getAll("ACCEPT"));
        assertEquals(List.of("1", "2"), fields.getAll("X-ONE"));
        List<String> names = new ArrayList<>();
        fields.forEach(f -> names.add(f.name()));
        assertEquals(List.of("Accept", "X-One", "accept", "x-one"), names);
        List<String> iterated = new ArrayList<>();
        for (HttpField field : fields) {
            iterated.add(field.value());
        }
        assertEquals(List.of("a", "1", "b", "2"), iterated);
    }

    @Test
    void lookupsAreCaseInsensitive() {
        HttpFields fields = new HttpFields().add("content-TYPE", "text/plain").add("X-Custom", "v");
        assertEquals(Optional.of("text/plain"), fields.get(HttpHeader.CONTENT_TYPE));
        assertEquals(Optional.of("text/plain"), fields.get("Content-Type"));
        assertEquals(Optional.of("v"), fields.get("x-custom"));
        assertTrue(fields.contains(HttpHeader.CONTENT_TYPE) && fields.contains("X-CUSTOM"));
        assertFalse(fields.contains(HttpHeader.HOST) || fields.contains("X-Other"));
        assertEquals(Optional.empty(), fields.get("absent"));
        assertEquals(1, fields.indexOf("x-custom"));
        assertSame(fields.field(0), fields.getField("CONTENT-type").orElseThrow());
    }

    @Test
    void putReplacesTheFirstInPlaceAndRemovesTheOthers() {
        HttpFields fields = new HttpFields()
                .add("A", "1")
                .add(HttpHeader.VARY, "x")
                .add("B", "2")
                .add("vary", "y")
                .put(HttpHeader.VARY, "z");
        assertEquals("{A: 1, Vary: z, B: 2}", fields.toString());
        fields.put("C", "3").put("c", "4");
        assertEquals("{A: 1, Vary: z, B: 2, c: 4}", fields.toString());
    }

    @Test
    void removeRemovesEveryLineOfTheName() {
        HttpFields fields =
                new HttpFields().add("A", "1").add("a", "2").add("B", "3").add(HttpHeader.HOST, "h");
        assertTrue(fields.remove("A"));
        assertFalse(fields.remove("A"));
        assertTrue(fields.remove(HttpHeader.HOST));
        assertEquals("{B: 3}", fields.toString());
        fields.clear();
        assertTrue(fields.isEmpty());
    }

    @Test
    void getLongReadsDecimalNumbers() {
        HttpFields fields = new HttpFields().add(HttpHeader.CONTENT_LENGTH, "1234");
        assertEquals(OptionalLong.of(1234), fields.getLong(HttpHeader.CONTENT_LENGTH));
        assertEquals(OptionalLong.empty(), fields.getLong(HttpHeader.AGE));
        HttpFields bad = new HttpFields().add(HttpHeader.CONTENT_LENGTH, "-1");
        assertThrows(IllegalArgumentException.class, () -> bad.getLong(HttpHeader.CONTENT_LENGTH));
    }

    @Test
    void immutableSnapshotRejectsMutationAndIsIndependent() {
        HttpFields fields = new HttpFields().add("A", "1");
        HttpFields snapshot = fields.asImmutable();
        fields.add("B", "2");
        assertEquals(1, snapshot.size());
        assertTrue(snapshot.isImmutable());
        assertSame(snapshot, snapshot.asImmutable());
        assertThrows(UnsupportedOperationException.class, () -> snapshot.add("C", "3"));
        assertThrows(UnsupportedOperationException.class, () -> snapshot.remove("A"));
        assertThrows(UnsupportedOperationException.class, snapshot::clear);
        assertEquals(snapshot, snapshot.copy());
        assertFalse(snapshot.copy().isImmutable());
    }

    @Test
    void containsTokenReadsCommaSeparatedLists() {
        HttpField connection = new HttpField(HttpHeader.CONNECTION, "Upgrade ,  CLOSE;x=1, ,keep-alive");
        assertTrue(connection.containsToken("close"));
        assertTrue(connection.containsToken("upgrade"));
        assertTrue(connection.containsToken("keep-alive"));
        assertFalse(connection.containsToken("clos"));
        assertFalse(new HttpField(HttpHeader.CONNECTION, "").containsToken("close"));
        HttpFields fields = HttpFields.of(new HttpField(HttpHeader.CONNECTION, "a"), connection);
        assertTrue(fields.containsToken(HttpHeader.CONNECTION, "close"));
    }

    @Test
    void fieldsKnowTheirHeaderWhateverTheCase() {
        HttpField field = new HttpField("cOnTeNt-LeNgTh", "5");
        assertTrue(field.is(HttpHeader.CONTENT_LENGTH));
        assertEquals("content-length", field.lowerCaseName());
        assertEquals("x-custom", new HttpField("X-Custom", "v").lowerCaseName());
        assertEquals(new HttpField("content-length", "5"), new HttpField(HttpHeader.CONTENT_LENGTH, "5"));
        assertNotEquals(new HttpField("X-A", "5"), new HttpField("X-A", "6"));
        assertEquals(new HttpField("x-a", "5").hashCode(), new HttpField("X-A", "5").hashCode());
        assertThrows(IllegalArgumentException.class, () -> new HttpField("", "v"));
    }

    @Test
    void preEncodedFieldsCacheTheirBytes() {
        PreEncodedHttpField field = new PreEncodedHttpField(HttpHeader.SERVER, "Quarry");
        ByteBuffer out = ByteBuffer.allocate(32);
        field.writeTo(out);
        assertEquals("Server: Quarry\r\n", new String(out.array(), 0, out.position(), StandardCharsets.US_ASCII));
        assertEquals(16, field.encodedLength());
        assertTrue(field.is(HttpHeader.SERVER));
        assertTrue(new PreEncodedHttpField("x-a", "b").header().isEmpty());
    }
}
