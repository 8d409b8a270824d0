package dev.quarry.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class QueryParametersTest {

    @Test
    void parsesRepeatedNamesInOrder() {
        QueryParameters q = QueryParameters.parse("a=1&b=2&a=3");
        assertEquals(List.of("1", "3"), q.getAll("a"));
        assertEquals(Optional.of("1"), q.get("a"));
        assertEquals(List.of("a", "b"), List.copyOf(q.names()));
        assertEquals(3, q.size());
    }

    @Test
    void decodesPlusAndPercentAsUtf8() {
        QueryParameters q = QueryParameters.parse("a+b=c%20d&euro=%E2%82%AC&slash=%2F&raw=\u00e9");
        assertEquals(Optional.of("c d"), q.get("a b"));
        assertEquals(Optional.of("\u20ac"), q.get("euro"));
        assertEquals(Optional.of("/"), q.get("slash"));
        assertEquals(Optional.of("\u00e9"), q.get("raw"));
    }

    @Test
    void missingValuesAndEmptyPairs() {
        QueryParameters q = QueryParameters.parse("flag&&=x&y=");
        assertEquals(Optional.of(""), q.get("flag"));
        assertEquals(Optional.of("x"), q.get(""));
        assertEquals(Optional.of(""), q.get("y"));
        assertEquals(3, q.size());
        assertTrue(QueryParameters.parse("").names().isEmpty());
        assertEquals(List.of(), q.getAll("absent"));
    }

    @Test
    void limitsTheNumberOfParameters() {
        assertEquals(2, QueryParameters.parse("a=1&b=2", 2).size());
        BadMessageException x = assertThrows(BadMessageException.class, () -> QueryParameters.parse("a=1&b=2&c=3", 2));
        assertTrue(x.reason().contains("too many query parameters: more than 2"));
    }

    @Test
    void rejectsMalformedEncodings() {
        for (String query : new String[] {"a=%zz", "a=%2", "a=%", "%C0%AE=1", "a=%FF"}) {
            BadMessageException x = assertThrows(BadMessageException.class, () -> QueryParameters.parse(query), query);
            assertEquals(400, x.status());
            assertTrue(x.reason().contains("in query"), x::reason);
        }
    }

    @Test
    void resultIsUnmodifiable() {
        QueryParameters q = QueryParameters.parse("a=1");
        assertThrows(UnsupportedOperationException.class, () -> q.getAll("a").add("2"));
        assertThrows(UnsupportedOperationException.class, () -> q.asMap().clear());
    }
}
