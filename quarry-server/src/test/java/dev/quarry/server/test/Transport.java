package dev.quarry.server.test;

import dev.quarry.server.Server;
import dev.quarry.server.ServerBuilder;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * The transports a server test runs over. Each one adds its listener to a {@link ServerBuilder} and opens raw client
 * connections to it; the HTTP/2 (h2c) and TLS transports will join this list, so tests that take a {@code Transport}
 * parameter run over every one of them.
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
    };

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
