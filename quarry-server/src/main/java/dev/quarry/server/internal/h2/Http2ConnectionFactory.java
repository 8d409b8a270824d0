package dev.quarry.server.internal.h2;

import dev.quarry.io.Connection;
import dev.quarry.io.EndPoint;
import dev.quarry.io.ServerConnector;
import dev.quarry.server.internal.Http2Upgrade;
import dev.quarry.server.internal.ServerContext;
import java.nio.ByteBuffer;

/** Creates HTTP/2 server connections for h2c, by prior knowledge or by upgrade from HTTP/1.1. */
public final class Http2ConnectionFactory implements Http2Upgrade {
    private final ServerContext context;

    /** @param context the server's shared state (its HTTP/2 part is filled in by the caller) */
    public Http2ConnectionFactory(ServerContext context) {
        this.context = context;
    }

    private ServerContext context() {
        return context;
    }

    @Override
    public Connection prior(ServerConnector connector, EndPoint endPoint, ByteBuffer buffered) {
        Http2ServerConnection connection = new Http2ServerConnection(withSelf(), endPoint, true);
        connection.prime(buffered);
        return connection;
    }

    @Override
    public Connection upgraded(
            ServerConnector connector, EndPoint endPoint, UpgradedRequest upgrade, ByteBuffer buffered) {
        Http2ServerConnection connection = new Http2ServerConnection(withSelf(), endPoint, false);
        connection.prime(buffered);
        connection.upgraded(upgrade);
        return connection;
    }

    private ServerContext withSelf() {
        return context();
    }

    /**
     * Decodes an {@code HTTP2-Settings} field value.
     *
     * @param value the value
     * @return the SETTINGS payload
     * @throws IllegalArgumentException if it is malformed
     */
    public static byte[] decodeSettingsField(String value) {
        return Http2UpgradeSettings.payload(value);
    }
}
