package dev.quarry.server.internal.h2;

import dev.quarry.io.Connection;
import dev.quarry.io.ConnectionFactory;
import dev.quarry.io.EndPoint;
import dev.quarry.io.ServerConnector;
import dev.quarry.server.internal.ServerContext;

/** The connection factory of an HTTP/2-only listener: the client preface must be the first bytes. */
public final class Http2OnlyConnectionFactory implements ConnectionFactory {
    private final ServerContext context;

    /** @param context the server's shared state */
    public Http2OnlyConnectionFactory(ServerContext context) {
        this.context = context;
    }

    @Override
    public String protocol() {
        return "h2c";
    }

    @Override
    public Connection newConnection(ServerConnector connector, EndPoint endPoint) {
        return new Http2ServerConnection(context, endPoint, false);
    }
}
