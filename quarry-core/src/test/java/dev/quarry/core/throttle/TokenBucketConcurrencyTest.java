package dev.quarry.core.throttle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.test.Concurrently;
import java.math.BigInteger;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TokenBucketConcurrencyTest {
    private static final int THREADS = 4;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void concurrentTakersNeverGetMoreThanTheCapacityPlusTheRateTimesTheElapsedTime() throws Exception {
        long rate = 1_000_000;
        long capacity = 10_000;
        long start = System.nanoTime();
        TokenBucket bucket = TokenBucket.of(rate, capacity);
        AtomicLong granted = new AtomicLong();
        long runNanos = Duration.ofMillis(300).toNanos();
        Concurrently.run(THREADS, TIMEOUT, thread -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            long mine = 0;
            while (System.nanoTime() - start < runNanos) {
                long n = 1 + random.nextInt(500);
                if (random.nextBoolean()) {
                    mine += bucket.tryTake(n) ? n : 0;
                } else {
                    mine += bucket.take(n);
                }
            }
            granted.addAndGet(mine);
        });
        long elapsed = System.nanoTime() - start;
        long bound = capacity + (long) Math.floor(elapsed / 1e9 * rate);
        assertTrue(granted.get() <= bound, "granted " + granted + " > bound " + bound);
        assertTrue(granted.get() >= capacity, "the takers drained at least the initial burst: " + granted);
    }

    @Test
    void takesReservationsRefundsAndReconfigurationsRacingConserveEveryToken() throws Exception {
        // A frozen clock accrues nothing, so every token must be accounted for exactly, whatever the interleaving of
        // takes with the seal-and-translate protocol of concurrent rate changes.
        SimulatedClock clock = new SimulatedClock();
        long capacity = 1_000_000_000L;
        TokenBucket bucket =
                TokenBucket.builder().rate(1000).capacity(capacity).clock(clock).build();
        AtomicLong outstanding = new AtomicLong();
        Concurrently.run(THREADS, TIMEOUT, thread -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            long mine = 0;
            for (int i = 0; i < 50_000; i++) {
                long n = 1 + random.nextInt(1000);
                switch (random.nextInt(6)) {
                    case 0 -> mine += bucket.tryTake(n) ? n : 0;
                    case 1 -> mine += bucket.take(n);
                    case 2 -> {
                        bucket.reserve(n);
                        mine += n;
                    }
                    case 3, 4 -> {
                        long back = Math.min(mine, n);
                        bucket.refund(back);
                        mine -= back;
                    }
                    default -> {
                        if (i % 50 == 0) {
                            bucket.reconfigure(1 + random.nextInt(1_000_000), capacity);
                        }
                    }
                }
            }
            outstanding.addAndGet(mine);
        });
        assertEquals(capacity - outstanding.get(), bucket.available(), "tokens lost or invented");
    }

    @Test
    void takersRacingWithTheClockGetExactlyWhatAccrued() throws Exception {
        SimulatedClock clock = new SimulatedClock();
        long rate = 999_999_937; // about one token per nanosecond, not exactly
        TokenBucket bucket = TokenBucket.builder()
                .rate(rate)
                .capacity(TokenBucket.MAX_AMOUNT)
                .empty()
                .clock(clock)
                .build();
        long start = clock.nanoTime();
        AtomicLong granted = new AtomicLong();
        Concurrently.run(THREADS, TIMEOUT, thread -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            long mine = 0;
            for (int i = 0; i < 100_000; i++) {
                clock.advance(1 + random.nextInt(1000));
                mine += bucket.take(1 + random.nextInt(2000));
            }
            granted.addAndGet(mine);
        });
        long elapsed = clock.nanoTime() - start;
        long accrued = BigInteger.valueOf(elapsed)
                .multiply(BigInteger.valueOf(rate))
                .divide(BigInteger.valueOf(1_000_000_000L))
                .longValueExact();
        assertEquals(accrued, granted.get() + bucket.available());
    }
}
