package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ThrottleLimitsTest {

    @Test
    void ratesParseWithBinaryAndDecimalUnits() {
        assertEquals(20L << 20, ThrottleLimits.parseRate("20MiB/s"));
        assertEquals(20L << 10, ThrottleLimits.parseRate("20 KiB/s"));
        assertEquals(1_500_000, ThrottleLimits.parseRate("1.5MB/sec"));
        assertEquals(1536, ThrottleLimits.parseRate("1.5KiB"));
        assertEquals(500_000, ThrottleLimits.parseRate("500000"));
        assertEquals(1L << 30, ThrottleLimits.parseRate("1gib/s"));
        assertEquals(300, ThrottleLimits.parseRate("300B/s"));
    }

    @Test
    void kMAndGArePowersOf1000AndKiMiGiOf1024() {
        assertEquals(20_000, ThrottleLimits.parseRate("20k"));
        assertEquals(20_000, ThrottleLimits.parseRate("20K"));
        assertEquals(20_000, ThrottleLimits.parseRate("20kB/s"));
        assertEquals(2_000_000, ThrottleLimits.parseRate("2M"));
        assertEquals(1_000_000_000, ThrottleLimits.parseRate("1G"));
        assertEquals(20 * 1024, ThrottleLimits.parseRate("20Ki"));
        assertEquals(1L << 20, ThrottleLimits.parseRate("1Mi"));
        assertEquals(1L << 30, ThrottleLimits.parseRate("1Gi/s"));
        assertEquals(64_000, ThrottleLimits.parseSize("64k"));
        assertEquals(1L << 20, ThrottleLimits.parseSize("1Mi"));
    }

    @Test
    void unitsThatReadAsBitsAreRefused() {
        for (String bits : new String[] {"8Mb/s", "100kb", "1Gb", "10Mbit/s", "100kbps", "1 Mbps"}) {
            IllegalArgumentException x =
                    assertThrows(IllegalArgumentException.class, () -> ThrottleLimits.parseRate(bits), bits);
            assertTrue(x.getMessage().contains("bytes") && x.getMessage().contains(bits), x.getMessage());
        }
    }

    @Test
    void unlimitedIsZero() {
        assertEquals(0, ThrottleLimits.parseRate("unlimited"));
        assertEquals(0, ThrottleLimits.parseRate("0"));
        assertEquals(0, ThrottleLimits.parseRate(" Off "));
        assertEquals("unlimited", ThrottleLimits.formatRate(0));
    }

    @Test
    void badRatesAreRejectedWithTheText() {
        IllegalArgumentException unit =
                assertThrows(IllegalArgumentException.class, () -> ThrottleLimits.parseRate("20 furlongs/s"));
        assertTrue(unit.getMessage().contains("furlongs"), unit.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ThrottleLimits.parseRate("fast"));
        assertThrows(IllegalArgumentException.class, () -> ThrottleLimits.parseRate("-1"));
        IllegalArgumentException tooFast =
                assertThrows(IllegalArgumentException.class, () -> ThrottleLimits.parseRate("100GiB/s"));
        assertTrue(tooFast.getMessage().contains("100GiB/s"), tooFast.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ThrottleLimits.parseSize("16KiB/s"));
    }

    @Test
    void sizesParseAndFormat() {
        assertEquals(16 * 1024, ThrottleLimits.parseSize("16KiB"));
        assertEquals("16 KiB", ThrottleLimits.formatSize(16 * 1024));
        assertEquals("20 MiB/s", ThrottleLimits.formatRate(20L << 20));
        assertEquals("1500 B/s", ThrottleLimits.formatRate(1500));
        assertEquals("20 kB/s", ThrottleLimits.formatRate(20_000));
        assertEquals("3 MB", ThrottleLimits.formatSize(3_000_000));
    }

    @Test
    void defaultBurstIsTwoChunksOrATenthOfASecond() {
        ThrottleLimits limits = ThrottleLimits.builder()
                .globalRate(20L << 20)
                .requestRate(20 << 10)
                .build();
        assertEquals((20L << 20) / 10, limits.globalCapacity(), "100 ms of 20 MiB/s");
        assertEquals(2 * ThrottleLimits.DEFAULT_CHUNK_SIZE, limits.requestCapacity(), "two chunks");
        assertEquals(12345, limits.toBuilder().requestBurst(12345).build().requestCapacity(), "an explicit burst wins");
    }

    @Test
    void invalidLimitsNameTheValue() {
        IllegalArgumentException rate = assertThrows(
                IllegalArgumentException.class,
                () -> ThrottleLimits.builder().clientRate(-5).build());
        assertTrue(rate.getMessage().contains("clientRate") && rate.getMessage().contains("-5"), rate.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> ThrottleLimits.builder().chunkSize(0).build());
        assertThrows(
                IllegalArgumentException.class,
                () -> ThrottleLimits.builder().maxRequestsPerClient(-1).build());
        assertThrows(
                IllegalArgumentException.class,
                () -> ThrottleLimits.builder().clientIdleEviction(Duration.ZERO).build());
    }

    @Test
    void toStringIsReadable() {
        ThrottleLimits limits = ThrottleLimits.builder()
                .globalRate(20L << 20)
                .requestRate(20 << 10)
                .maxRequestsPerClient(4)
                .deny("10.0.0.0/8")
                .build();
        assertEquals(
                "ThrottleLimits{global=20 MiB/s (burst 2 MiB), client=unlimited, request=20 KiB/s (burst 32 KiB),"
                        + " chunk=16 KiB, maxRequestsPerClient=4, allow=[], deny=[10.0.0.0/8], clientIdleEviction=PT1M}",
                limits.toString());
    }
}
