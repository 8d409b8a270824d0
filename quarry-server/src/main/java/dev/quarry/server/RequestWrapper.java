package dev.quarry.server;

import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpVersion;
import dev.quarry.server.internal.Exchange;
import java.io.InputStream;
import java.net.SocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A request that delegates everything to another one: extend it to change what a handler further down sees (the
 * router uses it to add path parameters).
 *
 * <p>A wrapper serves the request in progress when it was made. The server reuses its own request objects for later
 * requests on HTTP/1.1, so once that request is over, reading content through this class ({@link #read()},
 * {@link #demand}, {@link #inputStream()}) and setting an {@linkplain #attribute(String, Object) attribute} fail with an
 * {@link IllegalStateException} ("request already completed") instead of reaching another request. Its metadata getters
 * are not checked: they would show the other request's.
 */
public class RequestWrapper implements Request {
    private final Request wrapped;
    // The generation of the server's exchange under the wrapped request when this wrapper was made: the request this
    // wrapper serves. The exchange itself is found again when checking (a short walk down the wrappers), so that a
    // wrapper, made per request (the router's), is no larger for it.
    private final int generation;

    /** @param wrapped the request to delegate to */
    public RequestWrapper(Request wrapped) {
        this.wrapped = Objects.requireNonNull(wrapped, "wrapped");
        Exchange exchange = Exchange.of(wrapped);
        this.generation = exchange == null ? 0 : exchange.generation();
    }

    /** @throws IllegalStateException if the request this wrapper served is over */
    private void checkNotOver() {
        Exchange exchange = Exchange.of(wrapped);
        if (exchange != null && exchange.isOver(generation)) {
            throw Exchange.requestCompleted();
        }
    }

    /** @return the wrapped request */
    public Request wrapped() {
        return wrapped;
    }

    @Override
    public String method() {
        return wrapped.method();
    }

    @Override
    public String target() {
        return wrapped.target();
    }

    @Override
    public String path() {
        return wrapped.path();
    }

    @Override
    public Optional<String> query() {
        return wrapped.query();
    }

    @Override
    public Map<String, List<String>> queryParameters() {
        return wrapped.queryParameters();
    }

    @Override
    public String pathParam(String name) {
        return wrapped.pathParam(name);
    }

    @Override
    public Map<String, String> pathParams() {
        return wrapped.pathParams();
    }

    @Override
    public HttpFields headers() {
        return wrapped.headers();
    }

    @Override
    public Map<String, String> cookies() {
        return wrapped.cookies();
    }

    @Override
    public HttpVersion version() {
        return wrapped.version();
    }

    @Override
    public String scheme() {
        return wrapped.scheme();
    }

    @Override
    public String authority() {
        return wrapped.authority();
    }

    @Override
    public SocketAddress remoteAddress() {
        return wrapped.remoteAddress();
    }

    @Override
    public SocketAddress localAddress() {
        return wrapped.localAddress();
    }

    @Override
    public long contentLength() {
        return wrapped.contentLength();
    }

    @Override
    public long beginNanos() {
        return wrapped.beginNanos();
    }

    @Override
    public Content.Chunk read() {
        checkNotOver();
        return wrapped.read();
    }

    @Override
    public void demand(Runnable onContentAvailable) {
        checkNotOver();
        wrapped.demand(onContentAvailable);
    }

    @Override
    public InputStream inputStream() {
        checkNotOver();
        return wrapped.inputStream();
    }

    @Override
    public Optional<Object> attribute(String name) {
        return wrapped.attribute(name);
    }

    @Override
    public void attribute(String name, Object value) {
        checkNotOver(); // they would be the next request's attributes
        wrapped.attribute(name, value);
    }

    @Override
    public String connectionId() {
        return wrapped.connectionId();
    }

    @Override
    public String toString() {
        return wrapped.toString();
    }
}
