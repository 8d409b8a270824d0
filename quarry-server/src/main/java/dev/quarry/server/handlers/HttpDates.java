package dev.quarry.server.handlers;

import java.time.DateTimeException;
import java.time.LocalDate;

/**
 * Parses HTTP dates (RFC 9110 §5.6.7) to epoch seconds: IMF-fixdate ({@code Sun, 06 Nov 1994 08:49:37 GMT}) and the
 * two obsolete forms a recipient must still accept, RFC 850 ({@code Sunday, 06-Nov-94 08:49:37 GMT}) and asctime
 * ({@code Sun Nov  6 08:49:37 1994}). The weekday is not checked.
 *
 * <p>Thread-safety: stateless. Cost: O(length), allocation-free but for the trim.
 */
final class HttpDates {
    /** Returned for a value that is not an HTTP date. */
    static final long INVALID = Long.MIN_VALUE;

    private static final String MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec";

    private HttpDates() {}

    /**
     * @param value a field value
     * @param nowSeconds the current time, to place a two-digit RFC 850 year
     * @return the date in seconds since the epoch, or {@link #INVALID}
     */
    static long parse(String value, long nowSeconds) {
        String s = value.trim();
        int comma = s.indexOf(',');
        if (comma == 3 && s.length() == 29) {
            // "Sun, 06 Nov 1994 08:49:37 GMT"
            if (s.charAt(4) != ' '
                    || s.charAt(7) != ' '
                    || s.charAt(11) != ' '
                    || s.charAt(16) != ' '
                    || !s.endsWith(" GMT")) {
                return INVALID;
            }
            return epoch(digits(s, 12, 4), month(s, 8), digits(s, 5, 2), s, 17);
        }
        if (comma > 3 && s.length() == comma + 24) {
            // "Sunday, 06-Nov-94 08:49:37 GMT"
            int at = comma + 2;
            if (s.charAt(comma + 1) != ' '
                    || s.charAt(at + 2) != '-'
                    || s.charAt(at + 6) != '-'
                    || s.charAt(at + 9) != ' '
                    || !s.endsWith(" GMT")) {
                return INVALID;
            }
            int year = digits(s, at + 7, 2);
            if (year < 0) {
                return INVALID;
            }
            // RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past century.
            int currentYear =
                    LocalDate.ofEpochDay(Math.floorDiv(nowSeconds, 86_400)).getYear();
            int full = currentYear / 100 * 100 + year;
            if (full > currentYear + 50) {
                full -= 100;
            }
            return epoch(full, month(s, at + 3), digits(s, at, 2), s, at + 10);
        }
        if (comma < 0 && s.length() == 24) {
            // "Sun Nov  6 08:49:37 1994"
            if (s.charAt(3) != ' ' || s.charAt(7) != ' ' || s.charAt(10) != ' ' || s.charAt(19) != ' ') {
                return INVALID;
            }
            int day = s.charAt(8) == ' ' ? digits(s, 9, 1) : digits(s, 8, 2);
            return epoch(digits(s, 20, 4), month(s, 4), day, s, 11);
        }
        return INVALID;
    }

    /** The time of day is {@code HH:mm:ss} at {@code time}. */
    private static long epoch(int year, int month, int day, String s, int time) {
        if (s.charAt(time + 2) != ':' || s.charAt(time + 5) != ':') {
            return INVALID;
        }
        int hour = digits(s, time, 2);
        int minute = digits(s, time + 3, 2);
        int second = digits(s, time + 6, 2);
        if (year < 0
                || month < 0
                || day < 0
                || hour < 0
                || hour > 23
                || minute < 0
                || minute > 59
                || second < 0
                || second > 60) {
            return INVALID;
        }
        try {
            long days = LocalDate.of(year, month, day).toEpochDay();
            return days * 86_400 + hour * 3600L + minute * 60L + Math.min(second, 59);
        } catch (DateTimeException x) {
            return INVALID; // e.g. 31 Feb: not a date, so the field is ignored
        }
    }

    private static int month(String s, int at) {
        for (int i = 0; i < 12; i++) {
            if (s.regionMatches(at, MONTHS, i * 3, 3)) {
                return i + 1;
            }
        }
        return -1;
    }

    private static int digits(String s, int at, int count) {
        int value = 0;
        for (int i = at; i < at + count; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
