package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quarry.http.HttpFields;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AcceptEncodingTest {
    // The expected values are bit sets: 1 = br, 2 = gzip, 4 = gzip preferred over br.

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "gzip, deflate, br|3",
                "br|1",
                "gzip;q=0.001|2",
                "gzip;q=0.0001|0",
                "gzip;q=1.000|2",
                "gzip;q=1.001|0",
                "gzip; Q = 0.5|2",
                "br;q=0.4, gzip;q=0.5|7",
                "*|3",
                "*;q=0|0",
                "*, br;q=0|2",
                "identity|0",
                "br;level=5|0",
                ",, gzip ,|2"
            })
    void readsCodingsAndQualities(String value, int expected) {
        assertEquals(expected, AcceptEncoding.accepted(HttpFields.of().add("Accept-Encoding", value)), value);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {"br|gzip|3", "gzip;q=0|br|1"})
    void combinesEveryField(String first, String second, int expected) {
        HttpFields fields = HttpFields.of().add("Accept-Encoding", first).add("Accept-Encoding", second);
        assertEquals(expected, AcceptEncoding.accepted(fields));
    }

    @Test
    void noFieldAcceptsNoCoding() {
        assertEquals(0, AcceptEncoding.accepted(HttpFields.of()));
    }
}
