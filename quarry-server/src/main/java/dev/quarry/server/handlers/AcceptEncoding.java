package dev.quarry.server.handlers;

import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;

/**
 * Reads what {@code Accept-Encoding} (RFC 9110 §12.5.3) allows for the two precompressed codings Quarry serves,
 * {@code br} and {@code gzip} ({@code x-gzip} is the same coding, §8.4.1.3).
 *
 * <p>A coding is acceptable with q &gt; 0, from its own entry, or else from {@code *}; a request without the field gets
 * no coding: the RFC would allow any, but a client that says nothing may not decode anything (curl without
 * {@code --compressed}), which is also nginx's {@code gzip_static} rule. An entry whose q-value is malformed is
 * ignored.
 *
 * <p>Thread-safety: stateless. Cost: O(length), allocation-free.
 */
final class AcceptEncoding {
    /** Accepted codings, as bits of {@link #accepted}. */
    static final int BR = 1;

    static final int GZIP = 2;

    /** Set with both codings when the client gave gzip a higher q-value than br; otherwise br is preferred. */
    static final int PREFER_GZIP = 4;

    private AcceptEncoding() {}

    /**
     * @param fields the request fields
     * @return the {@link #BR} and {@link #GZIP} bits of the acceptable codings, 0 for none, and {@link #PREFER_GZIP}
     */
    static int accepted(HttpFields fields) {
        // q in thousandths; -1 while not mentioned
        int br = -1;
        int gzip = -1;
        int any = -1;
        for (int f = 0, n = fields.size(); f < n; f++) {
            if (!fields.field(f).is(HttpHeader.ACCEPT_ENCODING)) {
                continue;
            }
            String value = fields.field(f).value();
            int i = 0;
            int length = value.length();
            while (i < length) {
                int end = value.indexOf(',', i);
                if (end < 0) {
                    end = length;
                }
                int semicolon = value.indexOf(';', i);
                int nameEnd = semicolon >= 0 && semicolon < end ? semicolon : end;
                int from = skip(value, i, nameEnd);
                int to = trim(value, from, nameEnd);
                int q = nameEnd == end ? 1000 : qValue(value, nameEnd + 1, end);
                if (q >= 0 && to > from) {
                    if (is(value, from, to, "br")) {
                        br = Math.max(br, q);
                    } else if (is(value, from, to, "gzip") || is(value, from, to, "x-gzip")) {
                        gzip = Math.max(gzip, q);
                    } else if (is(value, from, to, "*")) {
                        any = Math.max(any, q);
                    }
                }
                i = end + 1;
            }
        }
        int brQ = br >= 0 ? br : any;
        int gzipQ = gzip >= 0 ? gzip : any;
        int result = 0;
        if (brQ > 0) {
            result |= BR;
        }
        if (gzipQ > 0) {
            result |= GZIP;
            if (brQ > 0 && gzipQ > brQ) {
                result |= PREFER_GZIP;
            }
        }
        return result;
    }

    private static boolean is(String value, int from, int to, String token) {
        return to - from == token.length() && value.regionMatches(true, from, token, 0, token.length());
    }

    /** Parses {@code q=0.5} among the parameters in [from, to): thousandths, 1000 if absent, -1 if malformed. */
    private static int qValue(String value, int from, int to) {
        int i = skip(value, from, to);
        int end = trim(value, i, to);
        if (end - i < 3 || (value.charAt(i) != 'q' && value.charAt(i) != 'Q')) {
            return end == i ? 1000 : -1;
        }
        i = skip(value, i + 1, end);
        if (i >= end || value.charAt(i) != '=') {
            return -1;
        }
        i = skip(value, i + 1, end);
        // qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
        if (i >= end || (value.charAt(i) != '0' && value.charAt(i) != '1')) {
            return -1;
        }
        int whole = value.charAt(i) - '0';
        i++;
        int thousandths = 0;
        if (i < end) {
            if (value.charAt(i) != '.' || end - i > 4) {
                return -1;
            }
            int scale = 100;
            for (i++; i < end; i++, scale /= 10) {
                char c = value.charAt(i);
                if (c < '0' || c > '9') {
                    return -1;
                }
                thousandths += (c - '0') * scale;
            }
        }
        int q = whole * 1000 + thousandths;
        return q > 1000 ? -1 : q;
    }

    private static int skip(String value, int i, int to) {
        while (i < to && (value.charAt(i) == ' ' || value.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    private static int trim(String value, int from, int to) {
        while (to > from && (value.charAt(to - 1) == ' ' || value.charAt(to - 1) == '\t')) {
            to--;
        }
        return to;
    }
}
