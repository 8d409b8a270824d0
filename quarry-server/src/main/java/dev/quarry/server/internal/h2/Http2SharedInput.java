package dev.quarry.server.internal.h2;

import dev.quarry.core.buffer.RetainableByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An input buffer that DATA payloads share instead of being copied out of it: while at least one payload is held by a
 * handler, the buffer is retained once and its whole capacity is charged to the {@link Http2ContentBudget} (that is
 * the memory it keeps from the pool, whatever the payloads add up to); the last payload released gives both back.
 *
 * <p>Threading: {@link #hold} by the producer under the connection's lock, {@link #release} by whichever thread
 * consumes a payload. Lock-free: one atomic per payload. A release that takes the count to zero while the producer
 * takes it back to one is safe: each 0-to-1 step retains and charges, each 1-to-0 step refunds and releases, and the
 * connection's own reference keeps the buffer alive while the producer can still share it.
 */
final class Http2SharedInput {
    private final RetainableByteBuffer buffer;
    private final Http2ContentBudget budget;
    private final AtomicInteger holders = new AtomicInteger();

    Http2SharedInput(RetainableByteBuffer buffer, Http2ContentBudget budget) {
        this.buffer = buffer;
        this.budget = budget;
    }

    /** @return what sharing the buffer with one more payload would charge now: its capacity, or 0 if already held */
    int chargeToHold() {
        return holders.get() == 0 ? buffer.capacity() : 0;
    }

    /** One more payload shares the buffer; by the producer. */
    void hold() {
        if (holders.getAndIncrement() == 0) {
            buffer.retain();
            budget.charge(buffer.capacity());
        }
    }

    /** A payload that shared the buffer was consumed; any thread. */
    void release() {
        if (holders.decrementAndGet() == 0) {
            budget.refund(buffer.capacity());
            buffer.release();
        }
    }

    @Override
    public String toString() {
        return "Http2SharedInput{capacity=" + buffer.capacity() + ", holders=" + holders.get() + "}";
    }
}
