package dev.quarry.server.internal;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpException;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.HttpVersion;
import dev.quarry.io.EndPoint;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Content;
import dev.quarry.server.ErrorHandler;
import dev.quarry.server.ErrorInfo;
import dev.quarry.server.Handlers;
import dev.quarry.server.Request;
import dev.quarry.server.RequestWrapper;
import dev.quarry.server.Response;
import dev.quarry.server.ResponseWrapper;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * One request/response exchange, independent of the protocol: invokes the handler, completes the response when the
 * handler succeeds, answers an error (or aborts, once committed) when it fails, and relays body demand between the
 * handler and the {@link HttpStream}.
 *
 * <p>Errors: a failure before commit goes to the {@linkplain ErrorPages error handler} of its type if there is one,
 * else to the error page of its status, else to the plain default error; error handlers and pages are handlers, run
 * through the dispatch point like any other, and one page at most runs per exchange. A failure is logged once: at
 * WARNING with its stack trace when it is the server's (a handler that throws or fails its callback, before or after
 * commit), at DEBUG without one when the client caused it (malformed or too large content, a reset, a timeout) or an
 * error handler took it.
 *
 * <p>Thread-safety: the handler callback may be completed from any thread, once (a second completion is logged and
 * ignored); demand is one at a time.
 */
