package dev.quarry.server.handlers;

import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;

/**
 * Evaluates conditional requests against a representation, in the order of RFC 9110 §13.2.2: If-Match, else
 * If-Unmodified-Since (412 when false); then If-None-Match, else If-Modified-Since (304 when false, for GET and HEAD).
 * If-Range (§13.1.5) is separate: it only decides whether a Range is honoured.
 *
 * <p>Entity tags compare as the RFC says: If-Match and If-Range strongly (a weak tag never matches), If-None-Match
 * weakly (the opaque parts equal, {@code W/} ignored). Dates compare at the one-second resolution of HTTP dates.
 *
 * <p>Thread-safety: stateless. Cost: O(length of the fields), allocation-free.
 */
final class Preconditions {

    /** What the preconditions decided. */
    enum Outcome {
        /** Serve the request normally. */
        PROCEED,
        /** 304: the client's copy is current. */
        NOT_MODIFIED,
        /** 412: a precondition of a conditional request failed. */
        PRECONDITION_FAILED
    }

    private Preconditions() {}

    /**
     * @param fields the request fields
     * @param getOrHead whether the method is GET or HEAD (304 applies only to them)
     * @param etag the representation's strong entity tag, quoted
     * @param lastModified its modification time in epoch seconds
     * @param now the current time in epoch seconds
     * @return the outcome
     */
    static Outcome evaluate(HttpFields fields, boolean getOrHead, String etag, long lastModified, long now) {
        if (fields.contains(HttpHeader.IF_MATCH)) {
            if (!matches(fields, HttpHeader.IF_MATCH, etag, true)) {
                return Outcome.PRECONDITION_FAILED;
            }
        } else {
            long since = singleDate(fields, HttpHeader.IF_UNMODIFIED_SINCE, now);
            if (since != HttpDates.INVALID && lastModified > since) {
                return Outcome.PRECONDITION_FAILED;
            }
        }
        if (fields.contains(HttpHeader.IF_NONE_MATCH)) {
            if (matches(fields, HttpHeader.IF_NONE_MATCH, etag, false)) {
                return getOrHead ? Outcome.NOT_MODIFIED : Outcome.PRECONDITION_FAILED;
            }
        } else if (getOrHead) {
            long since = singleDate(fields, HttpHeader.IF_MODIFIED_SINCE, now);
            if (since != HttpDates.INVALID && lastModified <= since) {
                return Outcome.NOT_MODIFIED;
            }
        }
        return Outcome.PROCEED;
    }

    /**
     * RFC 9110 §13.1.5: whether the Range may be honoured. An entity tag must match strongly; a date must equal the
     * Last-Modified exactly, and that Last-Modified must itself be strong, i.e. at least a second before now
     * (§8.8.2.2): a file modified within the current second may change again with the same date.
     *
     * @param ifRange the If-Range value
     * @return whether the representation is the one the client has part of
     */
    static boolean ifRangeMatches(String ifRange, String etag, long lastModified, long now) {
        String value = ifRange.trim();
        if (value.startsWith("\"") || value.startsWith("W/")) {
            return !value.startsWith("W/") && value.equals(etag);
        }
        long date = HttpDates.parse(value, now);
        return date != HttpDates.INVALID && date == lastModified && lastModified < now;
    }

    /**
     * @param fields the request fields
     * @param header If-Match or If-None-Match, whose values (every line) are lists of tags
     * @param etag the current strong tag, quoted
     * @param strong strong comparison (If-Match) or weak (If-None-Match)
     * @return whether {@code *} or any listed tag matches; malformed elements match nothing
     */
    static boolean matches(HttpFields fields, HttpHeader header, String etag, boolean strong) {
        for (int f = 0, n = fields.size(); f < n; f++) {
            if (!fields.field(f).is(header)) {
                continue;
            }
            String value = fields.field(f).value();
            int i = 0;
            int length = value.length();
            while (i < length) {
                char c = value.charAt(i);
                if (c == ' ' || c == '\t' || c == ',') {
                    i++;
                    continue;
                }
                if (c == '*') {
                    return true; // the representation exists
                }
                boolean weak = value.startsWith("W/", i);
                int open = weak ? i + 2 : i;
                int close = open < length && value.charAt(open) == '"' ? value.indexOf('"', open + 1) : -1;
                if (close < 0) {
                    // Malformed: skip to the next element.
                    int comma = value.indexOf(',', i);
                    i = comma < 0 ? length : comma + 1;
                    continue;
                }
                int tagLength = close + 1 - open;
                if ((!strong || !weak) && tagLength == etag.length() && value.regionMatches(open, etag, 0, tagLength)) {
                    return true;
                }
                i = close + 1;
            }
        }
        return false;
    }

    /** RFC 9110 §13.1.3-4: a date field with more than one member, or an invalid date, is ignored. */
    private static long singleDate(HttpFields fields, HttpHeader header, long now) {
        int index = -1;
        for (int f = 0, n = fields.size(); f < n; f++) {
            if (fields.field(f).is(header)) {
                if (index >= 0) {
                    return HttpDates.INVALID;
                }
                index = f;
            }
        }
        return index < 0
                ? HttpDates.INVALID
                : HttpDates.parse(fields.field(index).value(), now);
    }
}
