package dev.quarry.cli;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * Latencies in microseconds, recorded by many threads without a lock, in log-linear buckets (as HdrHistogram does it
 * with two significant digits): values below 128 exactly, then 64 linear sub-buckets per power of two, so a
 * percentile is within 1.6% of the true value, up to about 2^46 µs (two years). Memory is fixed (about 42 KiB).
 *
 * <p>Thread-safety: {@link #record} from any thread; read the percentiles once recording stopped, or accept a view that
 * is a little behind.
 */
final class LatencyHistogram {
    private static final int SUB_BITS = 7;
    private static final int SUB_BUCKETS = 1 << SUB_BITS;
    private static final int MAGNITUDES = 40;

    private final AtomicLongArray counts = new AtomicLongArray((MAGNITUDES + 1) * SUB_BUCKETS);
    private final LongAdder total = new LongAdder();
    private final LongAccumulator max = new LongAccumulator(Math::max, 0);

    /** @param micros a latency; negative values count as 0 */
    void record(long micros) {
        long value = Math.max(0, micros);
        counts.incrementAndGet(index(value));
        total.increment();
        max.accumulate(value);
    }

    private static int index(long value) {
        if (value < SUB_BUCKETS) {
            return (int) value;
        }
        int magnitude = 63 - Long.numberOfLeadingZeros(value) - SUB_BITS + 1; // >= 1
        if (magnitude > MAGNITUDES) {
            return (MAGNITUDES + 1) * SUB_BUCKETS - 1;
        }
        int sub = (int) (value >>> magnitude) - SUB_BUCKETS / 2; // the top SUB_BITS bits, less the leading one
        return magnitude * SUB_BUCKETS + SUB_BUCKETS / 2 + sub;
    }

    /** @return the highest value that falls in bucket {@code index} */
    private static long upperBound(int index) {
        if (index < SUB_BUCKETS) {
            return index;
        }
        int magnitude = index / SUB_BUCKETS;
        long top = index % SUB_BUCKETS; // the value's top SUB_BITS bits
        return ((top + 1) << magnitude) - 1;
    }

    /** @return how many values were recorded */
    long count() {
        return total.sum();
    }

    /** @return the largest value recorded, 0 if none */
    long max() {
        return max.get();
    }

    /**
     * @param percentile from 0 to 100
     * @return the value at or below which {@code percentile} percent of the values fall (an upper bound within 1.6%,
     *     never above the maximum); 0 if none were recorded
     */
    long percentile(double percentile) {
        long count = 0;
        long[] snapshot = new long[counts.length()];
        for (int i = 0; i < snapshot.length; i++) {
            snapshot[i] = counts.get(i);
            count += snapshot[i];
        }
        if (count == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(percentile / 100.0 * count));
        long seen = 0;
        for (int i = 0; i < snapshot.length; i++) {
            seen += snapshot[i];
            if (seen >= rank) {
                // The last bucket also holds everything beyond the range: its bound is the maximum.
                return i == snapshot.length - 1 ? max() : Math.min(upperBound(i), max());
            }
        }
        return max();
    }
}
