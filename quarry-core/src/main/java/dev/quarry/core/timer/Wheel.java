package dev.quarry.core.timer;

/**
 * The wheel of a {@link HashedWheelTimer}: a power-of-two array of buckets, each a circular doubly-linked list of
 * timeouts threaded through {@link Timeout#next}/{@link Timeout#prev} around a sentinel head, so that adding and
 * unlinking are O(1) and allocation-free, and unlinking needs no reference to the bucket.
 *
 * <p>A timeout whose deadline falls in tick {@code t} lives in bucket {@code t & mask}; when that bucket is visited
 * at tick {@code t} or a later rotation, it expires if its deadline has passed and otherwise stays for a later
 * rotation. Comparing deadlines instead of counting remaining rounds keeps the timeout one field smaller and makes
 * catching up after a late tick trivially correct.
 *
 * <p>Thread-safety: none needed; confined to the ticker thread.
 */
final class Wheel {
    private final Timeout[] buckets;
    private final int mask;
    private long size;

    Wheel(int wheelSize) {
        if (Integer.bitCount(wheelSize) != 1) {
            throw new IllegalArgumentException("wheel size must be a power of two: " + wheelSize);
        }
        buckets = new Timeout[wheelSize];
        for (int i = 0; i < wheelSize; i++) {
            Timeout head = Timeout.sentinel(Timeout.CANCELLED);
            head.next = head;
            head.prev = head;
            buckets[i] = head;
        }
        mask = wheelSize - 1;
    }

    /** @return the number of timeouts linked in the wheel */
    long size() {
        return size;
    }

    /** @return the number of buckets */
    int length() {
        return buckets.length;
    }

    /** Links a timeout at the tail of the bucket of {@code tick}, so that a bucket keeps scheduling order. O(1). */
    void add(Timeout timeout, long tick) {
        Timeout head = buckets[(int) (tick & mask)];
        Timeout tail = head.prev;
        timeout.prev = tail;
        timeout.next = head;
        tail.next = timeout;
        head.prev = timeout;
        size++;
    }

    /**
     * Unlinks a timeout if it is still linked. Idempotent, because a timeout cancelled while in the wheel may be
     * unlinked both by a visit of its bucket and by the ticker's pass over the cancelled stack. O(1).
     *
     * @return whether it was linked
     */
    boolean unlink(Timeout timeout) {
        Timeout next = timeout.next;
        if (next == null) {
            return false;
        }
        Timeout prev = timeout.prev;
        prev.next = next;
        next.prev = prev;
        timeout.next = null;
        timeout.prev = null;
        size--;
        return true;
    }

    /**
     * Visits the bucket of {@code tick}: unlinks the timeouts whose deadline is not after {@code now}, moving those
     * still in the wheel to EXPIRED and handing them to {@code expired}, and unlinks cancelled ones on the way.
     * O(size of the bucket).
     */
    void expire(long tick, long now, Ticker expired) {
        Timeout head = buckets[(int) (tick & mask)];
        Timeout timeout = head.next;
        while (timeout != head) {
            Timeout next = timeout.next;
            if (timeout.deadline - now <= 0) {
                unlink(timeout);
                // A lost CAS means it was cancelled: it is then also on the cancelled stack, where unlink is a no-op.
                if (timeout.compareAndSetState(Timeout.BUCKETED, Timeout.EXPIRED)) {
                    expired.expired(timeout);
                }
            } else if (timeout.state() == Timeout.CANCELLED) {
                unlink(timeout);
            }
            timeout = next;
        }
    }

    /**
     * Empties the wheel when the timer stops: every timeout still in it is cancelled (its task never runs).
     *
     * @return how many this call cancelled (those cancelled concurrently by their owners are not counted)
     */
    long cancelAll() {
        long cancelled = 0;
        for (Timeout head : buckets) {
            Timeout timeout = head.next;
            while (timeout != head) {
                Timeout next = timeout.next;
                if (timeout.compareAndSetState(Timeout.BUCKETED, Timeout.CANCELLED)) {
                    cancelled++;
                }
                timeout.next = null;
                timeout.prev = null;
                timeout = next;
            }
            head.next = head;
            head.prev = head;
        }
        size = 0;
        return cancelled;
    }
}
