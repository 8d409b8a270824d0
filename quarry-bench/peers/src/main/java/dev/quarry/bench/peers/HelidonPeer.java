package dev.quarry.bench.peers;

import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * Helidon 4 SE: its {@link WebServer} (one virtual thread per connection) with an HTTP routing for
 * {@link Plaintext#PATH}. The HTTP/2 module on the class path makes the same port speak h2c, by upgrade and by
 * prior knowledge, with the same routing. The {@code Date} header is Helidon's default.
 *
 * <p>Thread-safe: {@link #close()} may be called from any thread.
 */
final class HelidonPeer implements PeerServer {
    private final WebServer server;

    private HelidonPeer(WebServer server) {
        this.server = server;
    }

    static HelidonPeer start(PeerOptions options, String serverName) {
        WebServer server = WebServer.builder()
                .host(options.host())
                .port(options.port())
                .idleConnectionTimeout(options.idleTimeout())
                .routing(routing -> routing.get(Plaintext.PATH, new PlaintextHandler(serverName)))
                .build()
                .start();
        return new HelidonPeer(server);
    }

    @Override
    public int port() {
        return server.port();
    }

    @Override
    public String protocols() {
        return "http/1.1, h2c (upgrade, prior knowledge)";
    }

    @Override
    public void close() {
        server.stop();
    }

    @Override
    public String toString() {
        return "HelidonPeer[" + (server.isRunning() ? "running" : "stopped") + " port " + server.port() + "]";
    }

    /** Sends the pre-encoded body with cached header values. Stateless: thread-safe, allocation-free itself. */
    static final class PlaintextHandler implements Handler {
        private static final Header CONTENT_TYPE =
                HeaderValues.createCached(HeaderNames.CONTENT_TYPE, Plaintext.CONTENT_TYPE);
        private static final Header CONTENT_LENGTH =
                HeaderValues.createCached(HeaderNames.CONTENT_LENGTH, Plaintext.bodyLength());

        private final byte[] body = Plaintext.bodyBytes();
        private final Header server;

        PlaintextHandler(String serverName) {
            this.server = HeaderValues.createCached(HeaderNames.SERVER, serverName);
        }

        @Override
        public void handle(ServerRequest request, ServerResponse response) {
            response.header(CONTENT_TYPE).header(server).header(CONTENT_LENGTH).send(body);
        }
    }
}
