package dev.quarry.client;

import dev.quarry.http.HttpHeader;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.CookieManager;
import java.net.CookiePolicy;
import java.net.CookieStore;
import java.util.List;
import java.util.Map;

/**
 * Cookies (RFC 6265) for a client that was given a {@link CookieStore}: the JDK's {@link CookieManager} parses
 * {@code Set-Cookie} and decides which cookies a request gets (domain, path, {@code Secure}, expiry), with the policy
 * {@link CookiePolicy#ACCEPT_ORIGINAL_SERVER} (a host cannot set cookies for another).
 *
 * <p>Thread-safety: as the store (the JDK's in-memory store takes a lock): called on the application's thread to
 * make a request's {@code Cookie}, and on a virtual thread of the client to store a response's cookies; never on a
 * selector thread.
 */
final class Cookies {
    private static final System.Logger LOG = System.getLogger(Cookies.class.getName());

    private final CookieManager manager;

    Cookies(CookieStore store) {
        this.manager = new CookieManager(store, CookiePolicy.ACCEPT_ORIGINAL_SERVER);
    }

    /**
     * @return the {@code Cookie} value for the request: its own {@code Cookie} fields, then the stored cookies that
     *     match its URI, separated by {@code "; "} (RFC 6265 §5.4: one field); null if there is none of either
     */
    String header(HttpRequest request) {
        StringBuilder value = new StringBuilder();
        for (String own : request.headers().getAll(HttpHeader.COOKIE)) {
            append(value, own);
        }
        int own = value.length();
        try {
            for (List<String> cookies : manager.get(request.uri(), Map.of()).values()) {
                for (String cookie : cookies) {
                    append(value, cookie);
                }
            }
        } catch (IOException | RuntimeException x) {
            // The application's store failed: the request goes without its cookies rather than not at all.
            LOG.log(Level.WARNING, "no cookies for {0}: the cookie store failed: {1}", request, x);
        }
        // Without stored cookies, the request's own field goes as it is.
        return value.length() == own ? null : value.toString();
    }

    private static void append(StringBuilder value, String cookie) {
        if (cookie.isEmpty()) {
            return;
        }
        if (!value.isEmpty()) {
            value.append("; ");
        }
        value.append(cookie);
    }

    /** Stores the cookies that the response sets, if any. */
    void store(HttpResponse response) {
        List<String> set = response.headers().getAll(HttpHeader.SET_COOKIE);
        if (set.isEmpty()) {
            return;
        }
        try {
            manager.put(response.request().uri(), Map.of("Set-Cookie", set));
        } catch (IOException | RuntimeException x) {
            // Invalid Set-Cookie values are skipped by the CookieManager itself: this is the store failing.
            LOG.log(Level.WARNING, "cookies of {0} not stored: the cookie store failed: {1}", response.request(), x);
        }
    }
}
