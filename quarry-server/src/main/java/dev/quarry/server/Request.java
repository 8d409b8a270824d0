package dev.quarry.server;

import dev.quarry.http.Cookies;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpVersion;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An HTTP request, the same for HTTP/1.1 and HTTP/2.
 *
 * <p>The body is read on demand, one way or the other: asynchronously with {@link #read()} and
 * {@link #demand(Runnable)}, or blocking with {@link #inputStream()}. Nothing is read from the network until the
 * handler asks, so a handler that reads slowly slows its client down instead of filling server memory.
 *
 * <p>Thread-safety: the metadata may be read from any thread; the body by one reader at a time.
 *
 * <p>Lifetime: a request must not be used after its handler completed (its callback was called, or its blocking
 * {@link Handler} returned). The server recycles the request object, its {@link #headers()} and its response for a
 * later request (on HTTP/1.1, where a connection carries one request at a time); copy what must outlive the exchange
 * (a header value, the path) before completing.
 */
public interface Request {

    /** @return the method, e.g. {@code GET}; standard methods are interned strings */
    String method();

    /** @return the request target as received: {@code /path?query}, an absolute URI, an authority or {@code *} */
    String target();

    /**
     * @return the decoded, normalised path: percent-decoded, dot segments resolved; ambiguous paths (encoded slashes
     *     or dots, NUL) were rejected with 400 before the handler ran
     */
    String path();

    /** @return the raw (still encoded) query string, without the {@code ?} */
    Optional<String> query();

    /** @return the query parameters, decoded, in order; each name maps to all its values */
    Map<String, List<String>> queryParameters();

    /**
     * @param name a parameter name
     * @return its first value
     */
    default Optional<String> queryParameter(String name) {
        List<String> values = queryParameters().get(name);
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }

    /**
     * A parameter of the route that matched, e.g. {@code name} for {@code GET /hello/{name}}.
     *
     * @param name the parameter
     * @return its decoded value
     * @throws IllegalArgumentException if the matched route has no such parameter
     */
    String pathParam(String name);

    /** @return all parameters of the matched route */
    Map<String, String> pathParams();

    /** @return the header fields, read-only */
    HttpFields headers();

    /**
     * @param name a field name, any case
     * @return the first value of that field
     */
    default Optional<String> header(String name) {
        return headers().get(name);
    }

    /**
     * The cookies the client sent, from every Cookie field, parsed leniently ({@link Cookies}): a malformed pair is
     * skipped, a quoted value unquoted, and the first of a repeated name wins. Values are as sent (not
     * percent-decoded).
     *
     * @return the cookies by name, in order; unmodifiable (the server's request computes it once)
     */
    default Map<String, String> cookies() {
        return Cookies.parse(headers().getAll(HttpHeader.COOKIE));
    }

    /**
     * @param name a cookie name (case-sensitive)
     * @return its value
     */
    default Optional<String> cookie(String name) {
        return Optional.ofNullable(cookies().get(name));
    }

    /** @return the protocol version */
    HttpVersion version();

    /** @return {@code http} or {@code https} */
    String scheme();

    /**
     * @return the authority ({@code host[:port]}): of an absolute-form target if the request has one (RFC 9112
     *     §3.2.2), else from the Host field or the {@code :authority} pseudo-header
     */
    String authority();

    /** @return the client's address: an {@link java.net.InetSocketAddress} or a Unix-domain address */
    SocketAddress remoteAddress();

    /** @return the server's address for this connection */
    SocketAddress localAddress();

    /** @return the declared content length, or -1 if unknown (chunked, or HTTP/2 without content-length) */
    long contentLength();

    /** @return when the request's head was parsed, from {@link System#nanoTime()} */
    long beginNanos();

    /**
     * Reads the next available piece of the body without blocking.
     *
     * @return a chunk (release it once consumed), or null if no bytes are available now; the last chunk says
     *     {@link Content.Chunk#isLast()}; a failure chunk carries the error
     */
    Content.Chunk read();

    /**
     * Asks to be called back once when {@link #read()} would return a chunk (or the end, or a failure). The callback
     * may run on an I/O thread right away or later: it must not block.
     *
     * @param onContentAvailable the callback
     */
    void demand(Runnable onContentAvailable);

    /**
     * @return a blocking stream over the body; for blocking handlers (on a virtual thread a blocked read parks the
     *     virtual thread only)
     */
    InputStream inputStream();

    /**
     * Reads the whole body as UTF-8 text, blocking.
     *
     * @return the body
     * @throws IOException if reading fails
     */
    default String bodyAsString() throws IOException {
        try (InputStream in = inputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * @param name an attribute name
     * @return the attribute set by an earlier handler
     */
    Optional<Object> attribute(String name);

    /**
     * Sets an attribute for later handlers of this request.
     *
     * @param name the name
     * @param value the value; null removes it
     */
    void attribute(String name, Object value);

    /** @return a short identifier of the connection, for logs */
    String connectionId();
}
