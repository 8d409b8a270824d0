package dev.quarry.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CookiesTest {

    @Test
    void parsesPairsSeparatedBySemicolonsInOrder() {
        Map<String, String> cookies = Cookies.parse("session=abc; theme=dark;lang=en");
        assertEquals(List.of("session", "theme", "lang"), List.copyOf(cookies.keySet()));
        assertEquals("abc", cookies.get("session"));
        assertEquals("dark", cookies.get("theme"));
        assertEquals("en", cookies.get("lang"));
    }

    @Test
    void readsEveryCookieFieldLine() {
        // HTTP/2 sends one cookie per field line (RFC 9113 §8.2.3).
        assertEquals(Map.of("a", "1", "b", "2", "c", "3"), Cookies.parse(List.of("a=1", "b=2; c=3")));
    }

    @Test
    void unquotesQuotedValuesAndTrimsWhitespace() {
        Map<String, String> cookies = Cookies.parse("  a = \"quoted value\" ;\tb=\"\"; c=\"");
        assertEquals("quoted value", cookies.get("a"));
        assertEquals("", cookies.get("b"));
        assertEquals("\"", cookies.get("c"), "a lone quote is not a quoted string: kept");
    }

    @Test
    void keepsValuesAsSentWithoutPercentDecoding() {
        Map<String, String> cookies = Cookies.parse("a=x%20y; b=base64==; c=has space; d=");
        assertEquals("x%20y", cookies.get("a"));
        assertEquals("base64==", cookies.get("b"), "only the first '=' separates");
        assertEquals("has space", cookies.get("c"));
        assertEquals("", cookies.get("d"));
    }

    @Test
    void skipsMalformedPairsInsteadOfFailing() {
        Map<String, String> cookies = Cookies.parse(
                "novalue; =empty-name; bad name=1; bad(name)=2; ctl=a\u0001b; ;; ok=yes; \u00e9t\u00e9=3");
        assertEquals(Map.of("ok", "yes"), cookies);
    }

    @Test
    void theFirstOfARepeatedNameWins() {
        // RFC 6265 §5.4: the cookie with the longest path comes first.
        assertEquals("specific", Cookies.parse("id=specific; id=general").get("id"));
    }

    @Test
    void noFieldIsNoCookie() {
        assertEquals(Map.of(), Cookies.parse(List.of()));
        assertEquals(Map.of(), Cookies.parse(""));
    }

    @Test
    void resultIsUnmodifiable() {
        assertThrows(
                UnsupportedOperationException.class, () -> Cookies.parse("a=1").put("b", "2"));
    }
}
