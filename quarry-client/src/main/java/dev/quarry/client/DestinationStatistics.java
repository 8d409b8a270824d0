package dev.quarry.client;

/**
 * A snapshot of one destination: its queue and its connection pool.
 *
 * @param origin the destination's origin
 * @param queued exchanges waiting for a connection
 * @param connections pooled connections, connecting ones included
 * @param idle connections open and idle in the pool
 * @param inUse connections carrying an exchange
 * @param connecting connections being opened
 * @param open connections open now (counted from their endpoints)
 * @param maxOpen the most connections that were open at once
 * @param opened connections opened since the client started
 * @param closed connections closed since the client started
 * @param exchanges exchanges sent
 * @param retries exchanges retried on a new connection after a pooled one was found closed
 * @param rejected exchanges refused because the queue was full
 */
public record DestinationStatistics(
        Origin origin,
        int queued,
        int connections,
        int idle,
        int inUse,
        int connecting,
        int open,
        int maxOpen,
        long opened,
        long closed,
        long exchanges,
        long retries,
        long rejected) {}
