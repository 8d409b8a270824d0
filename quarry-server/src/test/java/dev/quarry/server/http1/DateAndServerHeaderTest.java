package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.AsyncHandler;
import dev.quarry.server.HttpConfig;
import dev.quarry.server.internal.DateField;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The cached {@code Date} field (IMF-fixdate, refreshed once per second) and the {@code Server} field. */
class DateAndServerHeaderTest extends ServerTestBase {
    private static final String GET = "GET / HTTP/1.1\r\nHost: test\r\n\r\n";
    // RFC 9110 §5.6.7: day-name "," SP 2DIGIT SP month SP 4DIGIT SP hh:mm:ss SP "GMT"
    private static final Pattern IMF_FIXDATE = Pattern.compile(
            "(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \\d{4}"
                    + " \\d{2}:\\d{2}:\\d{2} GMT");

    private static final AsyncHandler OK =
            (request, response, callback) -> response.write(true, ByteBuffer.wrap(new byte[] {'o', 'k'}), callback);

    @Test
    void theDateIsAnImfFixdateOfNow() throws Exception {
        start(builder -> builder.handler(OK));
        Instant before = Instant.now().minusSeconds(2);

        RawResponse response = connect().send(GET).readResponse();

        String date = response.header("Date").orElseThrow(() -> new AssertionError(response.toString()));
        assertTrue(IMF_FIXDATE.matcher(date).matches(), date);
        Instant parsed =
                ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        assertTrue(!parsed.isBefore(before) && !parsed.isAfter(Instant.now().plusSeconds(2)), date);
    }

    @Test
    void theDayHasTwoDigits() {
        assertEquals(
                "Sun, 06 Nov 1994 08:49:37 GMT",
                DateField.format(ZonedDateTime.of(1994, 11, 6, 8, 49, 37, 0, ZoneOffset.UTC)));
        assertEquals(
                "Sun, 06 Nov 1994 08:49:37 GMT",
                DateField.format(ZonedDateTime.of(1994, 11, 6, 9, 49, 37, 0, ZoneOffset.ofHours(1))));
    }

    @Test
    void theDateChangesAcrossASecondBoundary() throws Exception {
        start(builder -> builder.handler(OK));
        RawClient client = connect();
        String first = client.send(GET).readResponse().header("Date").orElseThrow();

        String[] later = new String[1];
        await("a later Date", () -> {
            try {
                later[0] = client.send(GET).readResponse().header("Date").orElseThrow();
            } catch (Exception x) {
                throw new AssertionError(x);
            }
            return !later[0].equals(first);
        });

        Instant from =
                ZonedDateTime.parse(first, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        Instant to = ZonedDateTime.parse(later[0], DateTimeFormatter.RFC_1123_DATE_TIME)
                .toInstant();
        Duration step = Duration.between(from, to);
        assertTrue(!step.isNegative() && step.compareTo(Duration.ofSeconds(5)) <= 0, first + " -> " + later[0]);
    }

    @Test
    void everyResponseCarriesDateAndServerEvenRejections() throws Exception {
        start(builder -> builder.handler((request, response) -> {
            throw new IllegalStateException("for a 500");
        }));

        RawResponse error = connect().send(GET).readResponse();
        RawResponse rejected = connect().send("GET / HTTP/1.1\r\n\r\n").readResponse();

        assertEquals(500, error.status());
        assertEquals(400, rejected.status());
        for (RawResponse response : new RawResponse[] {error, rejected}) {
            assertEquals(
                    "quarry", response.header("Server").orElseThrow(() -> new AssertionError(response.toString())));
            assertEquals(1, response.headerValues("Server").size(), response::toString);
            assertEquals(1, response.headerValues("Date").size(), response::toString);
        }
    }

    @Test
    void theServerFieldIsConfigurable() throws Exception {
        start(builder -> builder.handler(OK).httpConfig(HttpConfig.DEFAULT.withServerName(Optional.of("acme/1.0"))));

        RawResponse response = connect().send(GET).readResponse();

        assertEquals("acme/1.0", response.header("Server").orElseThrow());
    }

    @Test
    void serverAndDateCanBeTurnedOff() throws Exception {
        HttpConfig quiet = HttpConfig.DEFAULT.withServerName(Optional.empty());
        HttpConfig config = new HttpConfig(
                quiet.serverName(),
                false,
                quiet.parser(),
                quiet.uriCompliance(),
                quiet.inputBufferSize(),
                quiet.outputBufferSize(),
                quiet.maxUnconsumedContent(),
                quiet.headerTimeout(),
                quiet.minRequestBodyRate());
        start(builder -> builder.handler(OK).httpConfig(config));

        RawResponse response = connect().send(GET).readResponse();

        assertTrue(response.header("Server").isEmpty(), response::toString);
        assertTrue(response.header("Date").isEmpty(), response::toString);
    }
}
