package dev.quarry.http.h1;

import dev.quarry.http.HttpField;
import dev.quarry.http.HttpHeader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * Shared {@link HttpField} instances for field lines whose value bytes match exactly, so that a keep-alive connection
 * parses its repeated fields without allocating.
 *
 * <p>Two tiers (the parser already knows the header from the name's bytes, so a lookup is a compare of the value
 * bytes against at most a few candidates, no hashing):
 * <ul>
 *   <li>a static tier indexed by {@link HttpHeader} ordinal, shared by all parsers, of values that browsers and load
 *       generators send verbatim ({@code Connection: keep-alive}, {@code Accept: *}{@code /*},
 *       {@code Accept-Encoding: gzip, deflate, br}...);
 *   <li>a per-connection tier that learns the first values of fields that a client repeats on every request of a
 *       connection ({@code Host}, {@code User-Agent}, {@code Accept}...), bounded by {@link #MAX_LEARNED} entries of at
 *       most {@link #MAX_LEARNED_VALUE} bytes, {@link #MAX_PER_HEADER} per header. Secrets (Authorization, Cookie) and
 *       per-request values (Content-Length, Referer) are never learned. It is one small array of the learned entries,
 *       in the order learned, scanned by header: a client repeats a handful of fields, and every idle connection
 *       keeps its tier (a table indexed by ordinal cost 336 bytes per connection, measured in idle-connections).
 * </ul>
 * Values compare byte for byte (case-sensitive); names are case-insensitive through the header lookup, and a cached
 * field carries the canonical name.
 *
 * <p>Thread-safety: the static tier is immutable; an instance (the learned tier) is confined to its parser's thread.
 */
final class FieldCache {
    static final int MAX_LEARNED = 16;
    static final int MAX_LEARNED_VALUE = 256;
    static final int MAX_PER_HEADER = 2;

    private static final Set<HttpHeader> LEARNABLE = EnumSet.of(
            HttpHeader.HOST,
            HttpHeader.USER_AGENT,
            HttpHeader.ACCEPT,
            HttpHeader.ACCEPT_CHARSET,
            HttpHeader.ACCEPT_ENCODING,
            HttpHeader.ACCEPT_LANGUAGE,
            HttpHeader.CONNECTION,
            HttpHeader.CACHE_CONTROL,
            HttpHeader.CONTENT_TYPE,
            HttpHeader.ORIGIN,
            HttpHeader.PRAGMA,
            HttpHeader.PRIORITY,
            HttpHeader.UPGRADE_INSECURE_REQUESTS,
            HttpHeader.X_REQUESTED_WITH,
            HttpHeader.X_FORWARDED_PROTO,
            HttpHeader.SEC_FETCH_DEST,
            HttpHeader.SEC_FETCH_MODE,
            HttpHeader.SEC_FETCH_SITE,
            HttpHeader.SEC_FETCH_USER,
            HttpHeader.DNT);

    private static final Entry[][] STATIC = new Entry[HttpHeader.values().length][];

    static {
        add(HttpHeader.CONNECTION, "keep-alive", "close", "Keep-Alive", "Upgrade", "Upgrade, HTTP2-Settings");
        add(
                HttpHeader.ACCEPT,
                "*/*",
                "text/plain",
                "application/json",
                "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
                "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
                "text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7");
        add(
                HttpHeader.ACCEPT_ENCODING,
                "gzip",
                "gzip, deflate",
                "gzip, deflate, br",
                "gzip, deflate, br, zstd",
                "gzip,deflate",
                "identity");
        add(HttpHeader.ACCEPT_LANGUAGE, "en-US,en;q=0.9", "en-US,en;q=0.5", "en-US", "en");
        add(HttpHeader.CACHE_CONTROL, "no-cache", "max-age=0", "no-store");
        add(HttpHeader.PRAGMA, "no-cache");
        add(HttpHeader.CONTENT_LENGTH, "0");
        add(
                HttpHeader.CONTENT_TYPE,
                "application/x-www-form-urlencoded",
                "application/json",
                "text/plain",
                "application/octet-stream");
        add(HttpHeader.TRANSFER_ENCODING, "chunked");
        add(HttpHeader.EXPECT, "100-continue");
        add(HttpHeader.UPGRADE, "h2c", "websocket");
        add(HttpHeader.TE, "trailers");
        add(HttpHeader.UPGRADE_INSECURE_REQUESTS, "1");
        add(HttpHeader.SEC_FETCH_DEST, "document", "empty", "image", "script", "style");
        add(HttpHeader.SEC_FETCH_MODE, "navigate", "cors", "no-cors", "same-origin");
        add(HttpHeader.SEC_FETCH_SITE, "none", "same-origin", "same-site", "cross-site");
        add(HttpHeader.SEC_FETCH_USER, "?1");
        add(HttpHeader.DNT, "1");
        add(HttpHeader.PRIORITY, "u=0, i", "u=1", "u=0");
        add(HttpHeader.X_REQUESTED_WITH, "XMLHttpRequest");
    }

    private record Entry(HttpHeader header, HttpField field, byte[] value) {
        boolean matches(byte[] bytes, int from, int to) {
            return Arrays.equals(value, 0, value.length, bytes, from, to);
        }
    }

    private static void add(HttpHeader header, String... values) {
        Entry[] entries = new Entry[values.length];
        for (int i = 0; i < values.length; i++) {
            entries[i] = new Entry(
                    header, new HttpField(header, values[i]), values[i].getBytes(StandardCharsets.ISO_8859_1));
        }
        STATIC[header.ordinal()] = entries;
    }

    private static final Entry[] NONE_LEARNED = new Entry[0];

    // The learned entries, [0, learnedCount); grown by doubling up to MAX_LEARNED.
    private Entry[] learned = NONE_LEARNED;
    private int learnedCount;

    /**
     * @return the shared field for {@code header} with exactly the value bytes {@code bytes[from, to)}, or null
     */
    HttpField lookup(HttpHeader header, byte[] bytes, int from, int to) {
        Entry[] known = learned;
        for (int i = 0, count = learnedCount; i < count; i++) {
            Entry entry = known[i];
            if (entry.header == header && entry.matches(bytes, from, to)) {
                return entry.field;
            }
        }
        Entry[] entries = STATIC[header.ordinal()];
        if (entries != null) {
            for (Entry entry : entries) {
                if (entry.matches(bytes, from, to)) {
                    return entry.field;
                }
            }
        }
        return null;
    }

    /**
     * Offers a field that missed the cache and passed validation; learns it if its header is learnable and there is
     * room.
     */
    void learn(HttpHeader header, HttpField field) {
        if (learnedCount >= MAX_LEARNED || !LEARNABLE.contains(header)) {
            return;
        }
        String value = field.value();
        if (value.length() > MAX_LEARNED_VALUE) {
            return;
        }
        int sameHeader = 0;
        for (int i = 0; i < learnedCount; i++) {
            if (learned[i].header == header && ++sameHeader >= MAX_PER_HEADER) {
                return;
            }
        }
        if (learnedCount == learned.length) {
            learned = Arrays.copyOf(learned, Math.min(MAX_LEARNED, Math.max(2, 2 * learned.length)));
        }
        learned[learnedCount++] = new Entry(header, field, value.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** @return the number of learned fields */
    int learnedCount() {
        return learnedCount;
    }

    @Override
    public String toString() {
        return "FieldCache{learned=" + learnedCount + "/" + MAX_LEARNED + "}";
    }
}
