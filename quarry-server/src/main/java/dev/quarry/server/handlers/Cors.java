package dev.quarry.server.handlers;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpStatus;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Filter;
import dev.quarry.server.Request;
import dev.quarry.server.Response;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Cross-origin resource sharing (the Fetch standard's CORS protocol) as a filter: tells browsers which other origins
 * may read this server's responses.
 *
 * <pre>{@code
 * Cors cors = Cors.builder()
 *         .allowOrigins("https://app.example.com")
 *         .allowMethods("GET", "POST")
 *         .allowHeaders("Content-Type", "Authorization")
 *         .exposeHeaders("X-Request-Id")
 *         .allowCredentials(true)
 *         .maxAge(Duration.ofMinutes(10))
 *         .build();
 * Server.builder().filter(cors)...
 * }</pre>
 *
 * <ul>
 *   <li>A <b>preflight</b> ({@code OPTIONS} with {@code Origin} and {@code Access-Control-Request-Method}) from an
 *       allowed origin is answered here, {@code 204 No Content}, with {@code Access-Control-Allow-Origin},
 *       {@code -Allow-Methods}, {@code -Allow-Headers}, {@code -Allow-Credentials} and {@code -Max-Age} as configured;
 *       the handlers do not see it.
 *   <li>Any other request with an allowed {@code Origin} goes on to the handlers, and its response gets
 *       {@code Access-Control-Allow-Origin}, {@code -Allow-Credentials} and {@code -Expose-Headers}.
 *   <li>It rejects nothing itself: a request from an origin that is not allowed (a preflight included) goes on to the
 *       handlers without CORS fields, and the browser keeps the response from the page. A request without
 *       {@code Origin} is not a CORS request.
 * </ul>
 *
 * <p>Origins are compared exactly (scheme, host and port, as browsers send them); {@code "*"} allows any. With any
 * origin and without credentials the answer is {@code Access-Control-Allow-Origin: *}; otherwise it names the request's
 * origin and the response carries {@code Vary: Origin}, so that a cache never serves one origin's answer to another.
 * Allowed headers {@code "*"} means whatever the preflight asks for.
 *
 * <p>Non-blocking; thread-safety: immutable.
 */
public final class Cors implements Filter {
    private final boolean anyOrigin;
    private final Set<String> origins;
    private final String methods;
    private final boolean anyHeader;
    private final String headers;
    private final String exposedHeaders;
    private final boolean credentials;
    private final Optional<Duration> maxAge;

    private Cors(Builder builder) {
        this.anyOrigin = builder.origins.contains("*");
        this.origins = Set.copyOf(builder.origins);
        this.methods = String.join(", ", builder.methods);
        this.anyHeader = builder.headers.contains("*");
        this.headers = String.join(", ", builder.headers);
        this.exposedHeaders = String.join(", ", builder.exposedHeaders);
        this.credentials = builder.credentials;
        this.maxAge = Optional.ofNullable(builder.maxAge);
    }

    /** @return a builder: no origin allowed until {@link Builder#allowOrigins} says which */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public void filter(Request request, Response response, Callback callback, AsyncHandler next) throws Exception {
        HttpFields fields = request.headers();
        int originIndex = fields.indexOf(HttpHeader.ORIGIN);
        if (originIndex < 0) {
            next.handle(request, response, callback);
            return;
        }
        String origin = fields.field(originIndex).value();
        boolean allowed = anyOrigin || origins.contains(origin);
        HttpFields out = response.headers();
        if (!anyOrigin || credentials) {
            out.add(HttpHeader.VARY, "Origin");
        }
        if (!allowed) {
            next.handle(request, response, callback);
            return;
        }
        out.put(HttpHeader.ACCESS_CONTROL_ALLOW_ORIGIN, anyOrigin && !credentials ? "*" : origin);
        if (credentials) {
            out.put(HttpHeader.ACCESS_CONTROL_ALLOW_CREDENTIALS, "true");
        }
        if (request.method().equals("OPTIONS") && fields.contains(HttpHeader.ACCESS_CONTROL_REQUEST_METHOD)) {
            preflight(fields, out);
            response.status(HttpStatus.NO_CONTENT_204);
            response.write(true, ByteBuffer.allocate(0), callback);
            return;
        }
        if (!exposedHeaders.isEmpty()) {
            out.put(HttpHeader.ACCESS_CONTROL_EXPOSE_HEADERS, exposedHeaders);
        }
        next.handle(request, response, callback);
    }

    private void preflight(HttpFields request, HttpFields out) {
        out.add(HttpHeader.VARY, "Access-Control-Request-Method, Access-Control-Request-Headers");
        if (!methods.isEmpty()) {
            out.put(HttpHeader.ACCESS_CONTROL_ALLOW_METHODS, methods);
        }
        String allowHeaders = anyHeader
                ? request.get(HttpHeader.ACCESS_CONTROL_REQUEST_HEADERS).orElse("")
                : headers;
        if (!allowHeaders.isEmpty()) {
            out.put(HttpHeader.ACCESS_CONTROL_ALLOW_HEADERS, allowHeaders);
        }
        maxAge.ifPresent(age -> out.put(HttpHeader.ACCESS_CONTROL_MAX_AGE, Long.toString(age.toSeconds())));
    }

    @Override
    public InvocationType invocationType() {
        return InvocationType.NON_BLOCKING;
    }

    @Override
    public String toString() {
        return "Cors{origins=" + (anyOrigin ? "*" : origins) + ", methods=" + methods + ", headers=" + headers
                + ", exposed=" + exposedHeaders + ", credentials=" + credentials + ", maxAge="
                + maxAge.map(Duration::toString).orElse("-") + "}";
    }

    /** Configures a {@link Cors} filter. Thread-safety: not thread-safe. */
    public static final class Builder {
        private final Set<String> origins = new LinkedHashSet<>();
        private final Set<String> methods = new LinkedHashSet<>(List.of("GET", "HEAD", "POST"));
        private final Set<String> headers = new LinkedHashSet<>();
        private final Set<String> exposedHeaders = new LinkedHashSet<>();
        private boolean credentials;
        private Duration maxAge;

        private Builder() {}

        /**
         * @param origins origins allowed, exactly as browsers send them ({@code https://app.example.com}, with a port
         *     when it is not the scheme's default), or {@code "*"} for any; adds to earlier ones
         * @return this
         */
        public Builder allowOrigins(String... origins) {
            for (String origin : origins) {
                Objects.requireNonNull(origin, "origin");
                if (!origin.equals("*") && (origin.endsWith("/") || !origin.contains("://"))) {
                    throw new IllegalArgumentException(
                            "an origin is scheme://host[:port] without a path, or *; not '" + origin + "'");
                }
                this.origins.add(origin);
            }
            return this;
        }

        /**
         * @param methods the methods a preflight allows (default {@code GET, HEAD, POST}); replaces the list
         * @return this
         */
        public Builder allowMethods(String... methods) {
            this.methods.clear();
            for (String method : methods) {
                this.methods.add(Objects.requireNonNull(method, "method").toUpperCase(Locale.ROOT));
            }
            return this;
        }

        /**
         * @param headers the request headers a preflight allows, or {@code "*"} for whatever it asks (default none
         *     beyond the CORS-safelisted ones); adds to earlier ones
         * @return this
         */
        public Builder allowHeaders(String... headers) {
            this.headers.addAll(checked(headers));
            return this;
        }

        /**
         * @param headers response headers a page may read beyond the safelisted ones; adds to earlier ones
         * @return this
         */
        public Builder exposeHeaders(String... headers) {
            this.exposedHeaders.addAll(checked(headers));
            return this;
        }

        /**
         * @param allow whether requests with credentials (cookies, HTTP authentication) may be read; the allowed
         *     origin is then always named, never {@code *}
         * @return this
         */
        public Builder allowCredentials(boolean allow) {
            this.credentials = allow;
            return this;
        }

        /**
         * @param maxAge how long a browser may cache a preflight's answer (default: not said, the browser's default)
         * @return this
         */
        public Builder maxAge(Duration maxAge) {
            Objects.requireNonNull(maxAge, "maxAge");
            if (maxAge.isNegative()) {
                throw new IllegalArgumentException("maxAge must not be negative, was " + maxAge);
            }
            this.maxAge = maxAge;
            return this;
        }

        /** @return the filter */
        public Cors build() {
            return new Cors(this);
        }

        private static List<String> checked(String... names) {
            List<String> list = new ArrayList<>();
            for (String name : names) {
                if (Objects.requireNonNull(name, "header").isBlank() || name.contains(",")) {
                    throw new IllegalArgumentException("a header name, one per argument, not '" + name + "'");
                }
                list.add(name);
            }
            return list;
        }
    }
}
