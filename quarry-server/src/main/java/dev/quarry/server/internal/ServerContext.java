package dev.quarry.server.internal;

import dev.quarry.core.InvocationType;
import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.thread.TryExecutor;
import dev.quarry.core.timer.HashedWheelTimer;
import dev.quarry.http.PreEncodedHttpField;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Http2Config;
import dev.quarry.server.HttpConfig;
import dev.quarry.server.ServerStatistics;
import dev.quarry.server.internal.h2.Http2ContentBudget;
import java.util.Optional;

/**
 * What every connection of a server shares: the root handler and how to invoke it, configuration, buffers, the timer,
 * the cached Date and Server fields, and the statistics.
 *
 * @param handler the root handler
 * @param invoker runs handlers per their invocation type
 * @param config HTTP configuration
 * @param buffers the buffer pool for I/O
 * @param timer the server's timer
 * @param dateField the cached Date field
 * @param serverField the Server field, if sent
 * @param statistics request and byte counters
 * @param http2 the HTTP/2 factory, for prior-knowledge and upgraded h2c; empty when h2c is off
 * @param threads the platform threads: HTTP/2 sessions hand production to their reserved threads
 * @param http2Config HTTP/2 settings and limits
 * @param errors the error handlers and error pages
 * @param http2Budget the server-wide budget of unread HTTP/2 request content
 * @param exchanges the recycled HTTP/1.1 exchanges, shared by every copy of this context (an exchange takes the
 *     context of each request it starts)
 */
public record ServerContext(
        AsyncHandler handler,
        HandlerInvoker invoker,
        HttpConfig config,
        ByteBufferPool buffers,
        HashedWheelTimer timer,
        DateField dateField,
        Optional<PreEncodedHttpField> serverField,
        ServerStatistics statistics,
        Optional<Http2Upgrade> http2,
        TryExecutor threads,
        Http2Config http2Config,
        ErrorPages errors,
        Http2ContentBudget http2Budget,
        ExchangePool exchanges) {

    /**
     * @param handler the root handler
     * @return a copy with it
     */
    public ServerContext withHandler(AsyncHandler handler) {
        return new ServerContext(
                handler,
                invoker,
                config,
                buffers,
                timer,
                dateField,
                serverField,
                statistics,
                http2,
                threads,
                http2Config,
                errors,
                http2Budget,
                exchanges);
    }

    /**
     * @param http2 the HTTP/2 upgrade support
     * @return a copy with it
     */
    public ServerContext withHttp2(Optional<Http2Upgrade> http2) {
        return new ServerContext(
                handler,
                invoker,
                config,
                buffers,
                timer,
                dateField,
                serverField,
                statistics,
                http2,
                threads,
                http2Config,
                errors,
                http2Budget,
                exchanges);
    }

    /**
     * @return how a connection's read task behaves: it only parses and then runs non-blocking handlers in place and
     *     dispatches the others, so it is non-blocking whenever dispatching is cheap (virtual threads, or a handler tree
     *     that never blocks); otherwise {@code EITHER}: with a thread to spare it may run a blocking handler in place
     */
    public InvocationType readInvocationType() {
        if (handler.invocationType() == InvocationType.NON_BLOCKING || invoker.dispatchesAllBlocking()) {
            return InvocationType.NON_BLOCKING;
        }
        return InvocationType.EITHER;
    }
}
