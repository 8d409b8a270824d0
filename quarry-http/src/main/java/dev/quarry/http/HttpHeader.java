package dev.quarry.http;

import dev.quarry.http.internal.HttpChars;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;

/**
 * Well-known field names, each with its canonical spelling, its lower-case spelling (HTTP/2, RFC 9113 §8.2.1) and its
 * pre-encoded HTTP/1 prefix {@code Name: }.
 *
 * <p>Lookups are case-insensitive (RFC 9110 §5.1) and allocation-free: the length and the first, middle and last bytes,
 * lower-cased, are hashed in O(1) into an open-addressed table of 256 slots (a few probes at most), then the candidate
 * is compared case-insensitively. They return cached
 * {@code Optional}s, so that an absent header costs nothing either.
 *
 * <p>Thread-safety: immutable. The arrays returned by the byte accessors are shared: do not modify them.
 */
public enum HttpHeader {
    // Connection management and framing (RFC 9110 §7.6, §8.6, RFC 9112 §6-7, §9)
    CONNECTION("Connection", true),
    CONTENT_LENGTH("Content-Length", true),
    TRANSFER_ENCODING("Transfer-Encoding", true),
    TE("TE", true),
    TRAILER("Trailer", true),
    UPGRADE("Upgrade", true),
    KEEP_ALIVE("Keep-Alive", true),
    PROXY_CONNECTION("Proxy-Connection", true),
    HTTP2_SETTINGS("HTTP2-Settings", true),
    VIA("Via", false),
    DATE("Date", false),
    // Request routing, modifiers and context
    HOST("Host", true),
    ACCEPT("Accept", false),
    ACCEPT_CHARSET("Accept-Charset", false),
    ACCEPT_ENCODING("Accept-Encoding", false),
    ACCEPT_LANGUAGE("Accept-Language", false),
    AUTHORIZATION("Authorization", true),
    PROXY_AUTHORIZATION("Proxy-Authorization", true),
    COOKIE("Cookie", true),
    EXPECT("Expect", true),
    FROM("From", false),
    IF_MATCH("If-Match", true),
    IF_NONE_MATCH("If-None-Match", true),
    IF_MODIFIED_SINCE("If-Modified-Since", true),
    IF_UNMODIFIED_SINCE("If-Unmodified-Since", true),
    IF_RANGE("If-Range", true),
    RANGE("Range", true),
    MAX_FORWARDS("Max-Forwards", true),
    ORIGIN("Origin", false),
    REFERER("Referer", false),
    USER_AGENT("User-Agent", false),
    UPGRADE_INSECURE_REQUESTS("Upgrade-Insecure-Requests", false),
    PRIORITY("Priority", false),
    FORWARDED("Forwarded", true),
    X_FORWARDED_FOR("X-Forwarded-For", true),
    X_FORWARDED_HOST("X-Forwarded-Host", true),
    X_FORWARDED_PORT("X-Forwarded-Port", true),
    X_FORWARDED_PROTO("X-Forwarded-Proto", true),
    X_REQUESTED_WITH("X-Requested-With", false),
    DNT("DNT", false),
    SEC_FETCH_DEST("Sec-Fetch-Dest", false),
    SEC_FETCH_MODE("Sec-Fetch-Mode", false),
    SEC_FETCH_SITE("Sec-Fetch-Site", false),
    SEC_FETCH_USER("Sec-Fetch-User", false),
    ACCESS_CONTROL_REQUEST_METHOD("Access-Control-Request-Method", true),
    ACCESS_CONTROL_REQUEST_HEADERS("Access-Control-Request-Headers", true),
    // Caching (RFC 9111)
    CACHE_CONTROL("Cache-Control", true),
    PRAGMA("Pragma", true),
    AGE("Age", true),
    EXPIRES("Expires", true),
    // Representation metadata (RFC 9110 §8)
    CONTENT_TYPE("Content-Type", true),
    CONTENT_ENCODING("Content-Encoding", true),
    CONTENT_LANGUAGE("Content-Language", true),
    CONTENT_LOCATION("Content-Location", true),
    CONTENT_RANGE("Content-Range", true),
    CONTENT_DISPOSITION("Content-Disposition", true),
    ETAG("ETag", false),
    LAST_MODIFIED("Last-Modified", false),
    // Response context and control
    ACCEPT_RANGES("Accept-Ranges", false),
    ALLOW("Allow", false),
    ALT_SVC("Alt-Svc", false),
    LINK("Link", false),
    LOCATION("Location", true),
    RETRY_AFTER("Retry-After", false),
    SERVER("Server", false),
    SET_COOKIE("Set-Cookie", true),
    VARY("Vary", false),
    WWW_AUTHENTICATE("WWW-Authenticate", true),
    PROXY_AUTHENTICATE("Proxy-Authenticate", true),
    STRICT_TRANSPORT_SECURITY("Strict-Transport-Security", true),
    CONTENT_SECURITY_POLICY("Content-Security-Policy", false),
    X_CONTENT_TYPE_OPTIONS("X-Content-Type-Options", false),
    X_FRAME_OPTIONS("X-Frame-Options", false),
    REFERRER_POLICY("Referrer-Policy", false),
    ACCESS_CONTROL_ALLOW_ORIGIN("Access-Control-Allow-Origin", true),
    ACCESS_CONTROL_ALLOW_METHODS("Access-Control-Allow-Methods", true),
    ACCESS_CONTROL_ALLOW_HEADERS("Access-Control-Allow-Headers", true),
    ACCESS_CONTROL_ALLOW_CREDENTIALS("Access-Control-Allow-Credentials", true),
    ACCESS_CONTROL_EXPOSE_HEADERS("Access-Control-Expose-Headers", true),
    ACCESS_CONTROL_MAX_AGE("Access-Control-Max-Age", true);

