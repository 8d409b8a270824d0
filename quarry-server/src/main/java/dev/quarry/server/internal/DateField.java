package dev.quarry.server.internal;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.timer.HashedWheelTimer;
import dev.quarry.core.timer.Timeout;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.PreEncodedHttpField;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The {@code Date} response field, pre-encoded and refreshed once per second on the timer, so that a response costs
 * one volatile read for it instead of formatting a date.
 *
 * <p>Thread-safety: {@link #field()} from any thread.
 */
public final class DateField {
    private final HashedWheelTimer timer;
    private volatile PreEncodedHttpField field = format();
    private volatile Timeout next;
    private volatile boolean running;

    /** @param timer ticks the refresh */
    public DateField(HashedWheelTimer timer) {
        this.timer = timer;
    }

    /** Starts refreshing. */
    public void start() {
        running = true;
        refresh();
    }

    /** Stops refreshing. */
    public void stop() {
        running = false;
        Timeout current = next;
        if (current != null) {
            current.cancel();
        }
    }

    /** @return the current Date field */
    public PreEncodedHttpField field() {
        return field;
    }

    private void refresh() {
        field = format();
        if (running) {
            long millis = System.currentTimeMillis();
            // Wake up just after the next second starts.
            long delay = 1000 - (millis % 1000) + 1;
            next = timer.schedule(
                    Invocable.task(InvocationType.NON_BLOCKING, this::refresh), delay, TimeUnit.MILLISECONDS);
        }
    }

    // IMF-fixdate (RFC 9110 5.6.7): two-digit day, English names, always GMT. RFC_1123_DATE_TIME would print "2 Nov".
    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US);

    /**
     * @param time an instant
     * @return it as an HTTP date, e.g. {@code Sun, 06 Nov 1994 08:49:37 GMT}
     */
    public static String format(ZonedDateTime time) {
        return IMF_FIXDATE.format(time.withZoneSameInstant(ZoneOffset.UTC));
    }

    private static PreEncodedHttpField format() {
        return new PreEncodedHttpField(HttpHeader.DATE, format(ZonedDateTime.now(ZoneOffset.UTC)));
    }
}
