package dev.quarry.client;

import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * How the client speaks TLS to {@code https} origins: the {@link SSLContext} (the JDK's default, which trusts the
 * JDK's CA certificates, unless the application gives its own) and whether the server's certificate must name the
 * host (RFC 9110 §4.3.4; on by default, as in every browser).
 *
 * <p>Each engine offers TLS 1.3 and 1.2 only, ALPN {@code h2} then {@code http/1.1} when the client speaks HTTP/2
 * ({@code http/1.1} alone otherwise), and the host name
 * as SNI unless the host is an IP literal (RFC 6066 §3 forbids literals there).
 *
 * <p>Thread-safety: immutable.
 */
final class ClientTls {
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};
    /** The ALPN name of HTTP/2 over TLS (RFC 9113 3.2). */
    static final String H2 = "h2";

    private static final String[] HTTP_1_1_ONLY = {"http/1.1"};
    private static final String[] H2_FIRST = {H2, "http/1.1"};

    private final SSLContext context;
    private final boolean verifyHostnames;
    private final String[] applicationProtocols;

    private ClientTls(SSLContext context, boolean verifyHostnames, boolean http2) {
        this.context = context;
        this.verifyHostnames = verifyHostnames;
        this.applicationProtocols = http2 ? H2_FIRST : HTTP_1_1_ONLY;
    }

    /**
     * @param context the application's context, or null for the JDK's default
     * @param verifyHostnames whether the server certificate must name the host
     * @param http2 whether ALPN offers {@code h2} before {@code http/1.1}
     */
    static ClientTls of(SSLContext context, boolean verifyHostnames, boolean http2) {
        if (context != null) {
            return new ClientTls(context, verifyHostnames, http2);
        }
        try {
            return new ClientTls(SSLContext.getDefault(), verifyHostnames, http2);
        } catch (NoSuchAlgorithmException x) {
            throw new IllegalStateException("the JDK has no default TLS context", x);
        }
    }

    /** @return a client engine for one connection to {@code origin}, its handshake not begun */
    SSLEngine newEngine(Origin origin) {
        Objects.requireNonNull(origin, "origin");
        SSLEngine engine = context.createSSLEngine(origin.host(), origin.port());
        engine.setUseClientMode(true);
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setProtocols(PROTOCOLS);
        parameters.setApplicationProtocols(applicationProtocols);
        if (verifyHostnames) {
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
        }
        if (isHostName(origin.host())) {
            parameters.setServerNames(List.of(new SNIHostName(origin.host())));
        }
        engine.setSSLParameters(parameters);
        return engine;
    }

    /** A host name, not an IPv4 or IPv6 literal (checked without a lookup). */
    private static boolean isHostName(String host) {
        if (host.indexOf(':') >= 0) {
            return false; // IPv6 literal
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (c != '.' && (c < '0' || c > '9')) {
                return !host.endsWith(".");
            }
        }
        return false; // IPv4 literal (digits and dots only)
    }

    @Override
    public String toString() {
        return "ClientTls{" + context.getProtocol() + ", verifyHostnames=" + verifyHostnames + ", alpn="
                + String.join(",", applicationProtocols) + "}";
    }
}
