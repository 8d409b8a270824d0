package dev.quarry.client;

/**
 * The JMX view of one destination of an {@link HttpClient} ({@code dev.quarry:type=Destination,client=NAME,id=ID,
 * origin="ORIGIN"}), registered when the client is built with {@link HttpClient.Builder#jmx(boolean)}: its request
 * queue and its connection pool, as in Jetty's pool statistics. Every attribute is a snapshot read when asked; the
 * connection counts scan the pool (O(connections)).
 */
public interface DestinationMXBean {

    /** @return the origin, e.g. {@code http://127.0.0.1:8080} */
    String getOrigin();

    /** @return which available connection a request takes: FIRST, ROUND_ROBIN or RANDOM */
    String getConnectionPool();

    /** @return requests waiting for a connection */
    int getQueued();

    /** @return the most requests that may wait */
    int getMaxQueued();

    /** @return pooled connections, pending ones included */
    int getConnections();

    /** @return the most connections */
    int getMaxConnections();

    /** @return connections carrying at least one request */
    int getActive();

    /** @return connections open and carrying no request */
    int getIdle();

    /** @return connections being opened (reserved in the pool, not usable yet) */
    int getPending();

    /** @return connections open now */
    int getOpen();

    /** @return the most connections that were open at once */
    int getMaxOpen();

    /** @return connections opened since the client started */
    long getOpened();

    /** @return connections closed since the client started */
    long getClosed();

    /** @return requests sent to this destination */
    long getExchanges();

    /** @return requests retried on a new connection after a pooled one was found closed */
    long getRetries();

    /** @return requests refused because the queue was full */
    long getRejected();
}
