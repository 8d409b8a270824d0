package dev.quarry.bench.peers;

import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * Undertow 2.3 with its default I/O and worker thread counts, a handler that runs in the I/O thread (it never
 * blocks, so it is not dispatched to a worker), and h2c on the HTTP listener.
 *
 * <p>Options, and why: {@code ALWAYS_SET_KEEP_ALIVE=false} (HTTP/1.1 connections persist without the header, as
 * TechEmpower's Undertow sets it); {@code BUFFER_PIPELINED_DATA=true} (Undertow's own switch to gather the
 * responses to pipelined requests into one write: without it each response is written on its own);
 * {@code ENABLE_HTTP2=true} (h2c by {@code Upgrade}, and by prior knowledge where Undertow supports it);
 * idle and no-request timeouts from the options. The {@code Date} header is Undertow's default.
 *
 * <p>Thread-safe: {@link #close()} may be called from any thread.
 */
final class UndertowPeer implements PeerServer {
    private final Undertow server;

    private UndertowPeer(Undertow server) {
        this.server = server;
    }

    static UndertowPeer start(PeerOptions options, String serverName) {
        int idleMillis = Math.toIntExact(options.idleTimeout().toMillis());
        Undertow server = Undertow.builder()
                .addHttpListener(options.port(), options.host())
                .setServerOption(UndertowOptions.ENABLE_HTTP2, true)
                .setServerOption(UndertowOptions.ALWAYS_SET_KEEP_ALIVE, false)
                .setServerOption(UndertowOptions.BUFFER_PIPELINED_DATA, true)
                .setServerOption(UndertowOptions.IDLE_TIMEOUT, idleMillis)
                .setServerOption(UndertowOptions.NO_REQUEST_TIMEOUT, idleMillis)
                .setHandler(new PlaintextHandler(serverName))
                .build();
        server.start();
        return new UndertowPeer(server);
    }

    @Override
    public int port() {
        return ((InetSocketAddress) server.getListenerInfo().get(0).getAddress()).getPort();
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
        return "UndertowPeer[" + server.getListenerInfo() + "]";
    }

    /**
     * Answers {@link Plaintext#PATH} from a pre-encoded direct buffer, 404 otherwise. Stateless: thread-safe,
     * allocates only the buffer view.
     */
    static final class PlaintextHandler implements HttpHandler {
        private final ByteBuffer body = Plaintext.bodyBuffer();
        private final String serverName;

        PlaintextHandler(String serverName) {
            this.serverName = serverName;
        }

        @Override
        public void handleRequest(HttpServerExchange exchange) {
            if (!Plaintext.PATH.equals(exchange.getRequestPath())) {
                exchange.setStatusCode(404);
                exchange.endExchange();
                return;
            }
            exchange.getResponseHeaders()
                    .put(Headers.CONTENT_TYPE, Plaintext.CONTENT_TYPE)
                    .put(Headers.SERVER, serverName);
            exchange.getResponseSender().send(body.duplicate());
        }
    }
}
