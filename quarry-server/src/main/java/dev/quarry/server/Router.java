package dev.quarry.server;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpMethod;
import dev.quarry.http.HttpStatus;
import dev.quarry.server.internal.HandlerInvoker;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Routes requests by method and path pattern: {@code "GET /hello/{name}"}, {@code "POST /upload"},
 * {@code "/static/*"} (any method; {@code *} matches the rest of the path, available as the parameter {@code "*"}).
 * Literal paths are found by one hash lookup; patterns are tried in the order they were added. A path that matches
 * with another method is answered 405 with {@code Allow}; no match is 404 (or the fallback handler). HEAD requests use
 * the GET route when there is no HEAD route.
 *
 * <p>Matching never blocks; each route's handler runs where its own invocation type allows, so one router can mix
 * blocking routes (on virtual threads) and non-blocking ones (in place).
 *
 * <p>Thread-safety: configure before the server starts; routing is then read-only and safe from any thread.
 */
public final class Router implements AsyncHandler {
    private final Map<String, Map<String, AsyncHandler>> literal = new HashMap<>();
    private final List<PatternRoute> patterns = new ArrayList<>();
    private AsyncHandler fallback = Router::notFound;
    private volatile HandlerInvoker invoker;
    // Fixed by bind(): every read asks the handler tree how it may behave, so it must not walk the routes each time.
    private volatile InvocationType boundInvocationType;

    /**
     * Adds a blocking route.
     *
     * @param spec {@code "[METHOD] /path"} with {@code {name}} segments and an optional trailing {@code *}
     * @param handler the handler, run on a virtual thread
     * @return this
     */
    public Router route(String spec, Handler handler) {
        return route(spec, Handlers.blocking(handler));
    }

