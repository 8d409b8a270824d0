package dev.quarry.server.internal;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
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
 * Runs handlers where their invocation type allows: a handler that never blocks runs in place (hot cache, no
 * dispatch); one that may block runs on the blocking executor — bounded virtual threads by default — unless virtual
 * threads are off and the current thread is allowed to block. When the blocking executor's bound and queue are full,
 * the request is answered 503 with {@code Retry-After} instead of queueing without limit. With platform threads the
 * bound ({@code maxConcurrentRequests + maxQueuedRequests}) counts every blocking handler, dispatched or run in place.
 *
 * <p>Thread-safety: any thread.
 */
public final class HandlerInvoker {
    private static final System.Logger LOG = System.getLogger(HandlerInvoker.class.getName());
    private static final byte[] OVERLOADED =
            "503 Service Unavailable: too many requests in progress, retry later\n".getBytes(StandardCharsets.US_ASCII);

    private final Executor blockingExecutor;
    private final boolean virtualThreads;
    private final int platformAdmissionLimit;
    private final AtomicInteger platformAdmitted = new AtomicInteger();
    private final LongAdder rejected = new LongAdder();

    /**
     * @param blockingExecutor where blocking handlers run
     * @param virtualThreads whether {@code blockingExecutor} is made of virtual threads (then blocking handlers always
     *     go there, never onto a platform thread, and it bounds them itself)
     * @param platformAdmissionLimit with platform threads, how many blocking handlers may be running or queued at once
     */
    public HandlerInvoker(Executor blockingExecutor, boolean virtualThreads, int platformAdmissionLimit) {
        this.blockingExecutor = blockingExecutor;
        this.virtualThreads = virtualThreads;
        this.platformAdmissionLimit = platformAdmissionLimit;
    }

    /**
     * Invokes a handler according to its invocation type; its outcome goes to {@code callback}.
     *
     * @param handler the handler
     * @param request the request
     * @param response the response
     * @param callback completed by the handler, or failed with what it throws
     */
    public void invoke(AsyncHandler handler, Request request, Response response, Callback callback) {
        if (handler.invocationType() != InvocationType.BLOCKING) {
            run(handler, request, response, callback);
            return;
        }
        try {
            if (virtualThreads) {
                blockingExecutor.execute(() -> run(handler, request, response, callback));
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
            if (!Invocable.isNonBlockingInvocation()) {
                try {
                    run(handler, request, response, callback);
                } finally {
                    platformAdmitted.decrementAndGet();
                }
                return;
            }
            try {
                blockingExecutor.execute(() -> {
                    try {
                        run(handler, request, response, callback);
                    } finally {
                        platformAdmitted.decrementAndGet();
                    }
                });
            } catch (RejectedExecutionException x) {
                platformAdmitted.decrementAndGet();
                throw x;
            }
        } catch (RejectedExecutionException x) {
            rejected.increment();
            LOG.log(Level.DEBUG, () -> "rejected " + request.method() + " " + request.target() + ": " + x.getMessage());
            overloaded(response, callback);
        }
    }

    /** @return whether a handler of this type must leave the current thread */
    public boolean mustDispatch(InvocationType type) {
        if (type != InvocationType.BLOCKING) {
            return false;
        }
        return virtualThreads || Invocable.isNonBlockingInvocation();
    }

    /** @return whether every blocking handler is dispatched (virtual threads), so invoking never blocks */
    public boolean dispatchesAllBlocking() {
        return virtualThreads;
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

    private static void overloaded(Response response, Callback callback) {
        if (response.isCommitted()) {
            callback.failed(new RejectedExecutionException("overloaded"));
            return;
        }
        response.status(HttpStatus.SERVICE_UNAVAILABLE_503);
        response.headers().put("Retry-After", "1");
        response.headers().put("Content-Type", "text/plain; charset=utf-8");
        response.write(true, ByteBuffer.wrap(OVERLOADED), callback);
    }
}
