package dev.quarry.server;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpMethod;
import dev.quarry.http.HttpStatus;
import dev.quarry.server.internal.ErrorResponses;
import dev.quarry.server.internal.HandlerInvoker;
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
 * the GET route when there is no HEAD route. The 404 and 405 are the server's errors: its error pages answer them
 * ({@link ServerBuilder#errorPage(int, Handler)}).
 *
 * <p>{@link Filter}s run around the routing, in the order they were added (the first outermost), for every request
 * or only for paths that match a pattern ({@link #filter(String, Filter)}); {@link #before(Handler)} and
 * {@link #after(Handler)} are the blocking shorthands.
 *
 * <p>Matching never blocks; each route's handler, and each filter, runs where its own invocation type says, through
 * the server's dispatch point ({@link Handlers#invoke}): one router can mix blocking routes (on virtual threads) and
 * non-blocking ones (in place), and a router works the same wherever it sits — the root handler, a route of another
 * router, or inside a filter or wrapper of the user's.
 *
 * <p>Thread-safety: configure before the server starts; the server then freezes the router (adding routes or filters
 * throws), and routing is read-only and safe from any thread.
 */
public final class Router implements AsyncHandler {
    private final Map<String, Map<String, AsyncHandler>> literal = new HashMap<>();
    private final List<PatternRoute> patterns = new ArrayList<>();
    private final List<ScopedFilter> filters = new ArrayList<>();
    private AsyncHandler fallback = AsyncHandler.nonBlocking(Router::notFound);
    private final AsyncHandler routing = new Routing();
    // The filters composed around the routing, rebuilt when a filter is added; null until first needed.
    private volatile AsyncHandler chain;
    private volatile boolean frozen;
    // Fixed by freeze(): the server asks the handler tree how it may behave per connection, so it must not walk the
    // routes each time.
    private volatile InvocationType frozenInvocationType;

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
        checkNotFrozen();
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
        checkNotFrozen();
        this.fallback = Objects.requireNonNull(handler, "handler");
        return this;
    }

    /**
     * Adds a filter around every request this router handles (routes, 404 and 405 alike).
     *
     * @param filter the filter; the first added runs outermost
     * @return this
     */
    public Router filter(Filter filter) {
        return addFilter(null, filter);
    }

    /**
     * Adds a filter for the requests whose path matches a pattern; other requests skip it without dispatching.
     *
     * @param pathPattern e.g. {@code /admin/*} or {@code /users/{id}} (the syntax of routes, without a method)
     * @param filter the filter; the first added runs outermost
     * @return this
     */
    public Router filter(String pathPattern, Filter filter) {
        Objects.requireNonNull(pathPattern, "pathPattern");
        if (!pathPattern.startsWith("/")) {
            throw new IllegalArgumentException("filter path must start with '/': '" + pathPattern + "'");
        }
        return addFilter(PathPattern.compile(pathPattern), filter);
    }

    /**
     * Runs a blocking handler before the routes: see {@link Filter#before(Handler)}.
     *
     * @param handler runs first; the chain stops if it commits the response
     * @return this
     */
    public Router before(Handler handler) {
        return filter(Filter.before(handler));
    }

    /**
     * Runs a blocking handler after the routes: see {@link Filter#after(Handler)}.
     *
     * @param handler runs once the route completed
     * @return this
     */
    public Router after(Handler handler) {
        return filter(Filter.after(handler));
    }

    private Router addFilter(PathPattern scope, Filter filter) {
        checkNotFrozen();
        filters.add(new ScopedFilter(scope, Objects.requireNonNull(filter, "filter")));
        chain = null;
        return this;
    }

    /**
     * Fixes the routes and filters, and the invocation type they add up to; called by the server at start, for its
     * root router and the routers mounted directly as routes, the fallback or below a filter of this router. Idempotent.
     */
    void freeze() {
        if (frozen) {
            return;
        }
        frozen = true;
        for (Map<String, AsyncHandler> byMethod : literal.values()) {
            for (AsyncHandler handler : byMethod.values()) {
                freezeNested(handler);
            }
        }
        for (PatternRoute route : patterns) {
            freezeNested(route.handler());
        }
        freezeNested(fallback);
        frozenInvocationType = chain().invocationType();
    }

    private static void freezeNested(AsyncHandler handler) {
        if (handler instanceof Router nested) {
            nested.freeze();
        }
    }

    private void checkNotFrozen() {
        if (frozen) {
            throw new IllegalStateException("routes and filters are fixed once the server has started: " + this);
        }
    }

    /**
     * @return {@link InvocationType#NON_BLOCKING} if no route or filter may block; otherwise {@link InvocationType#EITHER}
     *     (the router itself never blocks, and dispatches what does), or {@link InvocationType#BLOCKING} if an unscoped
     *     filter may block (the whole chain then starts on a virtual thread)
     */
    @Override
    public InvocationType invocationType() {
        InvocationType frozenType = frozenInvocationType;
        return frozenType != null ? frozenType : chain().invocationType();
    }

    private InvocationType routesInvocationType() {
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

    /** The filters composed around the routing, innermost last added; the routing itself when there is none. */
    private AsyncHandler chain() {
        AsyncHandler current = chain;
        if (current == null) {
            current = routing;
            for (ScopedFilter filter : filters.reversed()) {
                AsyncHandler filtered = Filter.around(filter.filter(), current);
                current = filter.scope() == null ? filtered : new ScopedHandler(filter.scope(), filtered, current);
            }
            chain = current;
        }
        return current;
    }

    @Override
    public void handle(Request request, Response response, Callback callback) {
        AsyncHandler current = chain();
        if (current == routing) {
            route(request, response, callback);
        } else {
            Handlers.invoke(current, request, response, callback);
        }
    }

    private void route(Request request, Response response, Callback callback) {
        String path = request.path();
        String method = request.method();
        HandlerInvoker invoker = HandlerInvoker.of(request);
        Map<String, AsyncHandler> byMethod = literal.get(path);
        if (byMethod != null) {
            AsyncHandler handler = select(byMethod, method);
            if (handler != null) {
                invoker.invoke(handler, request, response, callback);
                return;
            }
        }
        for (PatternRoute route : patterns) {
            if (!route.accepts(method)) {
                continue;
            }
            Map<String, String> params = route.pattern().match(path);
            if (params != null) {
                invoker.invoke(route.handler(), new RoutedRequest(request, params), response, callback);
                return;
            }
        }
        Set<String> allowed = allowedMethods(byMethod, path);
        if (!allowed.isEmpty()) {
            methodNotAllowed(allowed, request, response, callback);
            return;
        }
        invoker.invoke(fallback, request, response, callback);
    }

    /** The methods of the routes that match the path with another method: computed only when nothing matched. */
    private Set<String> allowedMethods(Map<String, AsyncHandler> byMethod, String path) {
        Set<String> allowed = byMethod == null ? new LinkedHashSet<>() : new LinkedHashSet<>(byMethod.keySet());
        for (PatternRoute route : patterns) {
            if (route.pattern().matches(path)) {
                allowed.add(route.method());
            }
        }
        return allowed;
    }

    private static AsyncHandler select(Map<String, AsyncHandler> byMethod, String method) {
        AsyncHandler handler = byMethod.get(method);
        if (handler == null && HttpMethod.HEAD.is(method)) {
            handler = byMethod.get("GET");
        }
        return handler != null ? handler : byMethod.get("*");
    }

    private static void notFound(Request request, Response response, Callback callback) {
        ErrorResponses.answer(request, response, HttpStatus.NOT_FOUND_404, "Not Found: " + request.path(), callback);
    }

    private static void methodNotAllowed(Set<String> allowed, Request request, Response response, Callback callback) {
        Set<String> methods = new LinkedHashSet<>(allowed);
        if (methods.remove("*")) {
            methods.add("*");
        }
        if (methods.contains("GET")) {
            methods.add("HEAD");
        }
        response.headers().put("Allow", String.join(", ", methods));
        ErrorResponses.answer(
                request,
                response,
                HttpStatus.METHOD_NOT_ALLOWED_405,
                HttpStatus.reason(HttpStatus.METHOD_NOT_ALLOWED_405),
                callback);
    }

    @Override
    public String toString() {
        List<String> routes = new ArrayList<>();
        literal.forEach((path, byMethod) -> byMethod.keySet().forEach(m -> routes.add(m + " " + path)));
        patterns.forEach(route -> routes.add(route.method() + " " + route.spec()));
        Collections.sort(routes);
        return "Router" + routes;
    }

    /** A filter and the paths it applies to (null: every path). */
    private record ScopedFilter(PathPattern scope, Filter filter) {}

    /** The routing itself, innermost in the chain of filters. */
    private final class Routing implements AsyncHandler {
        @Override
        public void handle(Request request, Response response, Callback callback) {
            route(request, response, callback);
        }

        @Override
        public InvocationType invocationType() {
            return routesInvocationType();
        }

        @Override
        public String toString() {
            return Router.this.toString();
        }
    }

    /**
     * A filter that applies to some paths only: it checks the path in place and dispatches either the filtered chain
     * or, skipping the filter, the rest of the chain, each where its own type says.
     */
    private record ScopedHandler(PathPattern scope, AsyncHandler filtered, AsyncHandler next) implements AsyncHandler {
        @Override
        public void handle(Request request, Response response, Callback callback) {
            Handlers.invoke(scope.matches(request.path()) ? filtered : next, request, response, callback);
        }

        @Override
        public InvocationType invocationType() {
            boolean nonBlocking = filtered.invocationType() == InvocationType.NON_BLOCKING
                    && next.invocationType() == InvocationType.NON_BLOCKING;
            return nonBlocking ? InvocationType.NON_BLOCKING : InvocationType.EITHER;
        }
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
