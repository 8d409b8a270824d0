package dev.quarry.client;

import java.util.List;

/**
 * The JMX view of an {@link HttpClient} ({@code dev.quarry:type=HttpClient,client=NAME,id=ID}), registered when it is
 * built with {@link HttpClient.Builder#jmx(boolean)} and unregistered when it closes: its configuration and the sums
 * over its destinations, each of which has a {@link DestinationMXBean} of its own.
 */
public interface HttpClientMXBean {

    /** @return the client's name (its threads' prefix) */
    String getName();

    /** @return which available connection a request takes: FIRST, ROUND_ROBIN or RANDOM */
    String getConnectionPool();

    /** @return the most connections per destination */
    int getMaxConnectionsPerDestination();

    /** @return the origins the client sent requests to (or pre-created connections for) */
    List<String> getDestinations();

    /** @return requests waiting for a connection, over every destination */
    int getQueued();

    /** @return pooled connections, pending ones included, over every destination */
    int getConnections();

    /** @return connections carrying at least one request, over every destination */
    int getActive();

    /** @return connections open and idle, over every destination */
    int getIdle();

    /** @return connections being opened, over every destination */
    int getPending();

    /** @return connections opened since the client started */
    long getOpened();

    /** @return connections closed since the client started */
    long getClosed();

    /** @return requests sent since the client started */
    long getExchanges();

    /** @return requests refused because a destination's queue was full */
    long getRejected();
}
