package dev.quarry.server.internal;

import dev.quarry.io.Connection;
import dev.quarry.io.EndPoint;
import dev.quarry.io.ServerConnector;
import java.nio.ByteBuffer;

/**
 * How an HTTP/1.1 connection hands itself over to HTTP/2: after the prior-knowledge preface, or after answering
 * {@code Upgrade: h2c} with 101.
 */
public interface Http2Upgrade {

    /**
     * Creates the HTTP/2 connection for an endpoint whose client sent the connection preface.
     *
     * @param connector the connector
     * @param endPoint the endpoint
     * @param buffered bytes read after the preface (drain mode), to be parsed first; copied, the caller keeps it
     * @return the new connection, not yet opened
     */
    Connection prior(ServerConnector connector, EndPoint endPoint, ByteBuffer buffered);

    /**
     * Creates the HTTP/2 connection for an {@code Upgrade: h2c} request that was answered with 101: the request
     * becomes stream 1.
     *
     * @param connector the connector
     * @param endPoint the endpoint
     * @param upgrade the upgraded request, its settings and body
     * @param buffered bytes read after the request (drain mode): the client preface should follow
     * @return the new connection, not yet opened
     */
    Connection upgraded(ServerConnector connector, EndPoint endPoint, UpgradedRequest upgrade, ByteBuffer buffered);

    /**
     * The request carried over an h2c upgrade.
     *
     * @param method the method
     * @param target the target
     * @param fields the request fields, without the connection-specific ones
     * @param settings the decoded {@code HTTP2-Settings} payload
     * @param body the complete request body (an upgrade is only accepted with a small body)
     */
    record UpgradedRequest(
            String method, String target, dev.quarry.http.HttpFields fields, byte[] settings, byte[] body) {}
}
