package dev.quarry.client;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * An HTTP proxy that the client sends its requests through ({@link HttpClient.Builder#proxy(HttpProxy)}), as curl's
 * {@code -x} does: {@code https} requests through a tunnel that a {@code CONNECT host:port} opens (RFC 9110 §9.3.6),
 * with TLS end to end to the origin over it; {@code http} requests in absolute-form ({@code GET http://host/path},
 * RFC 9112 §3.2.2), which the proxy forwards.
 *
 * <pre>{@code
 * HttpProxy proxy = HttpProxy.of("proxy.internal", 3128)
 *         .basicAuth("user", "secret")
 *         .bypass("localhost", "127.0.0.1", "*.internal");
 * }</pre>
 *
 * <p>Thread-safety: immutable.
 */
public final class HttpProxy {
    private final String host;
    private final int port;
    private final String authorization;
    private final List<String> bypass;

    private HttpProxy(String host, int port, String authorization, List<String> bypass) {
        this.host = host;
        this.port = port;
        this.authorization = authorization;
        this.bypass = bypass;
    }

    /**
     * @param host the proxy's host name or IP literal
     * @param port its port, 1 to 65535
     * @return a proxy for every origin, without credentials
     */
    public static HttpProxy of(String host, int port) {
        Objects.requireNonNull(host, "host");
        if (host.isEmpty()) {
            throw new IllegalArgumentException("empty proxy host");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("proxy port out of range: " + port);
        }
        return new HttpProxy(host, port, null, List.of());
    }

    /**
     * @param user the user name, without {@code :}
     * @param password the password
     * @return this proxy, sending {@code Proxy-Authorization: Basic ...} (RFC 7617) with each {@code CONNECT} and each
     *     forwarded {@code http} request. Basic credentials are readable by anyone on the way to the proxy: use it on
     *     trusted networks
     */
    public HttpProxy basicAuth(String user, String password) {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        if (user.indexOf(':') >= 0) {
            throw new IllegalArgumentException("a Basic user name has no ':': '" + user + "'");
        }
        String token = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return new HttpProxy(host, port, "Basic " + token, bypass);
    }

    /**
     * @param hosts hosts reached directly, not through the proxy: a name or IP literal matches itself (ignoring case);
     *     {@code *.example.com} or {@code .example.com} matches every name under {@code example.com}
     * @return this proxy, with those hosts (in place of earlier ones)
     */
    public HttpProxy bypass(String... hosts) {
        List<String> list = List.of(hosts).stream()
                .map(h -> h.strip().toLowerCase(Locale.ROOT))
                .map(h -> h.startsWith("*.") ? h.substring(1) : h)
                .toList();
        return new HttpProxy(host, port, authorization, list);
    }

    /** @return the proxy's host */
    public String host() {
        return host;
    }

    /** @return the proxy's port */
    public int port() {
        return port;
    }

    /** @return the {@code Proxy-Authorization} value, if credentials were given */
    public Optional<String> authorization() {
        return Optional.ofNullable(authorization);
    }

    /** @return the {@code Proxy-Authorization} value, or null */
    String authorizationOrNull() {
        return authorization;
    }

    /** @return whether requests to {@code origin} go through this proxy (its host is not bypassed) */
    public boolean appliesTo(Origin origin) {
        String target = origin.host();
        for (String pattern : bypass) {
            if (pattern.startsWith(".") ? target.endsWith(pattern) : target.equals(pattern)) {
                return false;
            }
        }
        return true;
    }

    /** @return {@code host:port}, as in messages (never the credentials) */
    @Override
    public String toString() {
        String name = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
        return name + ":" + port;
    }
}
