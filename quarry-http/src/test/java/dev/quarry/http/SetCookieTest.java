package dev.quarry.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SetCookieTest {

    @Test
    void aCookieWithoutAttributesIsNameEqualsValue() {
        assertEquals("id=42", SetCookie.of("id", "42").toString());
        assertEquals("empty=", SetCookie.of("empty", "").toString());
        assertEquals("q=\"quoted\"", SetCookie.of("q", "\"quoted\"").toString());
    }

    @Test
    void writesEveryAttributeInOrder() {
        SetCookie cookie = SetCookie.builder("session", "abc")
                .domain("example.com")
                .path("/app")
                .maxAge(Duration.ofMinutes(90))
                .expires(Instant.parse("2030-01-02T03:04:05.678Z"))
                .secure(true)
                .httpOnly(true)
                .sameSite(SetCookie.SameSite.NONE)
                .partitioned(true)
                .build();
        assertEquals(
                "session=abc; Domain=example.com; Path=/app; Max-Age=5400; Expires=Wed, 02 Jan 2030 03:04:05 GMT;"
                        + " Secure; HttpOnly; SameSite=None; Partitioned",
                cookie.toString());
        assertEquals(Optional.of(Duration.ofSeconds(5400)), cookie.maxAge());
        assertEquals(Optional.of(Instant.parse("2030-01-02T03:04:05Z")), cookie.expires());
        assertTrue(cookie.secure() && cookie.httpOnly() && cookie.partitioned());
    }

    @Test
    void expiresIsAnImfFixdateWithATwoDigitDay() {
        assertEquals(
                "a=b; Expires=Sun, 06 Nov 1994 08:49:37 GMT",
                SetCookie.builder("a", "b")
                        .expires(Instant.parse("1994-11-06T08:49:37Z"))
                        .build()
                        .toString());
    }

    @Test
    void maxAgeZeroDeletesAndSameSiteValuesAreCapitalised() {
        assertEquals(
                "gone=; Path=/; Max-Age=0; SameSite=Strict",
                SetCookie.builder("gone", "")
                        .path("/")
                        .maxAge(Duration.ZERO)
                        .sameSite(SetCookie.SameSite.STRICT)
                        .build()
                        .toString());
        assertEquals("Lax", SetCookie.SameSite.LAX.attributeValue());
    }

    @Test
    void aLeadingDotOfTheDomainIsDropped() {
        assertEquals(
                Optional.of("example.com"),
                SetCookie.builder("a", "b").domain(".example.com").build().domain());
    }

    @Test
    void rejectsNamesThatAreNotTokens() {
        for (String name : new String[] {"", "a b", "a=b", "a;b", "a\"b", "caf\u00e9", "a\tb", "(x)"}) {
            IllegalArgumentException x =
                    assertThrows(IllegalArgumentException.class, () -> SetCookie.of(name, "v"), name);
            assertTrue(x.getMessage().contains("invalid cookie name"), x::getMessage);
        }
    }

    @Test
    void rejectsValuesWithCharactersOutsideCookieOctets() {
        for (String value :
                new String[] {"a b", "a;b", "a,b", "a\\b", "a\"b", "\"a", "caf\u00e9", "a\r\nSet-Cookie: x=1"}) {
            IllegalArgumentException x =
                    assertThrows(IllegalArgumentException.class, () -> SetCookie.of("n", value), value);
            assertTrue(x.getMessage().contains("in the value of cookie 'n'"), x::getMessage);
        }
    }

    @Test
    void rejectsInvalidDomainsAndPaths() {
        SetCookie.Builder b = SetCookie.builder("a", "b");
        for (String domain : new String[] {"", ".", "a..b", "-a.com", "a-.com", "a_b.com", "a.com;x", "a com"}) {
            assertThrows(IllegalArgumentException.class, () -> b.domain(domain), domain);
        }
        for (String path : new String[] {"", "relative", "/a;b", "/a\nb", "/caf\u00e9"}) {
            assertThrows(IllegalArgumentException.class, () -> b.path(path), path);
        }
    }

    @Test
    void rejectsNegativeMaxAgeAndUnwritableExpires() {
        SetCookie.Builder b = SetCookie.builder("a", "b");
        assertThrows(IllegalArgumentException.class, () -> b.maxAge(Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> b.expires(Instant.parse("+10000-01-01T00:00:00Z")));
        assertThrows(IllegalArgumentException.class, () -> b.expires(Instant.parse("1600-12-31T23:59:59Z")));
    }

    @Test
    void sameSiteNoneAndPartitionedRequireSecure() {
        IllegalArgumentException none = assertThrows(
                IllegalArgumentException.class,
                () -> SetCookie.builder("a", "b")
                        .sameSite(SetCookie.SameSite.NONE)
                        .build());
        assertTrue(none.getMessage().contains("SameSite=None without Secure"), none::getMessage);
        IllegalArgumentException partitioned = assertThrows(
                IllegalArgumentException.class,
                () -> SetCookie.builder("a", "b").partitioned(true).build());
        assertTrue(partitioned.getMessage().contains("Partitioned without Secure"), partitioned::getMessage);
    }

    @Test
    void cookiePrefixesAreEnforced() {
        assertThrows(IllegalArgumentException.class, () -> SetCookie.of("__Secure-id", "1"));
        assertFalse(SetCookie.builder("__Secure-id", "1").secure(true).build().httpOnly());
        assertThrows(
                IllegalArgumentException.class,
                () -> SetCookie.builder("__Host-id", "1").secure(true).build());
        assertThrows(
                IllegalArgumentException.class,
                () -> SetCookie.builder("__Host-id", "1")
                        .secure(true)
                        .path("/")
                        .domain("example.com")
                        .build());
        assertEquals(
                "__Host-id=1; Path=/; Secure",
                SetCookie.builder("__Host-id", "1")
                        .secure(true)
                        .path("/")
                        .build()
                        .toString());
    }
}
