package dev.quarry.server.internal;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.thread.BoundedVirtualThreadExecutor;
import dev.quarry.http.HttpStatus;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Request;
import dev.quarry.server.Response;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The one point where a handler is invoked: the root handler of every exchange, every route of a router, and the next
 * handler of every filter go through {@link #invoke}, so that where a handler runs is decided per request, for that
 * handler, wherever it sits in the tree.
 *
 * <p>The decision follows the handler's invocation type and the calling thread's "must not block" mark
 * ({@link Invocable#isNonBlockingInvocation()}, set on selector threads and in non-blocking tasks):
 * <ul>
 *   <li>a {@link InvocationType#NON_BLOCKING} handler runs in place, with the mark set while it runs;
 *   <li>an {@link InvocationType#EITHER} handler (a router, a non-blocking filter around blocking routes) runs in place:
 *       it only decides, and sends what may block back through this point;
 *   <li>a {@link InvocationType#BLOCKING} handler never runs on a marked thread: it is dispatched to the blocking
 *       executor (bounded virtual threads by default, the platform pool otherwise). On an unmarked thread it runs in
 *       place when that thread may block anyway: a virtual thread (a blocking filter calling its chain), or, with
 *       virtual threads off, a pooled thread that the strategy let block (execute-produce-consume).
 * </ul>
 * When the blocking executor's bound and queue are full, the request is answered 503 with {@code Retry-After} instead
 * of queueing without limit. With platform threads the bound ({@code maxConcurrentRequests + maxQueuedRequests}) counts
 * every blocking handler, dispatched or run in place.
 *
 * <p>Thread-safety: any thread. Cost: two type checks and a mark read per handler; a dispatch reuses the task object
 * of its exchange when that one is free (an HTTP/1.1 exchange is recycled, so a dispatch allocates none there).
 */
public final class HandlerInvoker {
    private static final System.Logger LOG = System.getLogger(HandlerInvoker.class.getName());
    private static final String OVERLOADED_MESSAGE = "Service Unavailable: too many requests in progress, retry later";
    private static final byte[] OVERLOADED = ("503 " + OVERLOADED_MESSAGE + "\n").getBytes(StandardCharsets.US_ASCII);

    /**
     * Used for a request that does not come from a server (a handler called directly, or a request implementation
     * that does not wrap the server's): blocking handlers that must leave the thread get a virtual thread of their own.
     */
    private static final HandlerInvoker STANDALONE =
            new HandlerInvoker(task -> Thread.ofVirtual().name("quarry-handler").start(task), true, Integer.MAX_VALUE);

    private final Executor blockingExecutor;
    private final boolean virtualThreads;
    private final int platformAdmissionLimit;
    private final AtomicInteger platformAdmitted = new AtomicInteger();
    private final LongAdder rejected = new LongAdder();

    /**
     * @param blockingExecutor where blocking handlers run
     * @param virtualThreads whether {@code blockingExecutor} is made of virtual threads (then blocking handlers always
     *     go there from platform threads, and it bounds them itself)
     * @param platformAdmissionLimit with platform threads, how many blocking handlers may be running or queued at once
     */
    public HandlerInvoker(Executor blockingExecutor, boolean virtualThreads, int platformAdmissionLimit) {
        this.blockingExecutor = blockingExecutor;
        this.virtualThreads = virtualThreads;
        this.platformAdmissionLimit = platformAdmissionLimit;
    }

    /**
     * The invoker of the server that a request came from.
     *
     * @param request a request, possibly wrapped
     * @return its server's invoker, or a standalone one (virtual thread per dispatch) if it has none
     */
    public static HandlerInvoker of(Request request) {
        Exchange exchange = Exchange.of(request);
        return exchange != null ? exchange.invoker() : STANDALONE;
    }

    /**
     * Invokes a handler according to its invocation type and the calling thread; its outcome goes to
     * {@code callback}.
     *
     * @param handler the handler
     * @param request the request
     * @param response the response
     * @param callback completed by the handler, or failed with what it throws
     */
    public void invoke(AsyncHandler handler, Request request, Response response, Callback callback) {
        InvocationType type = handler.invocationType();
        if (type == InvocationType.NON_BLOCKING) {
            runNonBlocking(handler, request, response, callback);
            return;
        }
        if (type == InvocationType.EITHER) {
            run(handler, request, response, callback);
            return;
        }
        boolean mustNotBlock = Invocable.isNonBlockingInvocation();
        try {
            if (virtualThreads) {
                if (!mustNotBlock && Thread.currentThread().isVirtual()) {
                    run(handler, request, response, callback); // already on a handler's virtual thread
                } else {
                    blockingExecutor.execute(dispatched(handler, request, response, callback, false));
                }
                return;
            }
            // Platform threads: the pool's queue is shared with the selectors, so the bound is counted here, for
            // every blocking handler, including those that run in place because the execution strategy handed
            // production to another thread (otherwise those would escape the bound).
            if (platformAdmitted.incrementAndGet() > platformAdmissionLimit) {
                platformAdmitted.decrementAndGet();
                throw new RejectedExecutionException(
                        "more than " + platformAdmissionLimit + " blocking requests running or queued");
            }
            if (!mustNotBlock) {
                try {
                    run(handler, request, response, callback);
                } finally {
                    platformAdmitted.decrementAndGet();
                }
                return;
            }
            try {
                blockingExecutor.execute(dispatched(handler, request, response, callback, true));
            } catch (RejectedExecutionException x) {
                platformAdmitted.decrementAndGet();
                throw x;
            }
        } catch (RejectedExecutionException x) {
            rejected.increment();
            LOG.log(Level.DEBUG, () -> "rejected " + request.method() + " " + request.target() + ": " + x.getMessage());
            overloaded(request, response, callback);
        }
    }

    /** @return whether every blocking handler is dispatched off platform threads (virtual threads) */
    public boolean dispatchesAllBlocking() {
        return virtualThreads;
    }

    /**
     * @return blocking handlers running or waiting to run now: a stopping server reports those its deadline cuts off.
     *     Asynchronous handlers hold no thread and are not counted.
     */
    public int blockingInProgress() {
        if (blockingExecutor instanceof BoundedVirtualThreadExecutor executor) {
            BoundedVirtualThreadExecutor.Statistics now = executor.statistics();
            return now.running() + now.queued();
        }
        return platformAdmitted.get();
    }

    /** @return requests answered 503 because the blocking executor was full */
    public long rejectedCount() {
        return rejected.sum();
    }

    private static void run(AsyncHandler handler, Request request, Response response, Callback callback) {
        try {
            handler.handle(request, response, callback);
        } catch (Throwable x) {
            callback.failed(x);
        }
    }

    private static void runNonBlocking(AsyncHandler handler, Request request, Response response, Callback callback) {
        // A handler that says it never blocks runs marked, so that what it calls knows, and a test catches it if it
        // blocks after all. On a selector thread the mark is set already: nothing to do, nothing allocated.
        if (Invocable.isNonBlockingInvocation()) {
            run(handler, request, response, callback);
        } else {
            Invocable.invokeNonBlocking(() -> run(handler, request, response, callback));
        }
    }

    private static void overloaded(Request request, Response response, Callback callback) {
        if (response.isCommitted()) {
            callback.failed(new RejectedExecutionException("overloaded"));
            return;
        }
        response.headers().put("Retry-After", "1");
        // A blocking 503 page is likely refused too: then this runs again, and the page having started, the plain
        // answer follows.
        if (ErrorResponses.answerWithPage(
                request, response, HttpStatus.SERVICE_UNAVAILABLE_503, OVERLOADED_MESSAGE, callback)) {
            return;
        }
        response.status(HttpStatus.SERVICE_UNAVAILABLE_503);
        response.headers().put("Content-Type", "text/plain; charset=utf-8");
        response.write(true, ByteBuffer.wrap(OVERLOADED), callback);
    }

    /** @return the task that runs a blocking handler: the exchange's own when it is free, else a new one */
    private Dispatched dispatched(
            AsyncHandler handler, Request request, Response response, Callback callback, boolean admitted) {
        Exchange exchange = Exchange.of(request);
        Dispatched task = exchange != null ? exchange.takeDispatched() : null;
        if (task == null) {
            task = new Dispatched();
        }
        task.set(this, handler, request, response, callback, admitted, exchange);
        return task;
    }

    /**
     * A blocking handler on its way to the blocking executor. An exchange keeps one for its next dispatch: taken by a
     * dispatch (so that two dispatches at once never share one), given back by its thread once the handler returned,
     * when nothing reads its fields any more. One that never runs (refused, or dropped at stop) is simply not given
     * back.
     *
     * <p>Thread-safety: filled by the dispatching thread before the executor starts it (which publishes the fields),
     * then read and cleared by the thread that runs it.
     */
    static final class Dispatched implements Invocable.Task {
        private HandlerInvoker invoker;
        private AsyncHandler handler;
        private Request request;
        private Response response;
        private Callback callback;
        private boolean admitted;
        private Exchange home;

        void set(
                HandlerInvoker invoker,
                AsyncHandler handler,
                Request request,
                Response response,
                Callback callback,
                boolean admitted,
                Exchange home) {
            this.invoker = invoker;
            this.handler = handler;
            this.request = request;
            this.response = response;
            this.callback = callback;
            this.admitted = admitted;
            this.home = home;
        }

        @Override
        public void run() {
            HandlerInvoker owner = invoker;
            AsyncHandler target = handler;
            Request runRequest = request;
            Response runResponse = response;
            Callback runCallback = callback;
            boolean counted = admitted;
            Exchange exchange = home;
            try {
                HandlerInvoker.run(target, runRequest, runResponse, runCallback);
            } finally {
                if (counted) {
                    owner.platformAdmitted.decrementAndGet();
                }
            }
            if (exchange != null) {
                // Forgotten before it is given back: a pooled exchange keeps no handler or filter callback alive.
                set(null, null, null, null, null, false, null);
                exchange.giveBackDispatched(this);
            }
        }

        @Override
        public InvocationType invocationType() {
            return InvocationType.BLOCKING;
        }

        @Override
        public String toString() {
            Request current = request;
            return current == null
                    ? "Dispatched[idle]"
                    : "Dispatched[" + current.method() + " " + current.target() + " -> " + handler + "]";
        }
    }
}
