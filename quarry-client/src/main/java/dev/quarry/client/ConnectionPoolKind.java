package dev.quarry.client;

/**
 * Which pooled connection of a destination the next request takes, when several are available
 * ({@link HttpClient.Builder#connectionPool(ConnectionPoolKind)}). HTTP/1.1 connections carry one request at a time
 * and HTTP/2 connections up to the server's SETTINGS_MAX_CONCURRENT_STREAMS, whatever the kind: the protocol decides
 * how many requests a connection takes, the kind only the order in which connections are tried.
 */
public enum ConnectionPoolKind {
    /**
     * The first available connection, in the order they were opened (the default): the fewest connections stay busy
     * and the others age out on their idle timeout. As Jetty's {@code DuplexConnectionPool} for HTTP/1.1 and its
     * {@code MultiplexConnectionPool} for HTTP/2.
     */
    FIRST,

    /**
     * The connections in turn: each request starts looking at the connection after the one the previous request
     * started at, so the load spreads over all of them (for a server that balances per connection). As Jetty's
     * {@code RoundRobinConnectionPool}. Costs a shared counter written by every request.
     */
    ROUND_ROBIN,

    /**
     * A connection picked at random: the load spreads over all of them without a shared counter. As Jetty's
     * {@code RandomConnectionPool}.
     */
    RANDOM
}
