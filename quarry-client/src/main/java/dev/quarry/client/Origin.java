package dev.quarry.client;

import java.net.URI;
import java.util.Locale;
import java.util.Objects;

/**
 * Where requests go: a scheme, a host and a port (RFC 9110 §4.3.1). The client keeps one destination, with its
 * connection pool, per origin, so that {@code http://example.com/a} and {@code http://example.com:80/b} share
 * connections.
 *
 * <p>Thread-safety: immutable.
 *
 * @param scheme {@code http} or {@code https} (lower case)
 * @param host the host name or IP literal, lower case, without brackets
 * @param port the port, 1 to 65535
 */
public record Origin(String scheme, String host, int port) {

    /** Validates and normalises the parts. */
    public Origin {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(host, "host");
        scheme = scheme.toLowerCase(Locale.ROOT);
        host = host.toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("empty host");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }

    /**
     * The origin of an absolute URI.
     *
     * @param uri an absolute {@code http} or {@code https} URI with a host
     * @return its origin; the port defaults to 80 ({@code http}) or 443 ({@code https})
     * @throws IllegalArgumentException if the URI is not absolute, has no host, or its scheme is neither {@code http}
     *     nor {@code https}
     */
    public static Origin of(URI uri) {
        String scheme = uri.getScheme();
        if (scheme == null) {
            throw new IllegalArgumentException("not an absolute URI: " + uri);
        }
        boolean secure = scheme.equalsIgnoreCase("https");
        if (!secure && !scheme.equalsIgnoreCase("http")) {
            throw new IllegalArgumentException(
                    "unsupported scheme '" + scheme + "' in " + uri + " (only http and https)");
        }
        String host = uri.getHost();
        if (host == null) {
            throw new IllegalArgumentException("no host in " + uri);
        }
        int port = uri.getPort();
        return new Origin(scheme, host, port < 0 ? defaultPort(secure) : port);
    }

    private static int defaultPort(boolean secure) {
        return secure ? 443 : 80;
    }

    /** @return whether requests to this origin go over TLS ({@code https}) */
    public boolean isSecure() {
        return scheme.equals("https");
    }

    /** @return the value of the {@code Host} field for this origin: the port is omitted when it is the default */
    public String authority() {
        String name = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        return port == defaultPort(isSecure()) ? name : name + ":" + port;
    }

    @Override
    public String toString() {
        return scheme + "://" + authority();
    }
}
