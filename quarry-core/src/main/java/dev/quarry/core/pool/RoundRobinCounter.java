package dev.quarry.core.pool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The start-index counter of {@link PoolStrategy#ROUND_ROBIN}, written by every acquire of every thread. It lives in
 * its own padded object so that its writes do not invalidate the cache line of the pool's read-mostly fields (the entry
 * array reference, the limits) that every acquire reads. Incremented with one atomic add, which never fails and never
 * retries, unlike a CAS loop. Thread-safe, lock-free, allocation-free.
 */
final class RoundRobinCounter extends RoundRobinCounterValue {
    long p11, p12, p13, p14, p15, p16, p17;

    /** @return a start index in {@code [0, length)}, advancing by one on every call */
    int next(int length) {
        // Only the low 31 bits matter: they wrap around, and masking the sign keeps the remainder non-negative.
        return ((int) (long) COUNT.getAndAdd(this, 1L) & Integer.MAX_VALUE) % length;
    }

    @Override
    public String toString() {
        return "RoundRobinCounter[" + count + "]";
    }
}

/** The padding before the counter's value; see {@link RoundRobinCounter}. */
abstract class RoundRobinCounterPadding {
    long p01, p02, p03, p04, p05, p06, p07;
}

/** The counter's value, between the paddings; see {@link RoundRobinCounter}. */
abstract class RoundRobinCounterValue extends RoundRobinCounterPadding {
    static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(RoundRobinCounterValue.class, "count", long.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    /**
     * A {@code long} although an {@code int} would do: the JVM may place an {@code int} field of any class of the
     * hierarchy in the 4-byte gap right after the object header, before the padding, where it would share a cache line
     * with the preceding object.
     */
    volatile long count;
}
