package dev.quarry.server.internal;

import dev.quarry.http.Cookies;
import dev.quarry.http.HostPort;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpUri;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.QueryParameters;
import dev.quarry.http.UriCompliance;
import dev.quarry.http.UriPath;
import dev.quarry.server.Content;
import dev.quarry.server.Request;
import java.io.InputStream;
import java.net.SocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The request of one exchange. The target is validated when the request is created (an ambiguous path is a 400
 * before any handler runs); query parameters are parsed on first use. A plain origin-form target ({@code /plaintext})
 * is its own path: no allocation.
 *
 * <p>An HTTP/1.1 request object is recycled with its {@link Exchange}: it carries one request after another, never
 * two at once, and its fields object is reused (cleared) for the next request.
 *
 * <p>Thread-safety: metadata set before the handler runs and unchanged until the exchange completes; attributes not
 * thread-safe (one handler at a time).
 */
public final class ServerRequest implements Request {
    private final Exchange exchange;
    private final HttpFields headers;
    private String method;
    private String target;
    private HttpVersion version;
    private String scheme;
    private String authority;
    private String path;
    private Optional<String> query;
    private long contentLength;
    private long beginNanos;
    private Map<String, List<String>> queryParameters;
    private Map<String, String> cookies;
    private Map<String, Object> attributes;
    private RequestInputStream inputStream;

    ServerRequest(Exchange exchange, HttpFields headers) {
        this.exchange = exchange;
        this.headers = headers;
    }

    /**
     * Sets the request line and what derives from it, for a request whose fields are in {@link #headers()}.
     *
     * @throws dev.quarry.http.BadMessageException if the target is invalid or its path ambiguous
     */
    void start(
            String method,
            String target,
            HttpVersion version,
            String scheme,
            String authority,
            long contentLength,
            UriCompliance compliance) {
        this.method = method;
        this.target = target;
        this.version = version;
        this.scheme = scheme;
        this.contentLength = contentLength;
        this.beginNanos = System.nanoTime();
        if (!target.isEmpty() && target.charAt(0) == '/' && target.indexOf('?') < 0) {
            this.path = UriPath.decode(target, compliance);
            this.query = Optional.empty();
            this.authority = authority;
        } else {
            HttpUri uri = HttpUri.parse(method, target, compliance);
            this.path = uri.path();
            this.query = uri.query();
            // RFC 9112 §3.2.2: with an absolute-form target the server ignores Host and uses the target's authority
            // (and a CONNECT's authority-form target is the authority); otherwise two parties could disagree on it.
            this.authority = uri.authority().map(HostPort::toString).orElse(authority);
        }
    }

    /** Forgets the completed request: fields cleared, lazily made parts and attributes dropped. */
    void recycle() {
        headers.clear();
        method = null;
        target = null;
        version = null;
        scheme = null;
        authority = null;
        path = null;
        query = null;
        queryParameters = null;
        cookies = null;
        attributes = null;
        inputStream = null;
    }

    @Override
    public String method() {
        return method;
    }

    @Override
    public String target() {
        return target;
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public Optional<String> query() {
        return query;
    }

    @Override
    public Map<String, List<String>> queryParameters() {
        if (queryParameters == null) {
            queryParameters = query.isEmpty()
                    ? Map.of()
                    : QueryParameters.parse(query.get()).asMap();
        }
        return queryParameters;
    }

    @Override
    public String pathParam(String name) {
        throw new IllegalArgumentException(
                "no route parameter '" + name + "': the request was not routed by a pattern" + " with parameters");
    }

    @Override
    public Map<String, String> pathParams() {
        return Map.of();
    }

    @Override
    public HttpFields headers() {
        return headers;
    }

    @Override
    public Map<String, String> cookies() {
        if (cookies == null) {
            cookies = Cookies.parse(headers.getAll(HttpHeader.COOKIE));
        }
        return cookies;
    }

    @Override
    public HttpVersion version() {
        return version;
    }

    @Override
    public String scheme() {
        return scheme;
    }

    @Override
    public String authority() {
        return authority;
    }

    @Override
    public SocketAddress remoteAddress() {
        return exchange.remoteAddress();
    }

    @Override
    public SocketAddress localAddress() {
        return exchange.localAddress();
    }

    @Override
    public long contentLength() {
        return contentLength;
    }

    @Override
    public long beginNanos() {
        return beginNanos;
    }

    @Override
    public Content.Chunk read() {
        return exchange.read();
    }

    @Override
    public void demand(Runnable onContentAvailable) {
        exchange.demand(onContentAvailable);
    }

    @Override
    public InputStream inputStream() {
        if (inputStream == null) {
            inputStream = new RequestInputStream(this, exchange);
        }
        return inputStream;
    }

    @Override
    public Optional<Object> attribute(String name) {
        return attributes == null ? Optional.empty() : Optional.ofNullable(attributes.get(name));
    }

    @Override
    public void attribute(String name, Object value) {
        if (value == null) {
            if (attributes != null) {
                attributes.remove(name);
            }
            return;
        }
        if (attributes == null) {
            attributes = new HashMap<>();
        }
        attributes.put(name, value);
    }

    @Override
    public String connectionId() {
        return exchange.connectionId();
    }

    @Override
    public String toString() {
        if (version == null) {
            return "ServerRequest{between requests}"; // recycled: a late log line must not fail
        }
        return method + " " + target + " " + version.asString();
    }

    /** @return the exchange of this request */
    Exchange exchange() {
        return exchange;
    }
}
