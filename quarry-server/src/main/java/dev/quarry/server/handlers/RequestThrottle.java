package dev.quarry.server.handlers;

import dev.quarry.core.throttle.TokenBucket;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The throttling state of one request: its own bucket and the chain of buckets its content must be granted by, from
 * the most specific to the most shared: request, client (if tracked), global. The chain is reserved in that order,
 * one bucket at a time (see {@link ThrottledWrite}), so the shared buckets are asked only once the request's own
 * limits allow the chunk.
 *
 * <p>Thread-safety: the request's writes are sequential (one pending at a time) but may run on different threads;
 * each hand-over goes through the write callbacks' atomic state, which orders them. {@link #release()} is idempotent.
 */
final class RequestThrottle {
    private final Throttle throttle;
    private final ClientThrottle client;
    private final TokenBucket bucket;
    private final TokenBucket[] chain;
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile ThrottleLimits applied;

    /**
     * @param throttle the throttle
     * @param client the client's state, or null if clients are not tracked
     * @param limits the limits at admission
     */
    RequestThrottle(Throttle throttle, ClientThrottle client, ThrottleLimits limits) {
        this.throttle = throttle;
        this.client = client;
        this.applied = limits;
        this.bucket = TokenBucket.builder()
                .rate(ThrottleLimits.bucketRate(limits.requestRate()))
                .capacity(limits.requestCapacity())
                .empty()
                .clock(throttle.clock())
                .build();
        this.chain = client == null
                ? new TokenBucket[] {bucket, throttle.globalBucket()}
                : new TokenBucket[] {bucket, client.bucket(), throttle.globalBucket()};
    }

    Throttle throttle() {
        return throttle;
    }

    /** @return the buckets a chunk must be granted by, after applying limits changed since the last chunk */
    TokenBucket[] chain() {
        ThrottleLimits limits = throttle.limits();
        ThrottleLimits current = applied;
        if (limits != current) {
            applied = limits;
            if (current.requestRate() != limits.requestRate()
                    || current.requestCapacity() != limits.requestCapacity()) {
                bucket.reconfigure(ThrottleLimits.bucketRate(limits.requestRate()), limits.requestCapacity());
            }
        }
        if (client != null) {
            client.refresh(limits);
        }
        return chain;
    }

    /**
     * The size of the next chunk: the configured chunk size, but no more than any limited bucket's capacity (a larger
     * chunk would wait for tokens the bucket cannot hold) or one second of its rate; everything left if no bucket is
     * limited, so that an unlimited response is not split at all.
     *
     * @param remaining the bytes left to write, > 0
     * @return the chunk, 1 to {@code remaining}
     */
    long chunkSize(long remaining) {
        long size = applied.chunkSize();
        boolean limited = false;
        for (TokenBucket b : chain) {
            if (!b.isUnlimited()) {
                limited = true;
                size = Math.min(size, Math.min(b.capacity(), b.rate()));
            }
        }
        return limited ? Math.max(1, Math.min(size, remaining)) : remaining;
    }

    /** The request ended: free the client's slot. Idempotent. */
    void release() {
        if (released.compareAndSet(false, true)) {
            throttle.onRequestEnd(client);
        }
    }

    @Override
    public String toString() {
        return "RequestThrottle{" + bucket + (client == null ? "" : ", " + client) + "}";
    }
}
