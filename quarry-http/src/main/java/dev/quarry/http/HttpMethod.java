package dev.quarry.http;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The standard request methods (RFC 9110 §9, RFC 5789 for PATCH) with their safety and idempotence.
 *
 * <p>Any other method that is a valid token is allowed too: the parser reports it as a {@code String}; this enum only
 * gives the common ones an interned name and a lookup that does not allocate. Methods are case-sensitive (RFC 9110
 * §9.1): {@code get} is not {@code GET}.
 *
 * <p>Thread-safety: immutable. Cost: {@link #lookup(byte[], int, int)} is a switch on the length and one comparison,
 * allocation-free (it returns cached {@code Optional}s).
 */
public enum HttpMethod {
    GET(true, true),
    HEAD(true, true),
    POST(false, false),
    PUT(false, true),
    DELETE(false, true),
    CONNECT(false, false),
    OPTIONS(true, true),
    TRACE(true, true),
    PATCH(false, false);

    private static final HttpMethod[] VALUES = values();

    private final boolean safe;
    private final boolean idempotent;
    private final byte[] bytes;
    private final Optional<HttpMethod> optional;

    HttpMethod(boolean safe, boolean idempotent) {
        this.safe = safe;
        this.idempotent = idempotent;
        this.bytes = name().getBytes(StandardCharsets.US_ASCII);
        this.optional = Optional.of(this);
    }

    /** @return the method token, an interned string */
    public String asString() {
        return name();
    }

    /** @return whether the method is safe: read-only in intent (RFC 9110 §9.2.1) */
    public boolean isSafe() {
        return safe;
    }

    /** @return whether repeating the request has the same intended effect as sending it once (RFC 9110 §9.2.2) */
    public boolean isIdempotent() {
        return idempotent;
    }

    /** @return whether {@code method} is this method's token (case-sensitive) */
    public boolean is(String method) {
        return name().equals(method);
    }

    /**
     * Looks a method up from bytes without allocating.
     *
     * @param bytes holds the method token
     * @param from the index of its first byte
     * @param to the index after its last byte
     * @return the method, or empty if it is not a standard one
     */
    public static Optional<HttpMethod> lookup(byte[] bytes, int from, int to) {
        HttpMethod candidate = switch (to - from) {
            case 3 -> bytes[from] == 'G' ? GET : bytes[from] == 'P' ? PUT : null;
            case 4 -> bytes[from] == 'P' ? POST : bytes[from] == 'H' ? HEAD : null;
            case 5 -> bytes[from] == 'P' ? PATCH : bytes[from] == 'T' ? TRACE : null;
            case 6 -> DELETE;
            case 7 -> bytes[from] == 'O' ? OPTIONS : bytes[from] == 'C' ? CONNECT : null;
            default -> null;
        };
        if (candidate != null && java.util.Arrays.equals(bytes, from, to, candidate.bytes, 0, candidate.bytes.length)) {
            return candidate.optional;
        }
        return Optional.empty();
    }

    /**
     * @param method a method token (case-sensitive)
     * @return the standard method, or empty
     */
    public static Optional<HttpMethod> lookup(String method) {
        for (HttpMethod candidate : VALUES) {
            if (candidate.name().equals(method)) {
                return candidate.optional;
            }
        }
        return Optional.empty();
    }
}
