/**
 * Rate limiting with token buckets: {@link dev.quarry.core.throttle.TokenBucket}, lock-free and refilled lazily from
 * the clock (no filler thread), with rate and capacity changeable at run time, and
 * {@link dev.quarry.core.throttle.TokenBuckets}, which takes from several buckets at once (a global, a per-client
 * and a per-request limit) without leaking tokens when one of them refuses.
 */
package dev.quarry.core.throttle;