public final class Exchange {
    private static final System.Logger LOG = System.getLogger(Exchange.class.getName());
    private static final VarHandle DEMAND;
    private static final VarHandle DONE;
    private static final VarHandle ERROR_PAGE_STARTED;
    private static final VarHandle GENERATION;
    private static final VarHandle DISPATCHED;
    private static final String TEXT_PLAIN_UTF8 = "text/plain; charset=utf-8";

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            DEMAND = lookup.findVarHandle(Exchange.class, "demand", Runnable.class);
            DONE = lookup.findVarHandle(Exchange.class, "done", boolean.class);
            ERROR_PAGE_STARTED = lookup.findVarHandle(Exchange.class, "errorPageStarted", boolean.class);
            GENERATION = lookup.findVarHandle(Exchange.class, "generation", int.class);
            DISPATCHED = lookup.findVarHandle(Exchange.class, "dispatched", HandlerInvoker.Dispatched.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private ServerContext context;
    private HttpStream stream;
    private EndPoint endPoint;
    private final ServerRequest request;
    private final ServerResponse response;
    private final Callback handlerCallback = new HandlerCallback();
    private final Callback completion = new Completion();

    @SuppressWarnings("unused") // through DEMAND
    private volatile Runnable demand;

    @SuppressWarnings("unused") // through DONE
    private volatile boolean done;

    // The task object of this exchange's next blocking dispatch, kept across recycling (see HandlerInvoker.Dispatched).
    @SuppressWarnings("unused") // through DISPATCHED
    private volatile HandlerInvoker.Dispatched dispatched;

    // One error page per exchange: a page that fails, or answers another error, gets the plain default instead of
    // another page (no loops).
    @SuppressWarnings("unused") // through ERROR_PAGE_STARTED
    private volatile boolean errorPageStarted;

    // How many requests this exchange finished (bumped by recycle()). What is made for one request and may act after it
    // (a response wrapper, an input or output stream, a throttled write waiting on a timer, an error page's callback)
    // captures it, and finds its request over when it changed: the request, response and fields it holds then carry
    // another client's request. Written by the recycling thread only, with release; read with acquire (no fence on
    // the hot path). A check and the operation after it are not atomic: an operation racing with the recycle itself
    // is not caught, one that comes after it is.
    @SuppressWarnings("unused") // through GENERATION
    private int generation;

    // The request content turned out to be malformed (or too large): the answer is its status, whatever the handler
    // made of the failure. Written by the reading thread, read by the one that completes the handler.
    private volatile HttpException badContent;

    /**
     * Creates a recyclable exchange, for HTTP/1.1 connections (see {@link ExchangePool}): its request fields are its
     * own, filled by the parser before {@link #start}, and it serves one request after another, recycled in between.
     */
    Exchange() {
        this.request = new ServerRequest(this, new HttpFields(16));
        this.response = new ServerResponse(this, new HttpFields(8), true);
    }

    /**
     * Creates the exchange of one request (an HTTP/2 stream) and its request; the target is validated here.
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
        this.request = new ServerRequest(this, requestFields);
        this.response = new ServerResponse(this, new HttpFields(8), false);
        start(context, stream, endPoint, method, target, version, scheme, authority, contentLength);
    }

    /**
     * Starts the exchange of a request whose fields are in {@code request().headers()}; the target is validated here.
     *
     * @throws dev.quarry.http.BadMessageException if the target is invalid or its path ambiguous; the exchange must
     *     then be dropped, not recycled
     */
    public void start(
            ServerContext context,
            HttpStream stream,
            EndPoint endPoint,
            String method,
            String target,
            HttpVersion version,
            String scheme,
            String authority,
            long contentLength) {
        this.context = context;
        this.stream = stream;
        this.endPoint = endPoint;
        DONE.set(this, false);
        request.start(
                method,
                target,
                version,
                scheme,
                authority,
                contentLength,
                context.config().uriCompliance());
        // Added at every start, not at recycling: an exchange may wait in the pool longer than the Date is true.
        addStandardFields(response.headers());
    }

    /**
     * Forgets the request and response that completed normally (the stream called {@link HttpStream#succeeded()}), so
     * that this exchange can carry another request: its request fields are empty again and its response as new. Only
     * for an exchange made by {@link #Exchange()}. The handler may keep no reference to its request, response or
     * callback past its completion ({@link dev.quarry.server.Request}'s contract): they are this exchange's, reused.
     *
     * <p>Plain writes: the next start happens after this on the same thread, or after the pool's CAS.
     */
    public void recycle() {
        // First, so that a stale caller that checks its generation after this point finds it over. A check that raced
        // this recycle can still pass (check-then-act): the guard catches late uses, not concurrent misuse.
        GENERATION.setRelease(this, (int) GENERATION.get(this) + 1);
        request.recycle();
        response.recycle();
        stream = null;
        endPoint = null;
        DEMAND.set(this, null);
        // Left done (true) until the next start: a late second completion by the previous handler finds it done and
        // is logged and ignored, as long as the exchange waits between requests.
        ERROR_PAGE_STARTED.set(this, false);
        if (badContent != null) {
            badContent = null;
        }
    }

    /**
     * The exchange of a request.
     *
     * @param request a request, possibly wrapped
     * @return its exchange, or null for a request that does not come from a server
     */
    public static Exchange of(Request request) {
        Request current = request;
        while (current instanceof RequestWrapper wrapper) {
            current = wrapper.wrapped();
        }
        return current instanceof ServerRequest serverRequest ? serverRequest.exchange() : null;
    }

    /**
     * The exchange of a response.
     *
     * @param response a response, possibly wrapped
     * @return its exchange, or null for a response that does not come from a server
     */
    public static Exchange of(Response response) {
        Response current = response;
        while (current instanceof ResponseWrapper wrapper) {
            current = wrapper.wrapped();
        }
        return current instanceof ServerResponse serverResponse ? serverResponse.exchange() : null;
    }

    /**
     * @return the generation of this exchange: it changes when the exchange is recycled for another request (HTTP/1.1
     *     only; an HTTP/2 exchange serves one request and stays at 0). Lock-free, allocation-free.
     */
    public int generation() {
        return (int) GENERATION.getAcquire(this);
    }

    /**
     * @param generation a {@link #generation()} captured while a request was in progress
     * @return whether that request is over and this exchange was recycled since: its request and response now belong
     *     to another request, or wait for one
     */
    public boolean isOver(int generation) {
        return generation() != generation;
    }

    /**
     * @return the failure of a response operation that comes after its request is over (the exchange was recycled):
     *     the same message as a write after the last one
     */
    public static IllegalStateException responseCompleted() {
        return new IllegalStateException("response already completed (its exchange serves another request now)");
    }

    /**
     * @return the failure of a request operation (reading its content) that comes after the request is over (the
     *     exchange was recycled)
     */
    public static IllegalStateException requestCompleted() {
        return new IllegalStateException("request already completed (its exchange serves another request now)");
    }

    /** Adds the fields every response carries, {@code Server} and {@code Date}, as configured. */
    void addStandardFields(HttpFields fields) {
        context.serverField().ifPresent(fields::add);
        if (context.config().sendDateHeader()) {
            fields.add(context.dateField().field());
        }
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

    /** @return the dispatch task object kept by this exchange, taken (null if another dispatch holds it) */
    HandlerInvoker.Dispatched takeDispatched() {
        return (HandlerInvoker.Dispatched) DISPATCHED.getAndSet(this, null);
    }

    /** Keeps a dispatch task object that its thread is done with, for this exchange's next blocking dispatch. */
    void giveBackDispatched(HandlerInvoker.Dispatched task) {
        DISPATCHED.setRelease(this, task);
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
                if (done) {
                    // The callback completed the exchange before it threw: the exchange may already serve another
                    // request (it is recycled), so there is nothing left of this one to abort or describe.
                    LOG.log(Level.WARNING, "demand callback failed after completing its exchange", x);
                    return;
                }
                LOG.log(Level.WARNING, "demand callback failed: " + describe(), x);
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
     * Answers a failure before the response was committed: the error handler of its type if there is one; otherwise
     * the status of an {@link HttpException}, 500 for anything else, with that status's error page or the plain
     * default error (a short text body, without the details of unexpected exceptions). A handler that failed after
     * reading malformed content (it usually rethrows the {@link java.io.IOException} its input stream threw) gets the
     * status of the content's problem: the client's fault, not the server's.
     */
    private void answerFailure(Throwable handlerFailure) {
        HttpException bad = badContent;
        if (bad == null && stream.isBroken()) {
            // The client reset or closed the connection, or a timeout closed it: no answer can reach it, so none is
            // made up and counted (it would count as a server error); the stream only ends.
            LOG.log(Level.DEBUG, () -> "not answering " + describe() + ", its connection is gone: " + handlerFailure);
            stream.failed(handlerFailure);
            return;
        }
        Throwable failure = bad != null ? bad : handlerFailure;
        int status = failure instanceof HttpException http ? http.status() : HttpStatus.INTERNAL_SERVER_ERROR_500;
        String message = failure instanceof HttpException http ? http.reason() : HttpStatus.reason(status);
        ErrorHandler<Throwable> errorHandler = context.errors().handlerFor(failure);
        if (errorHandler != null || bad != null || failure instanceof HttpException) {
            // The application's answer (an error handler, an HttpException) or the client's doing: not a fault.
            LOG.log(Level.DEBUG, () -> "answering " + status + " to " + describe() + ": " + handlerFailure);
        } else {
            LOG.log(Level.WARNING, "handler failed: " + describe(), handlerFailure);
        }
        response.resetForError();
        response.status(status);
        Callback done = Callback.from(InvocationType.NON_BLOCKING, () -> response.complete(completion), this::abort);
        if (errorHandler != null) {
            Callback fallback = new ErrorPageCallback(
                    "error handler for " + failure.getClass().getName(), response, status, message, done);
            AsyncHandler adapter = Handlers.blocking((req, res) -> errorHandler.handle(failure, req, res));
            context.invoker().invoke(adapter, request, response, fallback);
            return;
        }
        if (!startErrorPage(request, response, status, message, failure, done)) {
            writePlainError(response, status, message, completion);
        }
    }

    /**
     * Runs the error page of a status, if it has one and no page ran for this exchange yet. The page gets the request
     * with its {@link ErrorInfo} attribute and the response with the status set; it runs where its invocation type
     * says. If it fails before committing, the plain default error is written instead.
     *
     * @param target the request to hand to the page
     * @param to the response the page writes
     * @param status the error status
     * @param message the short explanation of the plain default error
     * @param failure the failure behind the error, or null
     * @param callback completed when the page completed (or its fallback was written); failed if it failed after
     *     committing
     * @return whether a page runs; if false, nothing was done and {@code callback} is not completed
     */
    boolean startErrorPage(
            Request target, Response to, int status, String message, Throwable failure, Callback callback) {
        AsyncHandler page = context.errors().page(status);
        if (page == null || !ERROR_PAGE_STARTED.compareAndSet(this, false, true)) {
            return false;
        }
        target.attribute(ErrorInfo.ATTRIBUTE, new ErrorInfo(status, message, Optional.ofNullable(failure)));
        to.status(status);
        context.invoker()
                .invoke(
                        page,
                        target,
                        to,
                        new ErrorPageCallback("error page for " + status, to, status, message, callback));
        return true;
    }

    /**
     * Writes the plain default error: the status, a {@code text/plain} body of the status and the message, and the
     * fields already set (Date, Server, and e.g. Allow or Retry-After).
     */
    static void writePlainError(Response to, int status, String message, Callback callback) {
        to.status(status);
        to.headers().put(HttpHeader.CONTENT_TYPE, TEXT_PLAIN_UTF8);
        byte[] body = (status + " " + message + "\n").getBytes(StandardCharsets.UTF_8);
        to.write(true, ByteBuffer.wrap(body), callback);
    }

    /**
     * The request line and the client, for logs: {@code GET /a HTTP/1.1 from 127.0.0.1:50123}.
     *
     * @return the description
     */
    String describe() {
        return request + " from " + client(remoteAddress());
    }

    private String client(SocketAddress address) {
        if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
            String host = inet.getAddress().getHostAddress();
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + inet.getPort();
        }
        if (address instanceof UnixDomainSocketAddress unix
                && unix.getPath().toString().isEmpty()) {
            return "a Unix socket client (connection " + connectionId() + ")";
        }
        return String.valueOf(address);
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
                if (badContent != null || stream.isBroken()) {
                    LOG.log(Level.DEBUG, () -> "aborting the response to " + describe() + ": " + failure);
                } else {
                    LOG.log(Level.WARNING, "handler failed after the response was committed: " + describe(), failure);
                }
                abort(failure);
            } else {
                answerFailure(failure);
            }
        }

        @Override
        public InvocationType invocationType() {
            return InvocationType.NON_BLOCKING;
        }
    }