    /**
     * Adds an asynchronous route.
     *
     * @param spec {@code "[METHOD] /path"} with {@code {name}} segments and an optional trailing {@code *}
     * @param handler the handler, run as its invocation type says
     * @return this
     * @throws IllegalArgumentException if the spec is malformed or the route already exists
     */
    public Router route(String spec, AsyncHandler handler) {
        checkNotBound();
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(handler, "handler");
        String trimmed = spec.trim();
        int space = trimmed.indexOf(' ');
        String method = space < 0 ? "*" : trimmed.substring(0, space).trim();
        String path = space < 0 ? trimmed : trimmed.substring(space + 1).trim();
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("route path must start with '/': '" + spec + "'");
        }
        if (!method.equals("*") && !method.chars().allMatch(c -> c >= 'A' && c <= 'Z')) {
            throw new IllegalArgumentException("route method must be upper-case letters: '" + spec + "'");
        }
        if (!path.contains("{") && !path.endsWith("*")) {
            Map<String, AsyncHandler> byMethod = literal.computeIfAbsent(path, p -> new LinkedHashMap<>());
            if (byMethod.putIfAbsent(method, handler) != null) {
                throw new IllegalArgumentException("duplicate route '" + spec + "'");
            }
            return this;
        }
        patterns.add(new PatternRoute(method, path, PathPattern.compile(path), handler));
        return this;
    }

    /**
     * @param handler answers requests that match no route (default: 404)
     * @return this
     */
    public Router fallback(AsyncHandler handler) {
        checkNotBound();
        this.fallback = Objects.requireNonNull(handler, "handler");
        return this;
    }

    /** Binds the server's invoker, so that blocking routes are dispatched; called by the server at start. */
    void bind(HandlerInvoker invoker) {
        // Routers mounted directly as routes or as the fallback dispatch their blocking routes through the same
        // invoker; a router hidden inside another handler cannot be found, and runs its routes in place.
        for (Map<String, AsyncHandler> byMethod : literal.values()) {
            for (AsyncHandler handler : byMethod.values()) {
                bindNested(handler, invoker);
            }
        }
        for (PatternRoute route : patterns) {
            bindNested(route.handler(), invoker);
        }
        bindNested(fallback, invoker);
        this.invoker = invoker;
        this.boundInvocationType = computeInvocationType();
    }

    private void bindNested(AsyncHandler handler, HandlerInvoker invoker) {
        if (handler instanceof Router nested && nested != this && nested.invoker == null) {
            nested.bind(invoker);
        }
    }

    private void checkNotBound() {
        if (invoker != null) {
            throw new IllegalStateException("routes are fixed once the server has started: " + this);
        }
    }

    /**
     * @return {@link InvocationType#NON_BLOCKING} if no route may block; otherwise {@link InvocationType#EITHER}: the
     *     router itself never blocks, and dispatches blocking routes when it must not block
     */
    @Override
    public InvocationType invocationType() {
        InvocationType bound = boundInvocationType;
        return bound != null ? bound : computeInvocationType();
    }

    private InvocationType computeInvocationType() {
        boolean blocking = fallback.invocationType() != InvocationType.NON_BLOCKING;
        for (Map<String, AsyncHandler> byMethod : literal.values()) {
            for (AsyncHandler handler : byMethod.values()) {
                blocking |= handler.invocationType() != InvocationType.NON_BLOCKING;
            }
        }
        for (PatternRoute route : patterns) {
            blocking |= route.handler().invocationType() != InvocationType.NON_BLOCKING;
        }
        return blocking ? InvocationType.EITHER : InvocationType.NON_BLOCKING;
    }

    @Override
    public void handle(Request request, Response response, Callback callback) {
        String path = request.path();
        String method = request.method();
        Map<String, AsyncHandler> byMethod = literal.get(path);
        if (byMethod != null) {
            AsyncHandler handler = select(byMethod, method);
            if (handler != null) {
                invoke(handler, request, response, callback);
                return;
            }
        }
        Set<String> allowed = byMethod == null ? new LinkedHashSet<>() : new LinkedHashSet<>(byMethod.keySet());
        for (PatternRoute route : patterns) {
            Map<String, String> params = route.pattern().match(path);
            if (params == null) {
                continue;
            }
            if (route.accepts(method)) {
                invoke(route.handler(), new RoutedRequest(request, params), response, callback);
                return;
            }
            allowed.add(route.method());
        }
        if (!allowed.isEmpty()) {
            methodNotAllowed(allowed, response, callback);
            return;
        }
        invoke(fallback, request, response, callback);
    }

    private static AsyncHandler select(Map<String, AsyncHandler> byMethod, String method) {
        AsyncHandler handler = byMethod.get(method);
        if (handler == null && HttpMethod.HEAD.is(method)) {
            handler = byMethod.get("GET");
        }
        return handler != null ? handler : byMethod.get("*");
    }

    private void invoke(AsyncHandler handler, Request request, Response response, Callback callback) {
        HandlerInvoker current = invoker;
        if (current != null) {
            current.invoke(handler, request, response, callback);
            return;
        }
        try {
            handler.handle(request, response, callback);
        } catch (Throwable x) {
            callback.failed(x);
        }
    }

    private static void notFound(Request request, Response response, Callback callback) {
        text(response, HttpStatus.NOT_FOUND_404, "404 Not Found: " + request.path() + "\n", callback);
    }

    private static void methodNotAllowed(Set<String> allowed, Response response, Callback callback) {
        Set<String> methods = new LinkedHashSet<>(allowed);
        if (methods.remove("*")) {
            methods.add("*");
        }
        if (methods.contains("GET")) {
            methods.add("HEAD");
        }
        response.headers().put("Allow", String.join(", ", methods));
        text(response, HttpStatus.METHOD_NOT_ALLOWED_405, "405 Method Not Allowed\n", callback);
    }

    private static void text(Response response, int status, String text, Callback callback) {
        response.status(status);
        response.headers().put("Content-Type", "text/plain; charset=utf-8");
        response.write(true, ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), callback);
    }

    @Override
    public String toString() {
        List<String> routes = new ArrayList<>();
        literal.forEach((path, byMethod) -> byMethod.keySet().forEach(m -> routes.add(m + " " + path)));
        patterns.forEach(route -> routes.add(route.method() + " " + route.spec()));
        Collections.sort(routes);
        return "Router" + routes;
    }

    private record PatternRoute(String method, String spec, PathPattern pattern, AsyncHandler handler) {
        boolean accepts(String requestMethod) {
            return method.equals("*")
                    || method.equals(requestMethod)
                    || (method.equals("GET") && HttpMethod.HEAD.is(requestMethod));
        }
    }

    /** A request with the parameters of the route that matched. */
    private static final class RoutedRequest extends RequestWrapper {
        private final Map<String, String> params;

        RoutedRequest(Request request, Map<String, String> params) {
            super(request);
            this.params = params;
        }

        @Override
        public String pathParam(String name) {
            String value = params.get(name);
            if (value == null) {
                throw new IllegalArgumentException(
                        "no route parameter '" + name + "'; the route has " + params.keySet());
            }
            return value;
        }

        @Override
        public Map<String, String> pathParams() {
            return params;
        }
    }
}
