package dev.quarry.core.throttle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import org.junit.jupiter.api.Test;

class TokenBucketTest {
    private static final long SECOND = 1_000_000_000L;
    private final SimulatedClock clock = new SimulatedClock();

    private TokenBucket bucket(long rate, long capacity) {
        return TokenBucket.builder().rate(rate).capacity(capacity).clock(clock).build();
    }

    @Test
    void aNewBucketIsFullUnlessToldToStartEmpty() {
        assertEquals(100, bucket(10, 100).available());
        TokenBucket empty = TokenBucket.builder()
                .rate(10)
                .capacity(100)
                .empty()
                .clock(clock)
                .build();
        assertEquals(0, empty.available());
        TokenBucket some = TokenBucket.builder()
                .rate(10)
                .capacity(100)
                .initialTokens(7)
                .clock(clock)
                .build();
        assertEquals(7, some.available());
    }

    @Test
    void tryTakeTakesAllOrNothing() {
        TokenBucket bucket = bucket(10, 100);
        assertTrue(bucket.tryTake(60));
        assertFalse(bucket.tryTake(41), "only 40 left");
        assertEquals(40, bucket.available(), "a refusal takes nothing");
        assertTrue(bucket.tryTake(40));
        assertFalse(bucket.tryTake(1));
        assertTrue(bucket.tryTake(0), "nothing is always there");
    }

    @Test
    void tryTakeMoreThanTheCapacityIsAlwaysRefused() {
        TokenBucket bucket = bucket(1000, 100);
        clock.advanceSeconds(3600);
        assertFalse(bucket.tryTake(101));
        assertEquals(100, bucket.available());
    }

    @Test
    void takeGrantsWhatTheBucketHolds() {
        TokenBucket bucket = bucket(10, 100);
        assertEquals(70, bucket.take(70));
        assertEquals(30, bucket.take(70), "partial grant");
        assertEquals(0, bucket.take(70), "empty");
        clock.advance(SECOND / 2);
        assertEquals(5, bucket.take(70), "half a second at 10/s");
    }

    @Test
    void theBucketRefillsLazilyUpToItsCapacity() {
        TokenBucket bucket = bucket(10, 100);
        assertEquals(100, bucket.take(100));
        clock.advance(SECOND);
        assertEquals(10, bucket.available());
        clock.advance(3600 * SECOND);
        assertEquals(100, bucket.available(), "capped at the capacity");
        assertEquals(100, bucket.take(1000));
    }

    @Test
    void theLongRunRateIsExactWithFractionalNanosPerToken() {
        // 20 MiB/s is 47.68... ns per token: rounding per refill would drift; the token clock does not.
        long rate = 20L * 1024 * 1024;
        TokenBucket bucket = TokenBucket.builder()
                .rate(rate)
                .capacity(1024 * 1024)
                .empty()
                .clock(clock)
                .build();
        long step = 7_777_777; // an odd step, never a whole number of tokens
        long steps = 3600L * SECOND / step;
        long taken = 0;
        for (long i = 0; i < steps; i++) {
            clock.advance(step);
            taken += bucket.take(TokenBucket.MAX_AMOUNT);
        }
        long elapsed = steps * step;
        long expected = BigInteger.valueOf(elapsed)
                .multiply(BigInteger.valueOf(rate))
                .divide(BigInteger.valueOf(SECOND))
                .longValueExact();
        assertEquals(expected, taken, "an hour at 20 MiB/s in 7.8 ms steps, exactly");
    }

    @Test
    void aSlowRateAccruesSubTokenRemainders() {
        // 3 tokens per second asked every 0.1 s: each step accrues 0.3 token, and none of it may be lost.
        TokenBucket bucket =
                TokenBucket.builder().rate(3).capacity(10).empty().clock(clock).build();
        long taken = 0;
        for (int i = 0; i < 1000; i++) {
            clock.advance(SECOND / 10);
            taken += bucket.take(10);
        }
        assertEquals(300, taken, "100 s at 3/s");
    }

