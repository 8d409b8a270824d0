package dev.quarry.bench.peers;

import java.nio.ByteBuffer;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.eclipse.jetty.http2.HTTP2Cipher;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Jetty 12 core with its default thread pool and connector sizing, HTTP/1.1 and h2c on one connector, and a
 * non-blocking handler that writes a pre-encoded body with pre-encoded header fields. With TLS options the connector
 * speaks TLS (the JDK's provider) and offers h2 and http/1.1 by ALPN, as Jetty's documentation sets it up.
 *
 * <p>The {@linkplain #startVirtualThreads virtual-thread variant} ({@code jetty-vt}) is Jetty as a blocking application
 * runs on it: a {@link QueuedThreadPool} whose virtual-threads executor is
 * {@link Executors#newVirtualThreadPerTaskExecutor()}, and a handler that is not {@code NonBlocking}, so that Jetty's
 * execution strategy hands each request to a new virtual thread, where the handler writes with a blocking write.
 *
 * <p>Thread-safe: Jetty's {@link Server} does its own locking; {@link #close()} may be called from any thread.
 */
final class JettyPeer implements PeerServer {
    private final Server server;
    private final ServerConnector connector;
    private final boolean secure;
    private final BlockingPlaintextHandler blockingHandler;

    private JettyPeer(
            Server server, ServerConnector connector, boolean secure, BlockingPlaintextHandler blockingHandler) {
        this.server = server;
        this.connector = connector;
        this.secure = secure;
        this.blockingHandler = blockingHandler;
    }

    static JettyPeer start(PeerOptions options, String serverName) throws Exception {
        return start(options, new Server(), new PlaintextHandler(serverName), null);
    }

    /**
     * Jetty with virtual threads for blocking work: the default {@link QueuedThreadPool} (selectors and non-blocking
     * tasks stay on its platform threads) given a virtual-thread-per-task executor, and the blocking
     * {@link BlockingPlaintextHandler}.
     */
    static JettyPeer startVirtualThreads(PeerOptions options, String serverName) throws Exception {
        QueuedThreadPool threads = new QueuedThreadPool();
        threads.setVirtualThreadsExecutor(Executors.newVirtualThreadPerTaskExecutor());
        BlockingPlaintextHandler handler = new BlockingPlaintextHandler(serverName);
        return start(options, new Server(threads), handler, handler);
    }

    private static JettyPeer start(
            PeerOptions options, Server server, Handler handler, BlockingPlaintextHandler blockingHandler)
            throws Exception {
        HttpConfiguration config = new HttpConfiguration();
        // The Server header is the handler's pre-encoded field; Jetty's own would add its version.
        config.setSendServerVersion(false);
        config.setSendDateHeader(true);
        ServerConnector connector =
                options.secure() ? tlsConnector(server, config, options.tls()) : cleartextConnector(server, config);
        connector.setHost(options.host());
        connector.setPort(options.port());
        connector.setIdleTimeout(options.idleTimeout().toMillis());
        server.addConnector(connector);
        server.setHandler(handler);
        server.setStopTimeout(1000);
        server.start();
        return new JettyPeer(server, connector, options.secure(), blockingHandler);
    }

    private static ServerConnector cleartextConnector(Server server, HttpConfiguration config) {
        // HttpConnection recognises both the HTTP/2 preface and "Upgrade: h2c" when an h2c factory is present.
        return new ServerConnector(
                server, new HttpConnectionFactory(config), new HTTP2CServerConnectionFactory(config));
    }

    private static ServerConnector tlsConnector(Server server, HttpConfiguration config, PeerOptions.Tls tls) {
        // No SNI host check: the benchmark's clients connect to 127.0.0.1, and a certificate for localhost is fine.
        config.addCustomizer(new SecureRequestCustomizer(false, false, -1, false));
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setKeyStorePath(tls.keystore().toAbsolutePath().toString());
        ssl.setKeyStorePassword(tls.password());
        ssl.setKeyStoreType("PKCS12");
        // HTTP/2 forbids some cipher suites: put the ones it accepts first, so that the JDK negotiates one of them.
        ssl.setCipherComparator(HTTP2Cipher.COMPARATOR);
        ALPNServerConnectionFactory alpn = new ALPNServerConnectionFactory("h2", "http/1.1");
        alpn.setDefaultProtocol("http/1.1");
        return new ServerConnector(
                server,
                new SslConnectionFactory(ssl, alpn.getProtocol()),
                alpn,
                new HTTP2ServerConnectionFactory(config),
                new HttpConnectionFactory(config));
    }

    @Override
    public int port() {
        return connector.getLocalPort();
    }

    @Override
    public String protocols() {
        return secure ? "TLS (jdk): h2, http/1.1 by ALPN" : "http/1.1, h2c (prior knowledge, upgrade)";
    }

    /** @return the requests the blocking handler ran on a platform thread (0 unless Jetty did not dispatch them) */
    long platformThreadRequests() {
        return blockingHandler == null ? 0 : blockingHandler.platformThreadRequests.sum();
    }

    /** @return the requests the blocking handler answered, or 0 without it */
    long blockingRequests() {
        return blockingHandler == null ? 0 : blockingHandler.requests.sum();
    }

    @Override
    public void close() {
        try {
            server.stop();
            server.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping " + this, e);
        } catch (Exception e) {
            throw new IllegalStateException("could not stop " + this, e);
        }
    }

    @Override
    public String toString() {
        return "JettyPeer[" + server.getState() + " " + connector + "]";
    }

    /**
     * Answers {@link Plaintext#PATH}; declines anything else, which Jetty turns into a 404. Non-blocking, so Jetty
     * runs it on the thread that parsed the request. Stateless: thread-safe, allocates only the buffer view.
     */
    static final class PlaintextHandler extends Handler.Abstract.NonBlocking {
        private static final PreEncodedHttpField CONTENT_TYPE =
                new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, Plaintext.CONTENT_TYPE);
        private static final PreEncodedHttpField CONTENT_LENGTH =
                new PreEncodedHttpField(HttpHeader.CONTENT_LENGTH, Integer.toString(Plaintext.bodyLength()));

        private final PreEncodedHttpField server;
        private final ByteBuffer body = Plaintext.bodyBuffer();

        PlaintextHandler(String serverName) {
            this.server = new PreEncodedHttpField(HttpHeader.SERVER, serverName);
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            if (!Plaintext.PATH.equals(request.getHttpURI().getPath())) {
                return false;
            }
            response.getHeaders().add(CONTENT_TYPE).add(server).add(CONTENT_LENGTH);
            response.write(true, body.slice(), callback);
            return true;
        }
    }

    /**
     * The same answer as {@link PlaintextHandler}, written the way a blocking application writes it: the handler is
     * not {@code NonBlocking} (its invocation type is {@code BLOCKING}), so Jetty runs it on a virtual thread when its
     * thread pool has a virtual-threads executor, and it waits for its write with a {@link Blocker} before completing
     * the request's callback. Counts the requests that ran on a platform thread, so that a test can check that the
     * benchmark measures what it says. Thread-safe.
     */
    static final class BlockingPlaintextHandler extends Handler.Abstract {
        private final PreEncodedHttpField server;
        private final ByteBuffer body = Plaintext.bodyBuffer();
        final LongAdder requests = new LongAdder();
        final LongAdder platformThreadRequests = new LongAdder();

        BlockingPlaintextHandler(String serverName) {
            super(InvocationType.BLOCKING);
            this.server = new PreEncodedHttpField(HttpHeader.SERVER, serverName);
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            if (!Plaintext.PATH.equals(request.getHttpURI().getPath())) {
                return false;
            }
            requests.increment();
            if (!Thread.currentThread().isVirtual()) {
                platformThreadRequests.increment();
            }
            response.getHeaders().add(PlaintextHandler.CONTENT_TYPE).add(server).add(PlaintextHandler.CONTENT_LENGTH);
            try (Blocker.Callback written = Blocker.callback()) {
                response.write(true, body.slice(), written);
                written.block();
            }
            callback.succeeded();
            return true;
        }
    }
}
