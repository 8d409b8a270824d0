package dev.quarry.io;

/**
 * Creates the {@link Connection} for a newly accepted endpoint. Factories chain: a detecting factory may look at the
 * first bytes and hand the endpoint to the factory of the protocol it recognises.
 */
public interface ConnectionFactory {

    /** @return the protocol name, e.g. {@code http/1.1} or {@code h2c} */
    String protocol();

    /**
     * @param connector the connector that accepted the endpoint
     * @param endPoint the new endpoint
     * @return the connection; the caller opens it
     */
    Connection newConnection(ServerConnector connector, EndPoint endPoint);
}
