package dev.quarry.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {
    @Test
    void smallValuesAreExact() {
        LatencyHistogram histogram = new LatencyHistogram();
        for (int i = 1; i <= 100; i++) {
            histogram.record(i);
        }
        assertEquals(100, histogram.count());
        assertEquals(50, histogram.percentile(50));
        assertEquals(99, histogram.percentile(99));
        assertEquals(100, histogram.percentile(100));
        assertEquals(100, histogram.max());
    }

    @Test
    void percentilesOfAWideDistributionAreWithinTwoPercent() {
        LatencyHistogram histogram = new LatencyHistogram();
        Random random = new Random(42);
        long[] values = IntStream.range(0, 200_000)
                .mapToLong(i -> (long) Math.exp(random.nextDouble() * Math.log(50_000_000)))
                .sorted()
                .toArray();
        for (long value : values) {
            histogram.record(value);
        }
        for (double p : new double[] {50, 90, 99, 99.9}) {
            long exact = values[(int) Math.ceil(p / 100 * values.length) - 1];
            long estimate = histogram.percentile(p);
            assertTrue(
                    estimate >= exact && estimate <= exact * 1.02 + 1,
                    "p" + p + ": exact " + exact + ", estimate " + estimate);
        }
        assertEquals(values[values.length - 1], histogram.max());
    }

    @Test
    void emptyAndHugeValuesAreHandled() {
        LatencyHistogram histogram = new LatencyHistogram();
        assertEquals(0, histogram.percentile(99));
        histogram.record(-5);
        histogram.record(Long.MAX_VALUE);
        assertEquals(0, histogram.percentile(50));
        assertEquals(Long.MAX_VALUE, histogram.percentile(100));
    }
}
