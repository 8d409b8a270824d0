package dev.quarry.server.internal;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpException;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.HttpVersion;
import dev.quarry.io.EndPoint;
import dev.quarry.server.Content;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One request/response exchange, independent of the protocol: invokes the handler, completes the response when the
 * handler succeeds, answers an error (or aborts, once committed) when it fails, and relays body demand between the
 * handler and the {@link HttpStream}.
 *
 * <p>Thread-safety: the handler callback may be completed from any thread, once (a second completion is logged and
 * ignored); demand is one at a time.
 */
public final class Exchange {
    private static final System.Logger LOG = System.getLogger(Exchange.class.getName());
    private static final VarHandle DEMAND;
    private static final VarHandle DONE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            DEMAND = lookup.findVarHandle(Exchange.class, "demand", Runnable.class);
            DONE = lookup.findVarHandle(Exchange.class, "done", boolean.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final ServerContext context;
    private final HttpStream stream;
    private final EndPoint endPoint;
    private final ServerRequest request;
    private final ServerResponse response;
    private final Callback handlerCallback = new HandlerCallback();
    private final Callback completion = new Completion();

    @SuppressWarnings("unused") // through DEMAND
    private volatile Runnable demand;

    @SuppressWarnings("unused") // through DONE
    private volatile boolean done;

    // The request content turned out to be malformed (or too large): the answer is its status, whatever the handler
    // made of the failure. Written by the reading thread, read by the one that completes the handler.
    private volatile HttpException badContent;

    /**
     * Creates the exchange and its request; the target is validated here.
     *
     * @throws dev.quarry.http.BadMessageException if the target is invalid or its path ambiguous
     */
    public Exchange(
            ServerContext context,
            HttpStream stream,
            EndPoint endPoint,
            String method,
            String target,
            HttpVersion version,
            HttpFields requestFields,
            String scheme,
            String authority,
            long contentLength) {
        this.context = context;
        this.stream = stream;
        this.endPoint = endPoint;
        this.request = new ServerRequest(
                this,
                method,
                target,
                version,
                requestFields,
                scheme,
                authority,
                contentLength,
                context.config().uriCompliance());
        HttpFields responseFields = new HttpFields(8);
        context.serverField().ifPresent(responseFields::add);
        if (context.config().sendDateHeader()) {
            responseFields.add(context.dateField().field());
        }
        this.response = new ServerResponse(this, responseFields);
    }

    /** Invokes the root handler according to its invocation type. */
    public void handle() {
        context.invoker().invoke(context.handler(), request, response, handlerCallback);
    }

    /** @return the request */
    public ServerRequest request() {
        return request;
    }

    /** @return the response */
    public ServerResponse response() {
        return response;
    }

    HandlerInvoker invoker() {
        return context.invoker();
    }

    HttpStream stream() {
        return stream;
    }

    SocketAddress remoteAddress() {
        return endPoint.remoteAddress();
    }

    SocketAddress localAddress() {
        return endPoint.localAddress();
    }

    String connectionId() {
        return Integer.toHexString(System.identityHashCode(endPoint));
    }

    int outputAggregationSize() {
        return context.config().outputBufferSize() / 2;
    }

    void onCommit(int status) {
        context.statistics().onResponse(status);
    }

    /** The stream could not encode the head of a response counted by {@link #onCommit}: it was never sent. */
    void onCommitWithdrawn(int status) {
        context.statistics().onResponseWithdrawn(status);
    }

    Content.Chunk read() {
        Content.Chunk chunk = stream.read();
        if (chunk != null && chunk.failure() instanceof HttpException failure) {
            badContent = failure;
        }
        return chunk;
    }

    void demand(Runnable onContentAvailable) {
        if (!DEMAND.compareAndSet(this, null, onContentAvailable)) {
            throw new IllegalStateException("demand already pending");
        }
        stream.demand();
    }

    /** Called by the stream when content can be read: runs the handler's demand callback once. */
    public void onContentAvailable() {
        Runnable callback = (Runnable) DEMAND.getAndSet(this, null);
        if (callback != null) {
            try {
                callback.run();
            } catch (Throwable x) {
                LOG.log(Level.WARNING, "demand callback failed for " + request, x);
                abort(x);
            }
        }
    }

    /** @return whether the handler completed (its callback was called) */
    public boolean isDone() {
        return done;
    }

    /** The response cannot be completed properly (content length mismatch, write failure): abort the stream. */
    void abort(Throwable failure) {
        context.statistics().onAborted();
        stream.failed(failure);
    }

    /**
     * Answers a failure before the response was committed: the status of an {@link HttpException}, 500 otherwise,
     * with a short text body and without the details of unexpected exceptions. A handler that failed after reading
     * malformed content (it usually rethrows the {@link java.io.IOException} its input stream threw) gets the status
     * of the content's problem: the client's fault, not the server's.
     */
    private void sendError(Throwable handlerFailure) {
        Throwable failure = badContent != null ? badContent : handlerFailure;
        int status = failure instanceof HttpException http ? http.status() : HttpStatus.INTERNAL_SERVER_ERROR_500;
        String message = failure instanceof HttpException http ? http.reason() : HttpStatus.reason(status);
        if (!(failure instanceof HttpException)) {
            LOG.log(Level.WARNING, "handler failed for " + request + " on " + connectionId(), failure);
        }
        response.resetForError();
        response.status(status);
        response.headers().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        if (context.serverField().isPresent()) {
            response.headers().add(context.serverField().get());
        }
        if (context.config().sendDateHeader()) {
            response.headers().add(context.dateField().field());
        }
        byte[] body = (status + " " + message + "\n").getBytes(StandardCharsets.UTF_8);
        response.write(true, ByteBuffer.wrap(body), completion);
    }

    @Override
    public String toString() {
        return "Exchange{" + request + ", " + response + (done ? ", done" : "") + "}";
    }

    /** The handler's callback. Completing it never blocks: it only writes what is left asynchronously. */
    private final class HandlerCallback implements Callback {
        @Override
        public void succeeded() {
            if (!DONE.compareAndSet(Exchange.this, false, true)) {
                LOG.log(Level.WARNING, "handler completed twice for " + request);
                return;
            }
            response.complete(completion);
        }

        @Override
        public void failed(Throwable failure) {
            if (!DONE.compareAndSet(Exchange.this, false, true)) {
                LOG.log(Level.WARNING, "handler completed twice for " + request, failure);
                return;
            }
            if (response.isCommitted()) {
                LOG.log(Level.DEBUG, () -> "aborting committed response of " + request + ": " + failure);
                abort(failure);
            } else {
                sendError(failure);
            }
        }

        @Override
        public InvocationType invocationType() {
            return InvocationType.NON_BLOCKING;
        }
    }

    /** The end of the response: the stream may move on, or abort. */
    private final class Completion implements Callback {
        @Override
        public void succeeded() {
            stream.succeeded();
        }

        @Override
        public void failed(Throwable failure) {
            abort(failure);
        }

        @Override
        public InvocationType invocationType() {
            return InvocationType.NON_BLOCKING;
        }
    }
}
