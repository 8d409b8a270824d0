package dev.quarry.server.internal.h2;

import dev.quarry.io.Connection;
import dev.quarry.io.ConnectionFactory;
import dev.quarry.io.EndPoint;
import dev.quarry.io.ServerConnector;
import dev.quarry.server.internal.ServerContext;

/**
 * The connection factory of an HTTP/2-only listener, and of HTTP/2 chosen by ALPN over TLS: the client preface must be
 * the first bytes.
 */
public final class Http2OnlyConnectionFactory implements ConnectionFactory {
    private final ServerContext context;
    private final String protocol;

    /** @param context the server's shared state */
    public Http2OnlyConnectionFactory(ServerContext context) {
        this(context, "h2c");
    }

    /**
     * @param context the server's shared state
     * @param protocol {@code h2c}, or {@code h2} when ALPN chose HTTP/2 over TLS
     */
    public Http2OnlyConnectionFactory(ServerContext context, String protocol) {
        this.context = context;
        this.protocol = protocol;
    }

    @Override
    public String protocol() {
        return protocol;
    }

    @Override
    public Connection newConnection(ServerConnector connector, EndPoint endPoint) {
        return new Http2ServerConnection(context, endPoint, false);
    }
}
