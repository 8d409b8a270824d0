package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.quarry.server.handlers.ByteRanges.ByteRange;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ByteRangesTest {

    private static List<ByteRange> resolve(String value, long size) {
        return ByteRanges.parse(value).resolve(size);
    }

    @Test
    void resolvesTheThreeFormsOfRangeSpec() {
        assertEquals(List.of(new ByteRange(0, 9)), resolve("bytes=0-9", 100));
        assertEquals(List.of(new ByteRange(90, 99)), resolve("bytes=90-", 100));
        assertEquals(List.of(new ByteRange(80, 99)), resolve("bytes=-20", 100));
    }

    @Test
    void coalescesOverlappingAndAdjacentRangesInPlace() {
        assertEquals(List.of(new ByteRange(0, 29)), resolve("bytes=0-9,10-19,5-29", 100));
        assertEquals(
                List.of(new ByteRange(50, 59), new ByteRange(0, 30)), resolve("bytes=50-59,20-30,0-10,11-19", 100));
        // A range that bridges two earlier ones joins them all.
        assertEquals(List.of(new ByteRange(0, 50)), resolve("bytes=0-10,40-50,5-45", 100));
        assertEquals(List.of(new ByteRange(0, 10), new ByteRange(12, 20)), resolve("bytes=0-10,12-20", 100));
    }

    @Test
    void dropsUnsatisfiableRanges() {
        assertEquals(List.of(new ByteRange(5, 6)), resolve("bytes=100-200,5-6,-0", 100));
        assertEquals(List.of(), resolve("bytes=100-", 100));
        assertEquals(List.of(), resolve("bytes=-5", 0));
    }

    @Test
    void countsTheSpecsAsSent() {
        assertEquals(3, ByteRanges.parse("bytes=0-1, 0-1,,0-1").count());
        assertEquals("bytes=0-1,-5,7-", ByteRanges.parse("bytes=0-1, -5, 7-").toString());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "bytes=",
                "bytes=,",
                "bytes=5-4",
                "bytes=a-b",
                "bytes=-",
                "bytes=1",
                "bytes=1-2-3",
                "bytes=0-1,x",
                "bits=0-1",
                "bytes 0-1",
                "bytes=1234567890123456789-",
                "bytes=+1-2"
            })
    void rejectsMalformedFields(String value) {
        assertNull(ByteRanges.parse(value), value);
    }
}
