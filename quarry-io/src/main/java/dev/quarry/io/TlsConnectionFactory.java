package dev.quarry.io;

import dev.quarry.core.buffer.ByteBufferPool;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import javax.net.ssl.SNIMatcher;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * Creates {@link TlsConnection}s for accepted endpoints, and after each handshake the connection of the protocol that
 * ALPN (RFC 7301) chose: the first of the {@code next} factories, in their order, whose {@link
 * ConnectionFactory#protocol()} the client offered ({@code h2} before {@code http/1.1}); the {@code fallback} when the
 * client offered none (a client without ALPN speaks HTTP/1.1). A client that offers only protocols we do not speak
 * gets the {@code no_application_protocol} alert.
 *
 * <p>Engines speak TLS 1.3 and 1.2 only, with the JDK's default cipher suites restricted to those with ephemeral key
 * exchange and AEAD encryption (GCM, ChaCha20-Poly1305): none of them is on the HTTP/2 block list (RFC 9113 §9.2.2,
 * Appendix A), so {@code h2} can be chosen whatever suite the handshake picks. The server's suite order wins.
 *
 * <p>The SSL context (the certificates) can be replaced while the connector runs ({@link #reload}): handshakes that
 * begin afterwards use the new one, connections made before keep the engine they have. SNI matchers set on every engine
 * make the engine refuse a server name none of them accepts with the {@code unrecognized_name} alert (RFC 6066 §3).
 *
 * <p>Thread-safety: any thread; the context and its matchers change together, in one volatile write.
 */
public final class TlsConnectionFactory implements ConnectionFactory {
    /** The TLS versions served. */
    public static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    /** The ALPN id of HTTP/1.0 (RFC 7301), accepted and served by the HTTP/1.1 fallback. */
    private static final String HTTP_1_0 = "http/1.0";

    private final ByteBufferPool buffers;
    private final Executor executor;
    private final Executor handshakes;
    private final List<ConnectionFactory> next;
    private final ConnectionFactory fallback;
    // Read once per accepted connection: a volatile read, the only cost reloading adds.
    private volatile Engines engines;

    /** What a new engine is made from; replaced whole by {@link #reload}. */
    private record Engines(
            SSLContext context, String[] protocols, String[] cipherSuites, List<SNIMatcher> sniMatchers) {}

    /**
     * @param context the server's SSL context (key managers with its certificate)
     * @param buffers the pool of the connections' buffers
     * @param executor wakes a connection's blocking reader when decrypted bytes are buffered already
     * @param handshakes TLS threads of their own: handshake steps and delegated tasks (blocking work), and wake-ups of
     *     non-blocking readers; best not the pool of blocking handlers, where blocked handlers would hold them up
     * @param next the protocols ALPN may choose, in the server's order of preference
     * @param fallback the protocol of clients that do not use ALPN
     */
    public TlsConnectionFactory(
            SSLContext context,
            ByteBufferPool buffers,
            Executor executor,
            Executor handshakes,
            List<ConnectionFactory> next,
            ConnectionFactory fallback) {
        this(context, List.of(), buffers, executor, handshakes, next, fallback);
    }

    /**
     * @param context the server's SSL context (key managers with its certificates)
     * @param sniMatchers the server names accepted (see {@link SSLParameters#setSNIMatchers}); empty to accept any
     * @param buffers the pool of the connections' buffers
     * @param executor wakes a connection's blocking reader when decrypted bytes are buffered already
     * @param handshakes TLS threads of their own: handshake steps and delegated tasks (blocking work), and wake-ups of
     *     non-blocking readers; best not the pool of blocking handlers, where blocked handlers would hold them up
     * @param next the protocols ALPN may choose, in the server's order of preference
     * @param fallback the protocol of clients that do not use ALPN
     */
    public TlsConnectionFactory(
            SSLContext context,
            List<SNIMatcher> sniMatchers,
            ByteBufferPool buffers,
            Executor executor,
            Executor handshakes,
            List<ConnectionFactory> next,
            ConnectionFactory fallback) {
        this.buffers = Objects.requireNonNull(buffers, "buffers");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.handshakes = Objects.requireNonNull(handshakes, "handshakes");
        this.next = List.copyOf(next);
        this.fallback = Objects.requireNonNull(fallback, "fallback");
        this.engines = engines(context, sniMatchers);
    }

    private static Engines engines(SSLContext context, List<SNIMatcher> sniMatchers) {
        Objects.requireNonNull(context, "context");
        String[] protocols = PROTOCOLS.stream()
                .filter(Arrays.asList(context.getSupportedSSLParameters().getProtocols())::contains)
                .toArray(String[]::new);
        if (protocols.length == 0) {
            throw new IllegalArgumentException("the SSL context supports neither TLSv1.3 nor TLSv1.2: " + context);
        }
        String[] cipherSuites =
                aeadCipherSuites(context.getDefaultSSLParameters().getCipherSuites());
        return new Engines(context, protocols, cipherSuites, List.copyOf(sniMatchers));
    }

    /**
     * Replaces the SSL context and the SNI matchers: handshakes that begin afterwards use them, connections made
     * before keep theirs. A new context also means a new session cache, so that no client resumes a session made
     * with the old certificates.
     *
     * @param context the new context
     * @param sniMatchers the server names accepted; empty to accept any
     * @throws IllegalArgumentException if the context supports neither TLS 1.3 nor 1.2 (the old one stays)
     */
    public void reload(SSLContext context, List<SNIMatcher> sniMatchers) {
        this.engines = engines(context, sniMatchers);
    }

    /** @return the SSL context new handshakes use */
    public SSLContext sslContext() {
        return engines.context();
    }

    /**
     * The suites HTTP/2 accepts: TLS 1.3's (all AEAD), and TLS 1.2's with ephemeral (EC)DH key exchange and AEAD
     * encryption; never static RSA key exchange nor CBC, which RFC 9113 blocks.
     *
     * @param suites candidate suites, in preference order
     * @return those kept, in the same order
     */
    public static String[] aeadCipherSuites(String[] suites) {
        List<String> kept = new ArrayList<>();
        for (String suite : suites) {
            boolean tls13 = suite.startsWith("TLS_AES_") || suite.startsWith("TLS_CHACHA20_");
            boolean ephemeral = suite.startsWith("TLS_ECDHE_") || suite.startsWith("TLS_DHE_");
            boolean aead = suite.contains("_GCM_") || suite.contains("_CHACHA20_POLY1305_");
            if (tls13 || (ephemeral && aead) || suite.equals("TLS_EMPTY_RENEGOTIATION_INFO_SCSV")) {
                kept.add(suite);
            }
        }
        return kept.toArray(String[]::new);
    }

    @Override
    public String protocol() {
        return "tls";
    }

    /** @return the protocols ALPN may choose, in order of preference */
    public List<String> applicationProtocols() {
        return next.stream().map(ConnectionFactory::protocol).toList();
    }

    @Override
    public Connection newConnection(ServerConnector connector, EndPoint endPoint) {
        SSLEngine engine = newEngine();
        return new TlsConnection(
                endPoint,
                engine,
                buffers,
                executor,
                handshakes,
                tls -> factoryFor(tls.applicationProtocol()).newConnection(connector, tls.decryptedEndPoint()));
    }

    /** @return a server engine configured as this class describes */
    SSLEngine newEngine() {
        Engines current = engines;
        SSLEngine engine = current.context().createSSLEngine();
        engine.setUseClientMode(false);
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setProtocols(current.protocols());
        parameters.setCipherSuites(current.cipherSuites());
        parameters.setUseCipherSuitesOrder(true);
        if (!current.sniMatchers().isEmpty()) {
            parameters.setSNIMatchers(current.sniMatchers());
        }
        engine.setSSLParameters(parameters);
        engine.setHandshakeApplicationProtocolSelector((unused, offered) -> select(offered));
        return engine;
    }

    /**
     * @return the chosen protocol; "" (no ALPN in the answer) when the client offered none; null when it offered only
     *     protocols we do not speak, which makes the engine send {@code no_application_protocol}
     */
    private String select(List<String> offered) {
        if (offered == null || offered.isEmpty()) {
            return "";
        }
        for (ConnectionFactory factory : next) {
            if (offered.contains(factory.protocol())) {
                return factory.protocol();
            }
        }
        // An HTTP/1.1 server serves HTTP/1.0 requests: a client that offers only "http/1.0" (curl --http1.0) gets it,
        // and speaks to the HTTP/1.1 connection, which answers 1.0 requests as RFC 9110 says.
        if (offered.contains(HTTP_1_0) && fallback.protocol().equals("http/1.1")) {
            return HTTP_1_0;
        }
        return null;
    }

    private ConnectionFactory factoryFor(String protocol) {
        for (ConnectionFactory factory : next) {
            if (factory.protocol().equals(protocol)) {
                return factory;
            }
        }
        return fallback;
    }

    @Override
    public String toString() {
        return "TlsConnectionFactory{" + String.join(",", engines.protocols()) + ", alpn=" + applicationProtocols()
                + "}";
    }
}