    @Test
    void nanosUntilIsExactlyWhenTheTokensExist() {
        TokenBucket bucket = bucket(3, 10);
        bucket.take(10);
        long wait = bucket.nanosUntil(2);
        assertEquals((2 * SECOND + 2) / 3, wait, "ceil(2 / 3 s) in nanoseconds");
        clock.advance(wait - 1);
        assertFalse(bucket.tryTake(2), "one nanosecond early");
        clock.advance(1);
        assertEquals(0, bucket.nanosUntil(2));
        assertTrue(bucket.tryTake(2), "exactly on time");
    }

    @Test
    void nanosUntilMoreThanTheCapacityIsNever() {
        assertEquals(Long.MAX_VALUE, bucket(10, 100).nanosUntil(101));
    }

    @Test
    void queriesDoNotChangeTheBucket() {
        TokenBucket bucket = bucket(10, 100);
        bucket.take(95);
        clock.advance(SECOND);
        for (int i = 0; i < 10; i++) {
            assertEquals(15, bucket.available());
            assertEquals(SECOND / 2, bucket.nanosUntil(20));
        }
        assertEquals(15, bucket.take(100));
    }

    @Test
    void reserveTakesIntoDebtAndSaysHowLongToWait() {
        TokenBucket bucket = bucket(1000, 100);
        assertEquals(0, bucket.reserve(100), "in the bucket");
        assertEquals(SECOND / 10, bucket.reserve(100), "100 tokens at 1000/s");
        assertEquals(-100, bucket.available(), "in debt");
        assertEquals(2 * SECOND / 10, bucket.reserve(100), "queued behind the previous reservation");
        clock.advance(SECOND / 10);
        assertEquals(-100, bucket.available());
        assertFalse(bucket.tryTake(1), "tokens owed to waiters are not given to others");
    }

    @Test
    void reservationsLargerThanTheCapacityWaitLonger() {
        TokenBucket bucket = bucket(1000, 100);
        assertEquals(SECOND / 10, bucket.reserve(200), "100 in the bucket, 100 more to accrue");
    }

    @Test
    void refundGivesBackExactlyWhatWasTaken() {
        TokenBucket bucket = bucket(10, 100);
        bucket.take(30);
        bucket.take(20);
        bucket.refund(20);
        assertEquals(70, bucket.available());
        bucket.reserve(200);
        bucket.refund(200);
        assertEquals(70, bucket.available(), "a refunded reservation is no longer owed");
    }

    @Test
    void refundNeverOverfillsTheBucket() {
        TokenBucket bucket = bucket(10, 100);
        bucket.take(50);
        clock.advance(10 * SECOND);
        bucket.refund(50);
        assertEquals(100, bucket.available());
        bucket.refund(1000);
        assertEquals(100, bucket.available());
        assertEquals(100, bucket.take(1000), "a refund beyond the capacity grants nothing later either");
    }

    @Test
    void aRateChangeKeepsTheTokensAndAppliesFromNow() {
        TokenBucket bucket = bucket(10, 100);
        bucket.take(80);
        bucket.reconfigure(1000, 100);
        assertEquals(20, bucket.available(), "the tokens held carry over");
        assertEquals(1000, bucket.rate());
        clock.advance(SECOND / 20);
        assertEquals(70, bucket.available(), "50 ms at the new rate");
    }

    @Test
    void aSmallerCapacityDropsTheExcess() {
        TokenBucket bucket = bucket(10, 100);
        bucket.reconfigure(10, 30);
        assertEquals(30, bucket.available());
        assertEquals(30, bucket.capacity());
        clock.advance(100 * SECOND);
        assertEquals(30, bucket.available());
    }

    @Test
    void aLargerCapacityDoesNotInventTokens() {
        TokenBucket bucket = bucket(10, 100);
        clock.advance(3600 * SECOND); // long full: 36,000 tokens overflowed and are gone
        bucket.reconfigure(10, 1_000_000);
        assertEquals(100, bucket.available(), "what it held, not what overflowed");
        clock.advance(SECOND);
        assertEquals(110, bucket.available());
    }

    @Test
    void aDebtCarriesOverARateChange() {
        TokenBucket bucket = bucket(100, 100);
        bucket.reserve(300); // 200 in debt: 2 s at 100/s
        bucket.reconfigure(1000, 100);
        assertEquals(-200, bucket.available());
        assertEquals(SECOND / 5 + SECOND / 100, bucket.nanosUntil(10), "the debt is paid at the new rate");
    }

