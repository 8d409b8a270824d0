package dev.quarry.server.internal.h2;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server-wide budget of memory held by HTTP/2 request content that arrived and that handlers have not consumed:
 * each connection's window bounds what one client makes the server hold, this bounds what all of them do together.
 * Content is charged as the memory it keeps: a copied payload at its size, an input buffer that payloads share at its
 * capacity (once, however many payloads share it).
 *
 * <p>Once the budget is spent, new streams that announce a body are refused (REFUSED_STREAM: the client may retry
 * them elsewhere or later), and a DATA frame that would overrun it resets its stream (ENHANCE_YOUR_CALM); requests
 * without a body are still served. Both are counted.
 *
 * <p>Thread-safety: any thread; lock-free. Charging is one atomic add (a compare-and-set only when the high-water mark
 * moves); only DATA frames and their release touch it, never a request without a body.
 */
public final class Http2ContentBudget {
    private final long max;
    private final AtomicLong held = new AtomicLong();
    private final AtomicLong highWaterMark = new AtomicLong();
    private final LongAdder refusedStreams = new LongAdder();
    private final LongAdder resetStreams = new LongAdder();

    /** @param max the budget in bytes, at least 1 */
    public Http2ContentBudget(long max) {
        if (max < 1) {
            throw new IllegalArgumentException("the budget must be >= 1 byte, was " + max);
        }
        this.max = max;
    }

    /** @return the budget in bytes */
    public long max() {
        return max;
    }

    /** @return bytes held now */
    public long held() {
        return held.get();
    }

    /** @return the most bytes held at once since start */
    public long highWaterMark() {
        return highWaterMark.get();
    }

    /** @return streams refused (REFUSED_STREAM) because the budget was spent, since start */
    public long refusedStreams() {
        return refusedStreams.sum();
    }

    /** @return streams reset (ENHANCE_YOUR_CALM) because their DATA would have overrun the budget, since start */
    public long resetStreams() {
        return resetStreams.sum();
    }

    /** @return whether the budget is spent: a new stream with a body is to be refused */
    boolean isSpent() {
        return held.get() >= max;
    }

    /** @return whether {@code bytes} more would overrun the budget */
    boolean wouldOverrun(long bytes) {
        return held.get() + bytes > max;
    }

    /** Charges bytes now held. */
    void charge(long bytes) {
        long now = held.addAndGet(bytes);
        long mark = highWaterMark.get();
        while (now > mark && !highWaterMark.compareAndSet(mark, now)) {
            mark = highWaterMark.get();
        }
    }

    /** Gives back bytes no longer held. */
    void refund(long bytes) {
        held.addAndGet(-bytes);
    }

    void onStreamRefused() {
        refusedStreams.increment();
    }

    void onStreamReset() {
        resetStreams.increment();
    }

    @Override
    public String toString() {
        return "Http2ContentBudget{held=" + held.get() + "/" + max + ", refused=" + refusedStreams.sum() + ", reset="
                + resetStreams.sum() + "}";
    }
}
