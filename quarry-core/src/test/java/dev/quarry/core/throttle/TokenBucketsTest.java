package dev.quarry.core.throttle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.test.Concurrently;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TokenBucketsTest {
    private static final long SECOND = 1_000_000_000L;
    private final SimulatedClock clock = new SimulatedClock();

    private TokenBucket bucket(long rate, long capacity, long initial) {
        return TokenBucket.builder()
                .rate(rate)
                .capacity(capacity)
                .initialTokens(initial)
                .clock(clock)
                .build();
    }

    @Test
    void tryTakeAllTakesFromEveryBucket() {
        TokenBucket request = bucket(10, 100, 100);
        TokenBucket client = bucket(10, 100, 50);
        TokenBucket global = bucket(10, 1000, 1000);
        assertTrue(TokenBuckets.tryTakeAll(40, request, client, global));
        assertEquals(60, request.available());
        assertEquals(10, client.available());
        assertEquals(960, global.available());
    }

    @Test
    void whenOneBucketRefusesTheOthersKeepTheirTokens() {
        TokenBucket request = bucket(10, 100, 100);
        TokenBucket client = bucket(10, 100, 30);
        TokenBucket global = bucket(10, 1000, 1000);
        assertFalse(TokenBuckets.tryTakeAll(40, request, client, global));
        assertEquals(100, request.available(), "refunded");
        assertEquals(30, client.available(), "refused, untouched");
        assertEquals(1000, global.available(), "never asked");
        TokenBucket emptyGlobal = bucket(10, 1000, 0);
        assertFalse(TokenBuckets.tryTakeAll(40, request, global, emptyGlobal));
        assertEquals(100, request.available());
        assertEquals(1000, global.available());
    }

    @Test
    void takeAllTakesTheSmallestGrantFromEachAndRefundsTheRest() {
        TokenBucket request = bucket(10, 100, 100);
        TokenBucket client = bucket(10, 100, 70);
        TokenBucket global = bucket(10, 1000, 25);
        assertEquals(25, TokenBuckets.takeAll(80, request, client, global));
        assertEquals(75, request.available());
        assertEquals(45, client.available());
        assertEquals(0, global.available());
        assertEquals(0, TokenBuckets.takeAll(80, request, client, global), "the global bucket is empty");
        assertEquals(75, request.available(), "nothing kept from a zero grant");
        assertEquals(45, client.available());
    }

    @Test
    void nanosUntilAllIsTheLongestWait() {
        TokenBucket fast = bucket(1000, 100, 0);
        TokenBucket slow = bucket(10, 100, 0);
        assertEquals(SECOND, TokenBuckets.nanosUntilAll(10, fast, slow));
        assertEquals(Long.MAX_VALUE, TokenBuckets.nanosUntilAll(101, fast, slow));
        clock.advance(SECOND);
        assertEquals(0, TokenBuckets.nanosUntilAll(10, fast, slow));
    }

    @Test
    void refundAllGivesBackToEveryBucket() {
        TokenBucket a = bucket(10, 100, 100);
        TokenBucket b = bucket(10, 100, 100);
        assertTrue(TokenBuckets.tryTakeAll(30, a, b));
        TokenBuckets.refundAll(30, a, b);
        assertEquals(100, a.available());
        assertEquals(100, b.available());
    }

    @Test
    void concurrentHierarchicalTakesNeverLeakTokens() throws Exception {
        // A shared "global" bucket and one private bucket per thread, on a frozen clock: whatever the refusals and
        // refunds, what left the global bucket is exactly what the private buckets granted.
        long globalTokens = 200_000;
        TokenBucket global = bucket(1000, globalTokens, globalTokens);
        int threads = 4;
        TokenBucket[] own = new TokenBucket[threads];
        for (int t = 0; t < threads; t++) {
            own[t] = bucket(1000, 100_000, 100_000);
        }
        AtomicLong taken = new AtomicLong();
        Concurrently.run(threads, Duration.ofSeconds(60), thread -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            TokenBucket[] chain = {own[thread], global};
            long mine = 0;
            for (int i = 0; i < 20_000; i++) {
                long n = 1 + random.nextInt(40);
                if (random.nextBoolean()) {
                    mine += TokenBuckets.tryTakeAll(n, chain) ? n : 0;
                } else {
                    mine += TokenBuckets.takeAll(n, chain);
                }
            }
            assertEquals(100_000 - mine, own[thread].available(), "the private bucket of thread " + thread);
            taken.addAndGet(mine);
        });
        assertEquals(globalTokens - taken.get(), global.available());
        assertTrue(taken.get() > 0);
    }
}