    private static final int TABLE_SIZE = 256;
    private static final HttpHeader[] TABLE = new HttpHeader[TABLE_SIZE];
    private static final int MAX_NAME_LENGTH;

    static {
        int max = 0;
        for (HttpHeader header : values()) {
            int slot = slot(hash(header.lowerBytes, 0, header.lowerBytes.length));
            while (TABLE[slot] != null) {
                slot = (slot + 1) & (TABLE_SIZE - 1);
            }
            TABLE[slot] = header;
            max = Math.max(max, header.lowerBytes.length);
        }
        MAX_NAME_LENGTH = max;
    }

    private final String name;
    private final String lowerCaseName;
    private final byte[] lowerBytes;
    private final byte[] prefix;
    private final boolean forbiddenInTrailer;
    private final Optional<HttpHeader> optional;

    HttpHeader(String name, boolean forbiddenInTrailer) {
        this.name = name;
        this.lowerCaseName = name.toLowerCase(Locale.ROOT);
        this.lowerBytes = lowerCaseName.getBytes(StandardCharsets.US_ASCII);
        this.prefix = (name + ": ").getBytes(StandardCharsets.US_ASCII);
        this.forbiddenInTrailer = forbiddenInTrailer;
        this.optional = Optional.of(this);
    }

    /** @return the canonical spelling, e.g. {@code Content-Length} */
    public String asString() {
        return name;
    }

    /** @return the lower-case spelling, e.g. {@code content-length}, as HTTP/2 requires */
    public String lowerCaseName() {
        return lowerCaseName;
    }

    /** @return {@code Name: } as US-ASCII bytes, what an HTTP/1 field line starts with; shared, do not modify */
    public byte[] prefixBytes() {
        return prefix;
    }

    /** @return the lower-case name as US-ASCII bytes; shared, do not modify */
    public byte[] lowerCaseBytes() {
        return lowerBytes;
    }

    /**
     * Whether this field must not be sent in a trailer section, because a recipient needs it before the content:
     * message framing, routing, request modifiers, authentication, content format and response control (RFC 9110
     * §6.5.1).
     */
    public boolean isForbiddenInTrailer() {
        return forbiddenInTrailer;
    }

    /** @return this header as a shared {@code Optional}; allocation-free */
    public Optional<HttpHeader> asOptional() {
        return optional;
    }

    /** @return whether {@code name} is this header's name, ignoring case */
    public boolean is(String name) {
        return name.length() == lowerBytes.length && matches(name);
    }

    /**
     * Looks a field name up, ignoring case, without allocating.
     *
     * @param bytes holds the name
     * @param from the index of its first byte
     * @param to the index after its last byte
     * @return the well-known header, or empty
     */
    public static Optional<HttpHeader> lookup(byte[] bytes, int from, int to) {
        int length = to - from;
        if (length <= 0 || length > MAX_NAME_LENGTH) {
            return Optional.empty();
        }
        for (int slot = slot(hash(bytes, from, to)); ; slot = (slot + 1) & (TABLE_SIZE - 1)) {
            HttpHeader candidate = TABLE[slot];
            if (candidate == null) {
                return Optional.empty();
            }
            if (candidate.lowerBytes.length == length && candidate.matches(bytes, from)) {
                return candidate.optional;
            }
        }
    }

