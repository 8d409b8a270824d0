package dev.quarry.http.h2;

import dev.quarry.http.HttpField;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.hpack.HeaderSink;
import dev.quarry.http.internal.HttpChars;
import java.util.Optional;

/**
 * The {@link HeaderSink} that turns the fields an {@code HpackDecoder} hands over into a {@link HeaderBlock}:
 * pseudo-headers into their components, regular fields into {@link HttpFields} (well-known names resolved to their
 * {@link HttpHeader}), and the first HTTP/2 message rule broken into {@code malformed} (RFC 9113 8.1.1, 8.2, 8.3).
 *
 * <p><b>Cost.</b> The decoder hands out the dynamic table's own {@code String}s for indexed fields, so a field that
 * repeats on a connection usually arrives as the very same name and value instances. A small direct-mapped cache
 * keeps the {@link HttpField}s built for valid fields of up to 512 characters, keyed by the identity of both strings:
 * a hit skips the name
 * and value checks, the header lookup and the allocation, and adds the cached (immutable) field. A miss costs the
 * checks (one pass over name and value) and one {@code HttpField}. Per block: one {@code HttpFields} and the
 * {@code HeaderBlock}.
 *
 * <p>Not thread-safe: one per {@link FrameParser}, used by the parsing thread.
 */
final class HeaderBlockBuilder implements HeaderSink {

    /** Which pseudo-headers a block may carry. */
    enum Kind {
        /** A request head, trailers sent by a client, or a PUSH_PROMISE: {@code :status} is malformed. */
        REQUEST,
        /** A response head or trailers sent by a server: request pseudo-headers are malformed. */
        RESPONSE
    }

    private static final int CACHE_SIZE = 64;
    /**
     * Longer fields are not cached: the cache outlives the table entries it mirrors, so this bounds what a peer can
     * make a connection retain to about 32 KiB.
     */
    private static final int MAX_CACHED_LENGTH = 512;

    private static final int FIELDS_CAPACITY = 12;

    // Made at the first field worth caching: a connection whose requests carry only pseudo-headers (or none yet) keeps
    // no 64-slot table.
    private HttpField[] cache;
    /** Pseudo-header values already found valid, by identity: a repeated :authority from the table skips its scan. */
    private final String[] validPseudoValues = new String[6];

    private Kind kind = Kind.REQUEST;
    private String method;
    private String scheme;
    private String authority;
    private String path;
    private String protocol;
    private String status;
    private HttpFields fields;
    private String malformed;
    private boolean regularSeen;

    private long cacheHits;
    private long cacheMisses;

    /** Starts a block. */
    void begin(Kind kind) {
        this.kind = kind;
        method = null;
        scheme = null;
        authority = null;
        path = null;
        protocol = null;
        status = null;
        fields = new HttpFields(FIELDS_CAPACITY);
        malformed = null;
        regularSeen = false;
    }

    /**
     * Ends the block begun by {@link #begin}.
     *
     * @param tooLarge whether the decoder stopped handing fields over at the header list limit
     * @return the block
     */
    HeaderBlock build(boolean tooLarge) {
        HeaderBlock block = new HeaderBlock(
                method,
                scheme,
                authority,
                path,
                protocol,
                status,
                fields,
                malformed == null ? Optional.empty() : Optional.of(malformed),
                tooLarge);
        fields = null;
        return block;
    }

    @Override
    public void header(String name, String value) {
        if (!name.isEmpty() && name.charAt(0) == ':') {
            pseudo(name, value);
            return;
        }
        regularSeen = true;
        int slot = slot(name, value);
        HttpField[] table = cache;
        HttpField cached = table == null ? null : table[slot];
        if (cached != null && cached.name() == name && cached.value() == value) {
            cacheHits++;
            fields.add(cached);
            return;
        }
        cacheMisses++;
        regular(name, value, slot);
    }

    private void regular(String name, String value, int slot) {
        String problem = FieldRules.checkName(name);
        HttpHeader header = null;
        if (problem == null) {
            header = HttpHeader.lookup(name).orElse(null);
            if (header != null) {
                problem = FieldRules.checkConnectionSpecific(header, value);
            }
        }
        if (problem == null) {
            problem = FieldRules.checkValue(name, value);
        }
        if (name.isEmpty()) {
            malformed(problem);
            return;
        }
        HttpField field = HttpField.of(header == null ? Optional.empty() : header.asOptional(), name, value);
        if (problem == null) {
            // The checks depend on the two immutable strings only, so a later hit on the same pair stays valid.
            if (name.length() + value.length() <= MAX_CACHED_LENGTH) {
                HttpField[] table = cache;
                if (table == null) {
                    table = new HttpField[CACHE_SIZE];
                    cache = table;
                }
                table[slot] = field;
            }
        } else {
            malformed(problem);
        }
        fields.add(field);
    }

    private void pseudo(String name, String value) {
        if (regularSeen) {
            malformed("pseudo-header " + HttpChars.quote(name) + " after a regular field (RFC 9113 8.3)");
        }
        int which;
        switch (name) {
            case ":method" -> {
                which = 0;
                method = once(name, method, value, Kind.REQUEST);
            }
            case ":scheme" -> {
                which = 1;
                scheme = once(name, scheme, value, Kind.REQUEST);
            }
            case ":authority" -> {
                which = 2;
                authority = once(name, authority, value, Kind.REQUEST);
            }
            case ":path" -> {
                which = 3;
                path = once(name, path, value, Kind.REQUEST);
            }
            case ":protocol" -> {
                which = 4;
                protocol = once(name, protocol, value, Kind.REQUEST);
            }
            case ":status" -> {
                which = 5;
                status = once(name, status, value, Kind.RESPONSE);
            }
            default -> {
                malformed("unknown pseudo-header " + HttpChars.quote(name) + " (RFC 9113 8.3)");
                return;
            }
        }
        if (validPseudoValues[which] != value) {
            String problem = FieldRules.checkValue(name, value);
            if (problem == null) {
                validPseudoValues[which] = value;
            } else {
                malformed(problem);
            }
        }
    }

    private String once(String name, String previous, String value, Kind allowedIn) {
        if (previous != null) {
            malformed("duplicated pseudo-header " + name + " (RFC 9113 8.3)");
            return previous;
        }
        if (kind != allowedIn) {
            malformed((allowedIn == Kind.RESPONSE ? "response pseudo-header " : "request pseudo-header ") + name
                    + " in a " + (kind == Kind.REQUEST ? "request" : "response") + " (RFC 9113 8.3)");
        }
        return value;
    }

    private void malformed(String problem) {
        if (malformed == null) {
            malformed = problem;
        }
    }

    /**
     * The name's hash is cached in the (usually table-owned) string; the value's length stands in for its hash so
     * that a fresh literal value costs no pass of hashing.
     */
    private static int slot(String name, String value) {
        int h = name.hashCode() + value.length() * 0x9E3779B1;
        return (h ^ (h >>> 16)) & (CACHE_SIZE - 1);
    }

    /** @return field cache hits and misses, for tests and {@code toString} */
    long cacheHits() {
        return cacheHits;
    }

    long cacheMisses() {
        return cacheMisses;
    }

    @Override
    public String toString() {
        return "HeaderBlockBuilder{cache hits=" + cacheHits + ", misses=" + cacheMisses + "}";
    }
}
