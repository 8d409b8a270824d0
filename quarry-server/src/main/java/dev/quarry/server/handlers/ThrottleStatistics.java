package dev.quarry.server.handlers;

/**
 * A snapshot of a {@link Throttle}'s counters; gauges are values at the time of the snapshot, counters are totals
 * since the throttle was built.
 *
 * @param activeClients client buckets held now (clients with requests in flight, or idle and not yet evicted)
 * @param activeRequests throttled requests in flight now
 * @param waitingWrites writes parked on the timer now, waiting for tokens (no thread is held by any of them)
 * @param maxWaitingWrites the most writes parked at once
 * @param bytesSent content bytes written through the throttle
 * @param throttledNanos the sum of every park's duration
 * @param parkedWrites how many times a write was parked
 * @param throttledRequests requests admitted and throttled
 * @param unthrottledRequests requests of allow-listed clients, passed through
 * @param deniedRequests requests of deny-listed clients, answered 403
 * @param tooManyRequests requests beyond a client's cap, answered 429
 * @param evictedClients client buckets evicted after being idle
 */
public record ThrottleStatistics(
        int activeClients,
        int activeRequests,
        long waitingWrites,
        long maxWaitingWrites,
        long bytesSent,
        long throttledNanos,
        long parkedWrites,
        long throttledRequests,
        long unthrottledRequests,
        long deniedRequests,
        long tooManyRequests,
        long evictedClients) {}
