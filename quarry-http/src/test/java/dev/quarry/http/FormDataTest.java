package dev.quarry.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class FormDataTest {

    @Test
    void parsesRepeatedNamesInOrder() {
        FormData form = FormData.parse("a=1&b=2&a=3");
        assertEquals(List.of("1", "3"), form.getAll("a"));
        assertEquals(Optional.of("2"), form.get("b"));
        assertEquals(List.of("a", "b"), List.copyOf(form.names()));
        assertEquals(3, form.size());
    }

    @Test
    void decodesPlusAsSpaceAndPercentEscapesWithTheCharset() {
        FormData form = FormData.parse("first+name=Ada+Lovelace&euro=%E2%82%AC&plus=%2B&amp=%26");
        assertEquals(Optional.of("Ada Lovelace"), form.get("first name"));
        assertEquals(Optional.of("\u20ac"), form.get("euro"));
        assertEquals(Optional.of("+"), form.get("plus"));
        assertEquals(Optional.of("&"), form.get("amp"));

        byte[] latin1 = "caf%E9=%E9t%E9".getBytes(StandardCharsets.US_ASCII);
        FormData form1 = FormData.parse(latin1, 0, latin1.length, StandardCharsets.ISO_8859_1, 10);
        assertEquals(Optional.of("\u00e9t\u00e9"), form1.get("caf\u00e9"));
    }

    @Test
    void parsesASliceOfAnArray() {
        byte[] bytes = "xxa=1&b=2yy".getBytes(StandardCharsets.US_ASCII);
        FormData form = FormData.parse(bytes, 2, 7, StandardCharsets.UTF_8, 10);
        assertEquals(Optional.of("1"), form.get("a"));
        assertEquals(Optional.of("2"), form.get("b"));
    }

    @Test
    void missingValuesAndEmptyPairs() {
        FormData form = FormData.parse("flag&&=x&y=&");
        assertEquals(Optional.of(""), form.get("flag"));
        assertEquals(Optional.of("x"), form.get(""));
        assertEquals(Optional.of(""), form.get("y"));
        assertEquals(3, form.size());
        assertEquals(0, FormData.parse("").size());
    }

    @Test
    void malformedPercentEscapesAre400NamingThePair() {
        for (String body : new String[] {"a=%zz", "a=%2", "a=%", "ok=1&b%=1", "a=%C3%28", "a=%FF"}) {
            BadMessageException x = assertThrows(BadMessageException.class, () -> FormData.parse(body), body);
            assertEquals(400, x.status());
            assertTrue(x.reason().contains("in form field"), x::reason);
            assertTrue(!x.reason().contains("ok=1"), () -> "quotes only the offending pair: " + x.reason());
        }
    }

    @Test
    void moreFieldsThanTheLimitIs413() {
        byte[] bytes = "a=1&b=2&c=3".getBytes(StandardCharsets.US_ASCII);
        assertEquals(2, FormData.parse(bytes, 0, 7, StandardCharsets.UTF_8, 2).size());
        HttpException x = assertThrows(
                HttpException.class, () -> FormData.parse(bytes, 0, bytes.length, StandardCharsets.UTF_8, 2));
        assertEquals(413, x.status());
        assertTrue(x.reason().contains("too many form fields: more than 2"), x::reason);
    }

    @Test
    void resultIsUnmodifiable() {
        FormData form = FormData.parse("a=1");
        assertThrows(UnsupportedOperationException.class, () -> form.getAll("a").add("2"));
        assertThrows(UnsupportedOperationException.class, () -> form.asMap().clear());
    }
}
