package dev.quarry.core.throttle;

/**
 * Takes from several {@link TokenBucket}s as one, for hierarchical limits: a request's bytes count against its own
 * bucket, its client's and the server's, and must be granted by all of them.
 *
 * <p>The hazard is a leak: a take that succeeded on one bucket while another refused must not keep the first one's
 * tokens. Two protocols, both lock-free because each step is a lock-free operation on one bucket:
 *
 * <ul>
 *   <li>{@link #tryTakeAll}: all or none. Take from each bucket in order; when one refuses, refund the ones already
 *       taken, in reverse order. A refund is exact (see {@link TokenBucket#refund}), so nothing leaks. The price is
 *       that the tokens are withheld from other takers for the few nanoseconds between take and refund: a concurrent
 *       taker may be refused spuriously and wait a little longer, never get more.
 *   <li>{@link #takeAll}: the minimum. Take up to {@code n} from each bucket, asking each for no more than the
 *       previous ones granted, then refund every bucket what it granted beyond the final minimum. Never refuses while
 *       all hold something, at the cost of smaller grants.
 * </ul>
 *
 * <p>A waiting caller should not poll either of them: when refused, wait {@link #nanosUntilAll} (or use
 * {@link TokenBucket#reserve} bucket by bucket, as the server's throttle does, which also orders the waiters).
 *
 * <p>Thread-safety: as the buckets. Cost: O(buckets), allocation-free (pass an array to avoid the varargs one).
 */
public final class TokenBuckets {
    private TokenBuckets() {}

    /**
     * Takes {@code n} tokens from every bucket, or from none.
     *
     * @param n how many
     * @param buckets the buckets, typically from the most specific (request) to the most shared (global): a refusal
     *     is then found before the shared bucket is touched
     * @return whether all of them granted {@code n}; if not, none of them lost any token
     */
    public static boolean tryTakeAll(long n, TokenBucket... buckets) {
        for (int i = 0; i < buckets.length; i++) {
            if (!buckets[i].tryTake(n)) {
                for (int j = i - 1; j >= 0; j--) {
                    buckets[j].refund(n);
                }
                return false;
            }
        }
        return true;
    }

    /**
     * Takes as many tokens as every bucket can give, up to {@code n}: the same amount from each.
     *
     * @param n the most to take
     * @param buckets the buckets
     * @return how many were taken from each, 0 to {@code n}
     */
    public static long takeAll(long n, TokenBucket... buckets) {
        long granted = n;
        for (int i = 0; i < buckets.length; i++) {
            // Asking each bucket for no more than the earlier ones gave means only earlier buckets hold an excess.
            long got = buckets[i].take(granted);
            if (got < granted) {
                for (int j = 0; j < i; j++) {
                    buckets[j].refund(granted - got);
                }
                granted = got;
                if (granted == 0) {
                    return 0;
                }
            }
        }
        return granted;
    }

    /**
     * Gives {@code n} tokens back to every bucket, e.g. after a write that was granted them failed.
     *
     * @param n how many
     * @param buckets the buckets
     */
    public static void refundAll(long n, TokenBucket... buckets) {
        for (TokenBucket bucket : buckets) {
            bucket.refund(n);
        }
    }

    /**
     * A pure query: how long until every bucket holds {@code n} tokens, if nobody else takes any.
     *
     * @param n how many
     * @param buckets the buckets
     * @return the longest of their waits, in nanoseconds; {@link Long#MAX_VALUE} if one can never hold {@code n}
     */
    public static long nanosUntilAll(long n, TokenBucket... buckets) {
        long longest = 0;
        for (TokenBucket bucket : buckets) {
            longest = Math.max(longest, bucket.nanosUntil(n));
        }
        return longest;
    }
}
