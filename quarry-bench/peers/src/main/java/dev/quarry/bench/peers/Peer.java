package dev.quarry.bench.peers;

import java.util.Locale;

/**
 * The peer servers that Quarry is measured against, each serving {@link Plaintext} over HTTP/1.1 and, where the
 * framework can, h2c on the same port.
 *
 * <p>Immutable; thread-safe.
 */
public enum Peer {
    /**
     * Jetty 12 core: a non-blocking handler, HTTP/1.1 and h2c (prior knowledge and upgrade), or with TLS options h2
     * and HTTP/1.1 by ALPN over the JDK's TLS.
     */
    JETTY("jetty", "Jetty") {
        @Override
        public PeerServer start(PeerOptions options) throws Exception {
            if (options.secure() && options.tls().provider() != PeerOptions.TlsProvider.JDK) {
                throw new IllegalArgumentException(
                        "jetty serves TLS with the JDK's provider only (--tls-provider jdk)");
            }
            return JettyPeer.start(options, serverHeader());
        }
    },
    /**
     * Jetty 12 core with virtual threads: a blocking handler (not {@code NonBlocking}) that Jetty runs on a new virtual
     * thread per request, writing with a blocking write; cleartext only.
     */
    JETTY_VT("jetty-vt", "Jetty") {
        @Override
        public PeerServer start(PeerOptions options) throws Exception {
            requireCleartext(options);
            return JettyPeer.startVirtualThreads(options, serverHeader());
        }
    },
    /**
     * Netty 4.2 on the JDK's NIO transport (the one the goals compare with, like Quarry's and Jetty's); with TLS
     * options h2 and HTTP/1.1 by ALPN over the JDK's TLS or, with {@code --tls-provider openssl}, BoringSSL.
     */
    NETTY("netty", "Netty") {
        @Override
        public PeerServer start(PeerOptions options) throws Exception {
            return NettyPeer.start(options, NettyTransport.NIO, serverHeader());
        }
    },
    /** Netty 4.2 on its native epoll transport (the fastest Netty; TechEmpower's Netty entry runs on it). */
    NETTY_EPOLL("netty-epoll", "Netty") {
        @Override
        public PeerServer start(PeerOptions options) throws Exception {
            return NettyPeer.start(options, NettyTransport.EPOLL, serverHeader());
        }
    },
    /** Vert.x 5 core on Netty's native epoll transport, the handler on the event loops. */
    VERTX("vertx", "Vert.x") {
        @Override
        public PeerServer start(PeerOptions options) throws Exception {
            requireCleartext(options);
            return VertxPeer.start(options, serverHeader());
        }
    },
    /** Undertow 2.3: the handler runs in the I/O thread; h2c by upgrade and prior knowledge. */
    UNDERTOW("undertow", "Undertow") {
        @Override
        public PeerServer start(PeerOptions options) throws Exception {
            requireCleartext(options);
            return UndertowPeer.start(options, serverHeader());
        }
    },
    /** Helidon 4 SE: a routing on virtual threads; h2c through the HTTP/2 module. */
    HELIDON("helidon", "Helidon") {
        @Override
        public PeerServer start(PeerOptions options) throws Exception {
            requireCleartext(options);
            return HelidonPeer.start(options, serverHeader());
        }
    };

    private final String id;
    private final String serverHeader;

    /** Refuses TLS options for a peer that has no TLS set-up here, rather than serving cleartext on the port. */
    void requireCleartext(PeerOptions options) {
        if (options.secure()) {
            throw new IllegalArgumentException(id + " has no TLS set-up in this module (jetty and netty have)");
        }
    }

    Peer(String id, String serverHeader) {
        this.id = id;
        this.serverHeader = serverHeader;
    }

    /** @return the name on the command line, e.g. {@code netty-epoll} */
    public String id() {
        return id;
    }

    /** @return the value of the {@code Server} header the peer sends */
    public String serverHeader() {
        return serverHeader;
    }

    /**
     * Starts the peer and returns once it accepts connections.
     *
     * @param options where to listen
     * @return the running server
     * @throws Exception whatever the framework throws when it cannot start
     */
    public abstract PeerServer start(PeerOptions options) throws Exception;

    /**
     * @param id a name as printed by {@link #id()}
     * @return the peer of that name
     * @throws IllegalArgumentException naming the unknown peer and the known ones
     */
    public static Peer of(String id) {
        for (Peer peer : values()) {
            if (peer.id.equals(id.toLowerCase(Locale.ROOT))) {
                return peer;
            }
        }
        StringBuilder known = new StringBuilder();
        for (Peer peer : values()) {
            known.append(known.isEmpty() ? "" : "|").append(peer.id);
        }
        throw new IllegalArgumentException("unknown peer '" + id + "' (expected " + known + ")");
    }
}