    @Test
    void anUnlimitedBucketGrantsEverythingAndCanBeLimitedLater() {
        TokenBucket bucket = TokenBucket.builder().clock(clock).build();
        assertTrue(bucket.isUnlimited());
        assertTrue(bucket.tryTake(TokenBucket.MAX_AMOUNT));
        assertEquals(1234, bucket.take(1234));
        assertEquals(0, bucket.reserve(TokenBucket.MAX_AMOUNT));
        assertEquals(0, bucket.nanosUntil(TokenBucket.MAX_AMOUNT));
        assertEquals(Long.MAX_VALUE, bucket.available());
        bucket.reconfigure(10, 50);
        assertFalse(bucket.isUnlimited());
        assertEquals(50, bucket.available(), "leaving unlimited mode starts full");
        bucket.take(50);
        bucket.reconfigure(TokenBucket.UNLIMITED, 50);
        assertTrue(bucket.tryTake(1000));
        bucket.reconfigure(10, 50);
        assertEquals(50, bucket.available());
    }

    @Test
    void theClockMayWrapAround() {
        SimulatedClock wrapping = new SimulatedClock(Long.MAX_VALUE - SECOND / 2);
        TokenBucket bucket = TokenBucket.builder()
                .rate(100)
                .capacity(1000)
                .empty()
                .clock(wrapping)
                .build();
        wrapping.advance(SECOND); // now past Long.MAX_VALUE: negative
        assertEquals(100, bucket.available());
        assertEquals(SECOND / 10, bucket.nanosUntil(110));
    }

    @Test
    void aCenturyIdleAtTheHighestRateDoesNotOverflow() {
        TokenBucket bucket = TokenBucket.builder()
                .rate(TokenBucket.MAX_RATE)
                .capacity(TokenBucket.MAX_AMOUNT)
                .empty()
                .clock(clock)
                .build();
        clock.advance(100L * 365 * 24 * 3600 * SECOND);
        assertEquals(TokenBucket.MAX_AMOUNT, bucket.available());
        assertTrue(bucket.tryTake(TokenBucket.MAX_AMOUNT), "rebases itself and goes on");
        assertEquals(0, bucket.available());
        clock.advance(SECOND);
        assertEquals(TokenBucket.MAX_RATE, bucket.available());
    }

    @Test
    void theRateStaysExactAcrossRebases() {
        // At the highest rate the token clock rebases after about 388 days: a year of monthly takes crosses it.
        long rate = TokenBucket.MAX_RATE;
        TokenBucket bucket = TokenBucket.builder()
                .rate(rate)
                .capacity(TokenBucket.MAX_AMOUNT)
                .empty()
                .clock(clock)
                .build();
        long month = 30L * 24 * 3600 * SECOND;
        long taken = 0;
        for (int i = 0; i < 24; i++) {
            clock.advance(month);
            taken += bucket.take(TokenBucket.MAX_AMOUNT);
        }
        long expected = 24 * (month / SECOND) * rate;
        assertTrue(expected - taken >= 0 && expected - taken <= 2, "exact to the sub-token lost per rebase: " + taken);
    }

    @Test
    void badArgumentsAreRejectedWithTheValue() {
        TokenBucket bucket = bucket(10, 100);
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> bucket.tryTake(-1));
        assertTrue(negative.getMessage().contains("-1"), negative.getMessage());
        assertThrows(IllegalArgumentException.class, () -> bucket.reconfigure(0, 10));
        assertThrows(IllegalArgumentException.class, () -> bucket.reconfigure(TokenBucket.MAX_RATE + 1, 10));
        assertThrows(IllegalArgumentException.class, () -> bucket.reconfigure(10, 0));
        IllegalArgumentException initial = assertThrows(
                IllegalArgumentException.class,
                () -> TokenBucket.builder().rate(1).capacity(5).initialTokens(6).build());
        assertTrue(initial.getMessage().contains("6"), initial.getMessage());
        assertEquals(10, bucket.rate(), "a rejected change changes nothing");
    }

    @Test
    void toStringShowsTheLiveState() {
        TokenBucket bucket = bucket(10, 100);
        bucket.take(40);
        assertEquals("TokenBucket{rate=10/s, capacity=100, available=60}", bucket.toString());
        assertEquals("TokenBucket{unlimited}", TokenBucket.unlimited().toString());
    }
}
