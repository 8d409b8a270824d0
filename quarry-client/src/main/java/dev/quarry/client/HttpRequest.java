package dev.quarry.client;

import dev.quarry.http.HttpField;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * An HTTP request: method, absolute URI, header fields, body, and optional timeouts of its own: one for the whole
 * exchange, and an idle timeout that overrides the client's for this request.
 *
 * <pre>{@code
 * HttpRequest request = HttpRequest.newBuilder("http://localhost:8080/items")
 *         .POST(RequestBody.of("{\"name\":\"quarry\"}"))
 *         .header("Content-Type", "application/json")
 *         .timeout(Duration.ofSeconds(5))
 *         .build();
 * }</pre>
 *
 * <p>The client writes {@code Host}, and {@code Content-Length} or {@code Transfer-Encoding} from the body: those
 * fields cannot be set here. {@code Connection: close} may be set, and then the connection is not reused.
 *
 * <p>Thread-safety: immutable (a stream body is consumed by the one exchange that sends it).
 */
public final class HttpRequest {
    private static final Set<String> IDEMPOTENT = Set.of("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE");

    private final String method;
    private final URI uri;
    private final Origin origin;
    private final HttpFields headers;
    private final RequestBody body;
    private final Duration timeout;
    private final long idleTimeoutMillis; // 0: the client's idle timeout applies
    private final Boolean followRedirects;

    private HttpRequest(Builder builder) {
        this.method = builder.method;
        this.uri = builder.uri;
        this.origin = Origin.of(uri);
        this.headers = builder.headers.asImmutable();
        this.body = builder.body;
        this.timeout = builder.timeout;
        this.idleTimeoutMillis = builder.idleTimeout == null ? 0 : saturatedMillis(builder.idleTimeout);
        this.followRedirects = builder.followRedirects;
    }

    /**
     * @param uri an absolute {@code http} or {@code https} URI
     * @return a builder for a GET of {@code uri}
     */
    public static Builder newBuilder(URI uri) {
        return new Builder(uri);
    }

    /**
     * @param uri an absolute {@code http} or {@code https} URI
     * @return a builder for a GET of {@code uri}
     * @throws IllegalArgumentException if {@code uri} is not a valid URI
     */
    public static Builder newBuilder(String uri) {
        return new Builder(URI.create(uri));
    }

    /**
     * @param uri an absolute {@code http} or {@code https} URI
     * @return a GET of {@code uri}
     */
    public static HttpRequest get(String uri) {
        return newBuilder(uri).build();
    }

    /** @return the method, e.g. {@code GET} */
    public String method() {
        return method;
    }

    /** @return the absolute URI */
    public URI uri() {
        return uri;
    }

    /** @return where the request goes */
    public Origin origin() {
        return origin;
    }

    /** @return the header fields set by the application (immutable) */
    public HttpFields headers() {
        return headers;
    }

    /** @return the body; {@link RequestBody#empty()} when none */
    public RequestBody body() {
        return body;
    }

    /** @return the time the whole exchange may take, if set; else the client's default applies */
    public Optional<Duration> timeout() {
        return Optional.ofNullable(timeout);
    }

    /** @return the idle timeout of this request, if set; else the client's {@code idleTimeout} applies */
    public Optional<Duration> idleTimeout() {
        return idleTimeoutMillis == 0 ? Optional.empty() : Optional.of(Duration.ofMillis(idleTimeoutMillis));
    }

    /** @return the idle timeout of this request in milliseconds, or 0 when the client's applies (no allocation) */
    long idleTimeoutMillis() {
        return idleTimeoutMillis;
    }

    /**
     * @return whether the method is idempotent (RFC 9110 §9.2.2), so that the request may be retried after a pooled
     *     connection turned out to be closed
     */
    public boolean isIdempotent() {
        return IDEMPOTENT.contains(method);
    }

    /** @return whether redirects of this request are followed: its own setting, else the client's */
    boolean followsRedirects(boolean clientDefault) {
        return followRedirects != null ? followRedirects : clientDefault;
    }

    /** @return the request target in origin-form: the raw path ({@code /} if empty) and query */
    String target() {
        String path = uri.getRawPath();
        if (path == null || path.isEmpty()) {
            path = "/";
        }
        String query = uri.getRawQuery();
        return query == null ? path : path + "?" + query;
    }

    @Override
    public String toString() {
        return method + " " + uri;
    }

