package dev.quarry.http.hpack;

import java.util.HashMap;
import java.util.Map;

/**
 * The 61-entry HPACK static table (RFC 7541 Appendix A) and the lookups the encoder needs.
 *
 * <p>Immutable and thread-safe. {@link #name(int)} and {@link #value(int)} return the same {@code String} instances on
 * every call, so a decoded indexed field costs no allocation. {@link #indexOf} is one hash lookup plus a scan of the at
 * most seven entries that share a name, which the table keeps adjacent.
 */
final class StaticTable {

    /** Number of entries; dynamic table indices start at {@code LENGTH + 1}. */
    static final int LENGTH = 61;

    // Index 0 is unused: HPACK indices are 1-based (RFC 7541 2.3.3).
    private static final String[] NAMES = new String[LENGTH + 1];
    private static final String[] VALUES = new String[LENGTH + 1];

    /** Name to the lowest index carrying that name. */
    private static final Map<String, Integer> FIRST_INDEX_OF_NAME = new HashMap<>();

    static {
        int i = 1;
        i = entry(i, ":authority", "");
        i = entry(i, ":method", "GET");
        i = entry(i, ":method", "POST");
        i = entry(i, ":path", "/");
        i = entry(i, ":path", "/index.html");
        i = entry(i, ":scheme", "http");
        i = entry(i, ":scheme", "https");
        i = entry(i, ":status", "200");
        i = entry(i, ":status", "204");
        i = entry(i, ":status", "206");
        i = entry(i, ":status", "304");
        i = entry(i, ":status", "400");
        i = entry(i, ":status", "404");
        i = entry(i, ":status", "500");
        i = entry(i, "accept-charset", "");
        i = entry(i, "accept-encoding", "gzip, deflate");
        i = entry(i, "accept-language", "");
        i = entry(i, "accept-ranges", "");
        i = entry(i, "accept", "");
        i = entry(i, "access-control-allow-origin", "");
        i = entry(i, "age", "");
        i = entry(i, "allow", "");
        i = entry(i, "authorization", "");
        i = entry(i, "cache-control", "");
        i = entry(i, "content-disposition", "");
        i = entry(i, "content-encoding", "");
        i = entry(i, "content-language", "");
        i = entry(i, "content-length", "");
        i = entry(i, "content-location", "");
        i = entry(i, "content-range", "");
        i = entry(i, "content-type", "");
        i = entry(i, "cookie", "");
        i = entry(i, "date", "");
        i = entry(i, "etag", "");
        i = entry(i, "expect", "");
        i = entry(i, "expires", "");
        i = entry(i, "from", "");
        i = entry(i, "host", "");
        i = entry(i, "if-match", "");
        i = entry(i, "if-modified-since", "");
        i = entry(i, "if-none-match", "");
        i = entry(i, "if-range", "");
        i = entry(i, "if-unmodified-since", "");
        i = entry(i, "last-modified", "");
        i = entry(i, "link", "");
        i = entry(i, "location", "");
        i = entry(i, "max-forwards", "");
        i = entry(i, "proxy-authenticate", "");
        i = entry(i, "proxy-authorization", "");
        i = entry(i, "range", "");
        i = entry(i, "referer", "");
        i = entry(i, "refresh", "");
        i = entry(i, "retry-after", "");
        i = entry(i, "server", "");
        i = entry(i, "set-cookie", "");
        i = entry(i, "strict-transport-security", "");
        i = entry(i, "transfer-encoding", "");
        i = entry(i, "user-agent", "");
        i = entry(i, "vary", "");
        i = entry(i, "via", "");
        i = entry(i, "www-authenticate", "");
        if (i != LENGTH + 1) {
            throw new ExceptionInInitializerError("static table has " + (i - 1) + " entries, expected " + LENGTH);
        }
    }

    private StaticTable() {}

    private static int entry(int index, String name, String value) {
        NAMES[index] = name;
        VALUES[index] = value;
        FIRST_INDEX_OF_NAME.putIfAbsent(name, index);
        return index + 1;
    }

    /** @return the name of entry {@code index}, 1 to {@value #LENGTH} */
    static String name(int index) {
        return NAMES[index];
    }

    /** @return the value of entry {@code index}, 1 to {@value #LENGTH} */
    static String value(int index) {
        return VALUES[index];
    }

    /**
     * Looks a field up.
     *
     * @return the index of the entry equal to {@code name: value}; else the negated index of the first entry named
     *     {@code name}; else 0
     */
    static int indexOf(String name, String value) {
        Integer first = FIRST_INDEX_OF_NAME.get(name);
        if (first == null) {
            return 0;
        }
        int index = first;
        // Entries sharing a name are adjacent (RFC 7541 Appendix A), so the scan stops at the first other name.
        for (int i = index; i <= LENGTH && NAMES[i].equals(name); i++) {
            if (VALUES[i].equals(value)) {
                return i;
            }
        }
        return -index;
    }

    /** @return the index of the first entry named {@code name}, or 0 */
    static int indexOfName(String name) {
        Integer first = FIRST_INDEX_OF_NAME.get(name);
        return first == null ? 0 : first;
    }
}
