package dev.quarry.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HttpUriTest {

    @Test
    void originFormSplitsPathAndQuery() {
        HttpUri uri = HttpUri.parse("GET", "/a/../b%20c?x=%2F&y");
        assertEquals(HttpUri.Form.ORIGIN, uri.form());
        assertEquals("/a/../b%20c", uri.rawPath());
        assertEquals("/b c", uri.path());
        assertEquals(Optional.of("x=%2F&y"), uri.query());
        assertEquals(
                "/", QueryParameters.parse(uri.query().orElseThrow()).get("x").orElseThrow());
        assertTrue(uri.scheme().isEmpty() && uri.authority().isEmpty());
    }

    @Test
    void queryDoesNotHideAnEncodedSlashInThePath() {
        assertEquals("/a", HttpUri.parse("GET", "/a?b=%2F").path());
        assertThrows(BadMessageException.class, () -> HttpUri.parse("GET", "/a%2F?b"));
    }

    @Test
    void absoluteFormHasSchemeAuthorityPathAndQuery() {
        HttpUri uri = HttpUri.parse("GET", "HTTP://Example.com:8080/p/./q?z=1");
        assertEquals(HttpUri.Form.ABSOLUTE, uri.form());
        assertEquals(Optional.of("http"), uri.scheme());
        assertEquals(new HostPort("Example.com", 8080), uri.authority().orElseThrow());
        assertEquals("/p/q", uri.path());
        assertEquals(Optional.of("z=1"), uri.query());
    }

    @Test
    void absoluteFormWithoutPathHasRootPath() {
        HttpUri uri = HttpUri.parse("GET", "http://example.com");
        assertEquals("/", uri.path());
        assertEquals(-1, uri.authority().orElseThrow().port());
        assertEquals("/", HttpUri.parse("GET", "http://example.com?q").path());
    }

    @Test
    void authorityFormForConnect() {
        HttpUri uri = HttpUri.parse("CONNECT", "[::1]:443");
        assertEquals(HttpUri.Form.AUTHORITY, uri.form());
        assertEquals(new HostPort("[::1]", 443), uri.authority().orElseThrow());
        assertEquals("", uri.path());
    }

    @Test
    void asteriskFormForOptions() {
        HttpUri uri = HttpUri.parse("OPTIONS", "*");
        assertEquals(HttpUri.Form.ASTERISK, uri.form());
        assertEquals("*", uri.path());
    }

    @ParameterizedTest(name = "{0} {1}: {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "GET|*|only for OPTIONS",
                "OPTIONS|*x|invalid request target",
                "CONNECT|/a|CONNECT needs an authority-form target",
                "CONNECT|example.com|needs host:port",
                "CONNECT|:443|needs host:port",
                "CONNECT|u@h:443|user information",
                "GET|http://u@h/|user information",
                "GET|http:///p|empty host",
                "GET|https://:443/p|empty host",
                "GET|http:/p|without authority",
                "GET|example.com:80|absolute-form target without authority",
                "GET|1http://h/|neither origin-form nor absolute-form",
                "GET|/a#frag|fragment",
                "GET|http://h:70000/|port out of range",
                "GET|http://h/%2e%2e/|encoded dot segment",
                "GET|/a?b c|invalid character SP in query",
            })
    void rejectsTargetsThatFitNoFormForTheMethod(String method, String target, String reason) {
        BadMessageException x = assertThrows(BadMessageException.class, () -> HttpUri.parse(method, target));
        assertEquals(400, x.status());
        assertTrue(x.reason().contains(reason), () -> "\"" + x.reason() + "\" does not name \"" + reason + "\"");
    }

    @Test
    void compliancePassesToThePath() {
        assertThrows(BadMessageException.class, () -> HttpUri.parse("GET", "/a%2541"));
        assertEquals(
                "/a%41", HttpUri.parse("GET", "/a%2541", UriCompliance.LEGACY).path());
    }
}
