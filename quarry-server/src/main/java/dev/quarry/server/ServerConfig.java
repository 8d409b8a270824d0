package dev.quarry.server;

import dev.quarry.core.LifeCycle;
import dev.quarry.core.buffer.ByteBufferPool;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The immutable snapshot of a {@link ServerBuilder} that a {@link Server} is made from: later changes to the builder
 * never reach a built server.
 *
 * @param listeners where to listen
 * @param handler the root handler, if set
 * @param routes the routes, in the order added
 * @param filters the filters, in the order added
 * @param virtualThreads whether blocking handlers run on virtual threads
 * @param virtualSelectors whether the selectors run on virtual threads (explicit, or automatic: blocking handlers on
 *     virtual threads)
 * @param minThreads platform threads kept when idle
 * @param maxThreads the most platform threads
 * @param reservedThreads reserved threads, -1 for automatic
 * @param selectors selector threads per connector
 * @param acceptors acceptor threads per connector
 * @param maxConcurrentRequests blocking handlers running at once
 * @param maxQueuedRequests blocking handlers waiting for a slot
 * @param maxConnections open connections per connector, 0 for no cap
 * @param acceptQueueSize the kernel accept backlog
 * @param idleTimeout how long a connection may stay idle
 * @param shutdownTimeout how long a graceful stop waits
 * @param httpConfig HTTP settings
 * @param http2Config HTTP/2 settings
 * @param h2c whether h2c is served on HTTP ports
 * @param buffers the buffer pool, if given
 * @param name the server's name
 * @param statusPath the status page's path, if served
 * @param metricsPath the Prometheus metrics endpoint's path, if served
 * @param jmx whether to register MBeans
 * @param contributors status page sections
 * @param mbeans extra MBeans by key properties
 * @param managed components started and stopped with the server (the access log last)
 * @param errorHandlers the error handlers, by the type of failure they answer
 * @param errorPages the error pages, by status
 * @param accessLog the access log, if any
 * @param redirectToHttps whether clear-text TCP listeners redirect every request to the HTTPS listener
 */
record ServerConfig(
        List<ServerBuilder.ListenSpec> listeners,
        Optional<AsyncHandler> handler,
        List<ServerBuilder.RouteSpec> routes,
        List<ServerBuilder.FilterSpec> filters,
        boolean virtualThreads,
        boolean virtualSelectors,
        int minThreads,
        int maxThreads,
        int reservedThreads,
        int selectors,
        int acceptors,
        int maxConcurrentRequests,
        int maxQueuedRequests,
        int maxConnections,
        int acceptQueueSize,
        Duration idleTimeout,
        Duration shutdownTimeout,
        HttpConfig httpConfig,
        Http2Config http2Config,
        boolean h2c,
        Optional<ByteBufferPool> buffers,
        String name,
        Optional<String> statusPath,
        Optional<String> metricsPath,
        boolean jmx,
        List<StatusContributor> contributors,
        Map<String, Object> mbeans,
        List<LifeCycle> managed,
        Map<Class<? extends Throwable>, ErrorHandler<?>> errorHandlers,
        Map<Integer, AsyncHandler> errorPages,
        Optional<AccessLog> accessLog,
        boolean redirectToHttps) {

    ServerConfig(ServerBuilder builder) {
        this(
                List.copyOf(builder.listeners),
                Optional.ofNullable(builder.handler),
                List.copyOf(builder.routes),
                List.copyOf(builder.filters),
                builder.virtualThreads,
                builder.virtualSelectors != null
                        ? builder.virtualSelectors
                        : builder.virtualThreads && builder.blockingHandlers,
                builder.minThreads,
                builder.maxThreads,
                builder.reservedThreads,
                builder.selectors,
                builder.acceptors,
                builder.maxConcurrentRequests,
                builder.maxQueuedRequests,
                builder.maxConnections,
                builder.acceptQueueSize,
                builder.idleTimeout,
                builder.shutdownTimeout,
                builder.httpConfig,
                builder.http2Config,
                builder.h2c,
                Optional.ofNullable(builder.buffers),
                builder.name,
                Optional.ofNullable(builder.statusPath),
                Optional.ofNullable(builder.metricsPath),
                builder.jmx,
                List.copyOf(builder.contributors),
                Collections.unmodifiableMap(new LinkedHashMap<>(builder.mbeans)),
                managed(builder),
                Map.copyOf(builder.errorHandlers),
                Map.copyOf(builder.errorPages),
                Optional.ofNullable(builder.accessLog),
                builder.redirectToHttps);
    }

    /** The managed components, and the access log last: started last, it is there before the connectors accept. */
    private static List<LifeCycle> managed(ServerBuilder builder) {
        List<LifeCycle> managed = new java.util.ArrayList<>(builder.managed);
        if (builder.accessLog != null) {
            managed.add(builder.accessLog);
        }
        return List.copyOf(managed);
    }
}
