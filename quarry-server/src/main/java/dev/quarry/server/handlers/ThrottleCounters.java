package dev.quarry.server.handlers;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * The live counters of a {@link Throttle}. Totals that many threads bump are {@link LongAdder}s (no contended cache
 * line); the gauges are atomics, touched once per request or per park.
 *
 * <p>Thread-safety: any thread. Cost: O(1), allocation-free.
 */
final class ThrottleCounters {
    final AtomicInteger activeRequests = new AtomicInteger();
    final AtomicLong waitingWrites = new AtomicLong();
    final LongAccumulator maxWaitingWrites = new LongAccumulator(Math::max, 0);
    final LongAdder bytesSent = new LongAdder();
    final LongAdder throttledNanos = new LongAdder();
    final LongAdder parkedWrites = new LongAdder();
    final LongAdder throttledRequests = new LongAdder();
    final LongAdder unthrottledRequests = new LongAdder();
    final LongAdder deniedRequests = new LongAdder();
    final LongAdder tooManyRequests = new LongAdder();
    final LongAdder evictedClients = new LongAdder();

    void onPark(long nanos) {
        parkedWrites.increment();
        throttledNanos.add(nanos);
        maxWaitingWrites.accumulate(waitingWrites.incrementAndGet());
    }

    void onResume() {
        waitingWrites.decrementAndGet();
    }

    ThrottleStatistics snapshot(int activeClients) {
        return new ThrottleStatistics(
                activeClients,
                activeRequests.get(),
                waitingWrites.get(),
                maxWaitingWrites.get(),
                bytesSent.sum(),
                throttledNanos.sum(),
                parkedWrites.sum(),
                throttledRequests.sum(),
                unthrottledRequests.sum(),
                deniedRequests.sum(),
                tooManyRequests.sum(),
                evictedClients.sum());
    }
}
