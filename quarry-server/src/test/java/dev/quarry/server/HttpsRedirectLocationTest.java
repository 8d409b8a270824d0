package dev.quarry.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** Where {@link HttpsRedirect} sends a request: the same host and path, the HTTPS port. */
class HttpsRedirectLocationTest {
    private static final InetSocketAddress LOCAL = new InetSocketAddress("127.0.0.1", 80);

    @Test
    void theStandardHttpsPortIsLeftOut() {
        assertEquals("https://example.com/a?b=1", HttpsRedirect.location("example.com:80", LOCAL, "/a?b=1", 443));
    }

    @Test
    void anotherPortReplacesTheClearTextOne() {
        assertEquals("https://example.com:8443/", HttpsRedirect.location("example.com:8080", LOCAL, "/", 8443));
        assertEquals("https://[2001:db8::1]:8443/", HttpsRedirect.location("[2001:db8::1]:8080", LOCAL, "/", 8443));
    }

    @Test
    void anAbsoluteFormTargetKeepsOnlyItsPathAndQuery() {
        assertEquals(
                "https://example.com/p?q", HttpsRedirect.location("example.com", LOCAL, "http://example.com/p?q", 443));
        assertEquals(
                "https://example.com/?q", HttpsRedirect.location("example.com", LOCAL, "http://example.com?q", 443));
        assertEquals("https://example.com/", HttpsRedirect.location("example.com", LOCAL, "*", 443));
    }

    @Test
    void aHostThatCannotBeInAUrlIsRefused() {
        assertNull(HttpsRedirect.location("exa mple.com", LOCAL, "/", 443));
        assertNull(HttpsRedirect.location("example.com/evil", LOCAL, "/", 443));
    }
}