    /**
     * Completes an error handler or page: on success, or a failure after commit, as the caller's callback; a failure
     * before commit is logged (it is the application's page that failed) and answered with the plain default error.
     */
    private final class ErrorPageCallback implements Callback {
        private final String what;
        private final Response to;
        private final int status;
        private final String message;
        private final Callback callback;
        // An error page is application code, which may complete its callback late or twice: after its exchange was
        // recycled, completing would end another request's response.
        private final int generation = generation();

        ErrorPageCallback(String what, Response to, int status, String message, Callback callback) {
            this.what = what;
            this.to = to;
            this.status = status;
            this.message = message;
            this.callback = callback;
        }

        @Override
        public void succeeded() {
            if (isLate(null)) {
                return;
            }
            callback.succeeded();
        }

        @Override
        public void failed(Throwable failure) {
            if (isLate(failure)) {
                return;
            }
            if (to.isCommitted()) {
                if (stream.isBroken()) {
                    LOG.log(Level.DEBUG, () -> what + " aborted for " + describe() + ": " + failure);
                } else {
                    LOG.log(Level.WARNING, what + " failed after committing: " + describe(), failure);
                }
                callback.failed(failure);
                return;
            }
            LOG.log(Level.WARNING, what + " failed, answering the plain " + status + ": " + describe(), failure);
            response.resetForError();
            writePlainError(to, status, message, callback);
        }

        /** @return whether the exchange was recycled since this page started: the completion is logged and ignored */
        private boolean isLate(Throwable failure) {
            if (!isOver(generation)) {
                return false;
            }
            LOG.log(Level.WARNING, what + " completed after its exchange was over; ignored", failure);
            return true;
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
