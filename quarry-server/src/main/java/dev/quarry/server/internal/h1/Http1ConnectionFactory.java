package dev.quarry.server.internal.h1;

import dev.quarry.io.Connection;
import dev.quarry.io.ConnectionFactory;
import dev.quarry.io.EndPoint;
import dev.quarry.io.ServerConnector;
import dev.quarry.server.internal.ServerContext;

/** Creates {@link Http1Connection}s; the default protocol of a Quarry connector. */
public final class Http1ConnectionFactory implements ConnectionFactory {
    private final ServerContext context;

    /** @param context the server's shared state */
    public Http1ConnectionFactory(ServerContext context) {
        this.context = context;
    }

    @Override
    public String protocol() {
        return "http/1.1";
    }

    @Override
    public Connection newConnection(ServerConnector connector, EndPoint endPoint) {
        return new Http1Connection(context, connector, endPoint);
    }
}
