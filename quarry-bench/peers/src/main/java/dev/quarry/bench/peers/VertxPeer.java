package dev.quarry.bench.peers;

import io.netty.util.AsciiString;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Vert.x 5 core: an {@link HttpServer} per event loop on one port (with {@code SO_REUSEPORT}, the kernel balances the
 * accepted connections between them), on Netty's native epoll transport as TechEmpower's Vert.x entry runs, with the plaintext handler on the event
 * loop. h2c by prior knowledge and by upgrade on the same port.
 *
 * <p>Thread-safe: {@link #close()} may be called from any thread.
 */
final class VertxPeer implements PeerServer {
    private static final CharSequence PLAINTEXT = HttpHeaders.createOptimized(Plaintext.PATH);
    private static final CharSequence CONTENT_TYPE = HttpHeaders.createOptimized(Plaintext.CONTENT_TYPE);
    private static final CharSequence CONTENT_LENGTH =
            HttpHeaders.createOptimized(Integer.toString(Plaintext.bodyLength()));

    private final Vertx vertx;
    private final int port;

    private VertxPeer(Vertx vertx, int port) {
        this.vertx = vertx;
        this.port = port;
    }

    static VertxPeer start(PeerOptions options, String serverName) throws Exception {
        int loops = Runtime.getRuntime().availableProcessors();
        Vertx vertx =
                Vertx.vertx(new VertxOptions().setPreferNativeTransport(true).setEventLoopPoolSize(loops));
        if (!vertx.isNativeTransportEnabled()) {
            vertx.close();
            throw new IllegalStateException(
                    "Vert.x could not use Netty's native epoll transport: " + vertx.unavailableNativeTransportCause());
        }
        CharSequence server = HttpHeaders.createOptimized(serverName);
        Buffer body = Buffer.buffer(Plaintext.bodyBytes());
        HttpServerOptions serverOptions = new HttpServerOptions()
                .setHost(options.host())
                .setPort(options.port())
                .setIdleTimeout((int) options.idleTimeout().toSeconds())
                .setIdleTimeoutUnit(TimeUnit.SECONDS)
                .setHttp2ClearTextEnabled(true)
                // One listening socket per event loop, the kernel balancing connections between them.
                .setReusePort(true);
        int port = -1;
        try {
            for (int i = 0; i < loops; i++) {
                HttpServer http =
                        vertx.createHttpServer(serverOptions).requestHandler(request -> handle(request, server, body));
                int bound = http.listen()
                        .toCompletionStage()
                        .toCompletableFuture()
                        .get(30, TimeUnit.SECONDS)
                        .actualPort();
                if (port < 0) {
                    port = bound;
                    // Every further server shares the first one's port (an ephemeral port is chosen once).
                    serverOptions.setPort(bound);
                }
            }
        } catch (ExecutionException | TimeoutException x) {
            vertx.close();
            throw x;
        }
        return new VertxPeer(vertx, port);
    }

    private static void handle(HttpServerRequest request, CharSequence server, Buffer body) {
        if (!AsciiString.contentEquals(PLAINTEXT, request.path())) {
            request.response().setStatusCode(404).end();
            return;
        }
        request.response()
                .putHeader(HttpHeaders.CONTENT_TYPE, CONTENT_TYPE)
                .putHeader(HttpHeaders.CONTENT_LENGTH, CONTENT_LENGTH)
                .putHeader(HttpHeaders.SERVER, server)
                .putHeader(HttpHeaders.DATE, NettyDate.now())
                .end(body);
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public String protocols() {
        return "http/1.1, h2c (upgrade, prior knowledge); native epoll";
    }

    @Override
    public void close() {
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception x) {
            throw new IllegalStateException("Vert.x did not stop: " + x, x);
        }
    }

    @Override
    public String toString() {
        return "VertxPeer[port " + port + "]";
    }
}