    /**
     * Looks a field name up in a buffer with absolute reads, ignoring case, without allocating.
     *
     * @param buffer holds the name; its position and limit are not used nor changed
     * @param from the index of its first byte
     * @param to the index after its last byte
     * @return the well-known header, or empty
     */
    public static Optional<HttpHeader> lookup(ByteBuffer buffer, int from, int to) {
        if (buffer.hasArray()) {
            int offset = buffer.arrayOffset();
            return lookup(buffer.array(), offset + from, offset + to);
        }
        int length = to - from;
        if (length <= 0 || length > MAX_NAME_LENGTH) {
            return Optional.empty();
        }
        int hash = hash(length, buffer.get(from), buffer.get(from + length / 2), buffer.get(to - 1));
        for (int slot = slot(hash); ; slot = (slot + 1) & (TABLE_SIZE - 1)) {
            HttpHeader candidate = TABLE[slot];
            if (candidate == null) {
                return Optional.empty();
            }
            if (candidate.lowerBytes.length == length && candidate.matches(buffer, from)) {
                return candidate.optional;
            }
        }
    }

    /**
     * @param name a field name, any case
     * @return the well-known header, or empty
     */
    public static Optional<HttpHeader> lookup(String name) {
        int length = name.length();
        if (length == 0 || length > MAX_NAME_LENGTH) {
            return Optional.empty();
        }
        char first = name.charAt(0);
        char middle = name.charAt(length / 2);
        char last = name.charAt(length - 1);
        if (first > 0x7F || middle > 0x7F || last > 0x7F) {
            return Optional.empty();
        }
        int hash = hash(length, (byte) first, (byte) middle, (byte) last);
        for (int slot = slot(hash); ; slot = (slot + 1) & (TABLE_SIZE - 1)) {
            HttpHeader candidate = TABLE[slot];
            if (candidate == null) {
                return Optional.empty();
            }
            if (candidate.lowerBytes.length == length && candidate.matches(name)) {
                return candidate.optional;
            }
        }
    }

    private boolean matches(byte[] bytes, int from) {
        byte[] lower = lowerBytes;
        for (int i = 0; i < lower.length; i++) {
            if (HttpChars.toLower(bytes[from + i]) != lower[i]) {
                return false;
            }
        }
        return true;
    }

    // ASCII-only: String.equalsIgnoreCase would also match e.g. the Kelvin sign U+212A to 'k'.
    private boolean matches(String name) {
        byte[] lower = lowerBytes;
        for (int i = 0; i < lower.length; i++) {
            char c = name.charAt(i);
            if (c > 0x7F || HttpChars.toLower((byte) c) != lower[i]) {
                return false;
            }
        }
        return true;
    }

    private boolean matches(ByteBuffer buffer, int from) {
        byte[] lower = lowerBytes;
        for (int i = 0; i < lower.length; i++) {
            if (HttpChars.toLower(buffer.get(from + i)) != lower[i]) {
                return false;
            }
        }
        return true;
    }

    private static int hash(byte[] bytes, int from, int to) {
        int length = to - from;
        return hash(length, bytes[from], bytes[from + length / 2], bytes[to - 1]);
    }

    // O(1): well-known names differ enough in length and first, middle and last characters.
    private static int hash(int length, byte first, byte middle, byte last) {
        return ((length * 31 + HttpChars.toLower(first)) * 31 + HttpChars.toLower(middle)) * 31
                + HttpChars.toLower(last);
    }

    private static int slot(int hash) {
        return (hash * 0x9E3779B1) >>> 24; // Fibonacci hashing: the top 8 bits index the 256 slots
    }

    /** @return the longest probe sequence of the lookup table, for tests */
    static int maxProbes() {
        int max = 0;
        for (HttpHeader header : values()) {
            int probes = 1;
            for (int slot = slot(hash(header.lowerBytes, 0, header.lowerBytes.length));
                    TABLE[slot] != header;
                    slot = (slot + 1) & (TABLE_SIZE - 1)) {
                probes++;
            }
            max = Math.max(max, probes);
        }
        return max;
    }

    @Override
    public String toString() {
        return name;
    }
}