    /** Builds an {@link HttpRequest}; not thread-safe. */
    /** @return at least 1 ms; a duration too long for a {@code long} of milliseconds is as good as forever */
    private static long saturatedMillis(Duration timeout) {
        try {
            return Math.max(1, timeout.toMillis());
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    public static final class Builder {
        private final URI uri;
        private String method = "GET";
        private RequestBody body = RequestBody.empty();
        private final HttpFields headers = new HttpFields();
        private Duration timeout;
        private Duration idleTimeout;
        private Boolean followRedirects;

        private Builder(URI uri) {
            this.uri = Objects.requireNonNull(uri, "uri");
            Origin.of(uri); // validates scheme and host now
            if (uri.getRawFragment() != null) {
                throw new IllegalArgumentException("a request URI has no fragment: " + uri);
            }
        }

        /**
         * @param method a method token, e.g. {@code PATCH}
         * @param body the content
         * @return this builder
         */
        public Builder method(String method, RequestBody body) {
            Objects.requireNonNull(method, "method");
            if (method.isEmpty() || !method.chars().allMatch(Builder::isTChar)) {
                throw new IllegalArgumentException("invalid method: '" + method + "'");
            }
            this.method = method;
            this.body = Objects.requireNonNull(body, "body");
            return this;
        }

        /** @return this builder, for a GET */
        public Builder GET() {
            return method("GET", RequestBody.empty());
        }

        /** @return this builder, for a HEAD */
        public Builder HEAD() {
            return method("HEAD", RequestBody.empty());
        }

        /** @return this builder, for a DELETE */
        public Builder DELETE() {
            return method("DELETE", RequestBody.empty());
        }

        /**
         * @param body the content
         * @return this builder, for a POST
         */
        public Builder POST(RequestBody body) {
            return method("POST", body);
        }

        /**
         * @param body the content
         * @return this builder, for a PUT
         */
        public Builder PUT(RequestBody body) {
            return method("PUT", body);
        }

        /**
         * Adds a header field.
         *
         * @param name a field name token
         * @param value the value: visible characters, SP and HTAB only (never CR or LF)
         * @return this builder
         * @throws IllegalArgumentException if the name or value is invalid, or names a field the client writes
         */
        public Builder header(String name, String value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            if (name.isEmpty() || !name.chars().allMatch(Builder::isTChar)) {
                throw new IllegalArgumentException("invalid field name: '" + name + "'");
            }
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if ((c < 0x20 && c != '\t') || c == 0x7F || c > 0xFF) {
                    throw new IllegalArgumentException(
                            "invalid character 0x" + Integer.toHexString(c) + " in the value of " + name);
                }
            }
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.equals("host") || lower.equals("content-length") || lower.equals("transfer-encoding")) {
                throw new IllegalArgumentException(name + " is written by the client");
            }
            headers.add(new HttpField(name, value.strip()));
            return this;
        }

        /**
         * @param timeout the most time the whole exchange may take, from send to the end of the response content
         *     (queueing, connecting and both bodies included); past it the exchange fails with a
         *     {@link java.net.SocketTimeoutException}, or its content does if the response was already delivered
         * @return this builder
         */
        public Builder timeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive: " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * Overrides the client's {@linkplain HttpClient.Builder#idleTimeout idle timeout} for this request only: the
         * longest the exchange may go without progress, that is without receiving a byte of the response head or
         * content and, while the body is sent, without the connection accepting a byte of it. Progress restarts the
         * clock, so a slow but steady response never expires; a whole-request {@link #timeout(Duration)} still bounds
         * it. Past it the exchange fails with a {@link java.net.SocketTimeoutException} whose message names the
         * timeout and the phase (sending the request, waiting for the response head, or for its content), or its
         * content does if the response was already delivered. A response content the application stops reading
         * makes no progress either.
         *
         * <p>Over HTTP/1.1 it is the idle timeout of the connection while it carries this exchange, which is then
         * closed (its state is unknown); the connection gets the client's back when it returns to the pool. Over
         * HTTP/2 it applies to this request's stream only: the stream is reset ({@code RST_STREAM CANCEL}) and the
         * connection and its other streams go on.
         *
         * @param timeout the longest time without progress; positive
         * @return this builder
         */
        public Builder idleTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("idleTimeout must be positive: " + timeout);
            }
            this.idleTimeout = timeout;
            return this;
        }

        /**
         * @param expect whether to send {@code Expect: 100-continue} (RFC 9110 §10.1.1): the client then sends the
         *     head, and the body only once the server answered {@code 100 Continue}, or after the client's
         *     {@linkplain HttpClient.Builder#continueTimeout continue timeout} without an answer. If the server gives
         *     its final response first (417, 401, 413...), the body is never sent and that response is the request's
         *     (over HTTP/1.1 the connection is then closed, since the server may not know where the request ends;
         *     over HTTP/2 the stream is reset once the response ended). Worth it for large bodies the server may
         *     refuse; a request without a body does not wait. Setting the field with {@link #header(String, String)}
         *     does the same
         * @return this builder
         */
        public Builder expectContinue(boolean expect) {
            headers.remove(HttpHeader.EXPECT);
            if (expect) {
                headers.add(HttpHeader.EXPECT, "100-continue");
            }
            return this;
        }

        /**
         * @param follow whether the client follows redirects of this request (default: the client's setting, see
         *     {@link HttpClient.Builder#maxRedirects(int)}); false delivers a redirect response as it is
         * @return this builder
         */
        public Builder followRedirects(boolean follow) {
            this.followRedirects = follow;
            return this;
        }

        /** @return the request */
        public HttpRequest build() {
            return new HttpRequest(this);
        }

        private static boolean isTChar(int c) {
            return (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
        }
    }

    /** @return whether the request asks for {@code 100 Continue} before sending its body */
    boolean expectsContinue() {
        return headers.containsToken(HttpHeader.EXPECT, "100-continue");
    }

    /** @return whether the request asks to close the connection after its response */
    boolean closesConnection() {
        return headers.containsToken(HttpHeader.CONNECTION, "close");
    }
}
