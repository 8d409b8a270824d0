package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HttpDatesTest {
    private static final long NOW = Instant.parse("2025-06-01T00:00:00Z").getEpochSecond();
    private static final long RFC_EXAMPLE =
            Instant.parse("1994-11-06T08:49:37Z").getEpochSecond();

    @Test
    void parsesTheThreeFormatsOfRfc9110() {
        assertEquals(RFC_EXAMPLE, HttpDates.parse("Sun, 06 Nov 1994 08:49:37 GMT", NOW));
        assertEquals(RFC_EXAMPLE, HttpDates.parse("Sunday, 06-Nov-94 08:49:37 GMT", NOW));
        assertEquals(RFC_EXAMPLE, HttpDates.parse("Sun Nov  6 08:49:37 1994", NOW));
        assertEquals(RFC_EXAMPLE, HttpDates.parse("  Sun, 06 Nov 1994 08:49:37 GMT ", NOW));
    }

    @Test
    void aTwoDigitYearMoreThanFiftyYearsAheadIsInThePast() {
        assertEquals(
                Instant.parse("2030-01-01T00:00:00Z").getEpochSecond(),
                HttpDates.parse("Tuesday, 01-Jan-30 00:00:00 GMT", NOW));
        assertEquals(
                Instant.parse("1980-01-01T00:00:00Z").getEpochSecond(),
                HttpDates.parse("Tuesday, 01-Jan-80 00:00:00 GMT", NOW));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "yesterday",
                "Sun, 06 Nov 1994 08:49:37 UTC",
                "Sun, 06 Foo 1994 08:49:37 GMT",
                "Sun, 31 Feb 1994 08:49:37 GMT",
                "Sun, 06 Nov 1994 24:49:37 GMT",
                "Sun, 06 Nov 1994 08-49-37 GMT",
                "Sun, 6 Nov 1994 08:49:37 GMT",
                "1994-11-06T08:49:37Z",
                "Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT"
            })
    void rejectsWhatIsNotAnHttpDate(String value) {
        assertEquals(HttpDates.INVALID, HttpDates.parse(value, NOW));
    }
}
