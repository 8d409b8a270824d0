package dev.quarry.server.test;

import dev.quarry.server.Server;
import dev.quarry.server.ServerBuilder;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * The transports a server test runs over. Each one adds its listener to a {@link ServerBuilder} and opens client
 * connections to it. The TLS transports serve HTTPS with the {@linkplain TestCertificates#ec() test certificate},
 * generated once per JVM, and their clients trust it. Tests that take a {@code Transport} parameter ({@code @MethodSource("dev.quarry.server.test.Transport#http1")}) run over
 * the byte-stream transports with raw HTTP/1.1 ({@link #http1()}); tests that take a {@link Setup} run over every
 * transport, HTTP/2 included, through a protocol-neutral {@link HttpTestClient}, with virtual threads on and off.
 */
public enum Transport {
    /** HTTP/1.1 over TCP on 127.0.0.1 and a free port. */
    TCP {
        @Override
        public void listen(ServerBuilder builder, Path directory) {
            builder.http("127.0.0.1", 0);
        }

        @Override
        public SocketAddress address(Server server) {
            return new InetSocketAddress("127.0.0.1", server.port());
        }

        @Override
        SocketChannel open() throws java.io.IOException {
            return SocketChannel.open(StandardProtocolFamily.INET);
        }

        @Override
        public boolean isTcp() {
            return true;
        }
    },

    /** HTTP/1.1 over a Unix-domain socket in the test's temporary directory. */
    UNIX {
        @Override
        public void listen(ServerBuilder builder, Path directory) {
            builder.unix(directory.resolve("quarry.sock"));
        }

        @Override
        public SocketAddress address(Server server) {
            return server.connectors().get(0).boundAddress().orElseThrow();
        }

        @Override
        SocketChannel open() throws java.io.IOException {
            return SocketChannel.open(StandardProtocolFamily.UNIX);
        }

        @Override
        public boolean isTcp() {
            return false;
        }
    },

    /** HTTP/2 by prior knowledge (h2c) over TCP, on the port that also serves HTTP/1.1. */
    H2C {
        @Override
        public void listen(ServerBuilder builder, Path directory) {
            builder.http("127.0.0.1", 0);
        }

        @Override
        public SocketAddress address(Server server) {
            return new InetSocketAddress("127.0.0.1", server.port());
        }

        @Override
        SocketChannel open() throws java.io.IOException {
            return SocketChannel.open(StandardProtocolFamily.INET);
        }

        @Override
        public boolean isTcp() {
            return true;
        }

        @Override
        public boolean http2() {
            return true;
        }
    },

    /** HTTP/1.1 over TLS (HTTPS), chosen by ALPN, on 127.0.0.1 and a free port, with the test certificate. */
    TLS {
        @Override
        public void listen(ServerBuilder builder, Path directory) {
            listenHttps(builder);
        }

        @Override
        public SocketAddress address(Server server) {
            return new InetSocketAddress("127.0.0.1", server.port());
        }

        @Override
        SocketChannel open() throws java.io.IOException {
            return SocketChannel.open(StandardProtocolFamily.INET);
        }

        @Override
        public boolean isTcp() {
            return true;
        }

        @Override
        public boolean isTls() {
            return true;
        }
    },

    /** HTTP/2 over TLS, chosen by ALPN ({@code h2}), on the HTTPS port that also serves HTTP/1.1. */
    TLS_H2 {
        @Override
        public void listen(ServerBuilder builder, Path directory) {
            listenHttps(builder);
        }

        @Override
        public SocketAddress address(Server server) {
            return new InetSocketAddress("127.0.0.1", server.port());
        }

        @Override
        SocketChannel open() throws java.io.IOException {
            return SocketChannel.open(StandardProtocolFamily.INET);
        }

        @Override
        public boolean isTcp() {
            return true;
        }

        @Override
        public boolean isTls() {
            return true;
        }

        @Override
        public boolean http2() {
            return true;
        }
    };

    private static void listenHttps(ServerBuilder builder) {
        TestCertificates certificates = TestCertificates.ec();
        builder.https("127.0.0.1", 0, tls -> tls.keyStore(certificates.keyStore(), TestCertificates.PASSWORD));
    }

    /** @return whether clients speak TLS (with the {@link TestCertificates#ec() test certificate}) over this transport */
    public boolean isTls() {
        return false;
    }

    /** @return the client TLS context of this transport's certificate; only for {@link #isTls()} transports */
    public javax.net.ssl.SSLContext clientTls() {
        return TestCertificates.ec().clientContext();
    }

    /** @return whether clients speak HTTP/2 over this transport (else HTTP/1.1) */
    public boolean http2() {
        return false;
    }

    /** @return the transports that carry raw HTTP/1.1, for the tests of HTTP/1.1 itself */
    public static java.util.List<Transport> http1() {
        return java.util.Arrays.stream(values()).filter(t -> !t.http2()).toList();
    }

    /**
     * Adds this transport's listener.
     *
     * @param builder the server's builder
     * @param directory a temporary directory owned by the test (for socket files)
     */
    public abstract void listen(ServerBuilder builder, Path directory);

    /**
     * @param server a started server configured by {@link #listen}
     * @return the address clients connect to
     */
    public abstract SocketAddress address(Server server);

    /** @return an unconnected channel of this transport's protocol family */
    abstract SocketChannel open() throws java.io.IOException;

    /** @return whether clients that only speak TCP (the JDK HttpClient, curl without --unix-socket) can connect */
    public abstract boolean isTcp();
}
