package dev.quarry.server.handlers;

import dev.quarry.core.Callback;
import dev.quarry.core.Dumpable;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpStatus;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Handler;
import dev.quarry.server.Handlers;
import dev.quarry.server.Request;
import dev.quarry.server.Response;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Throttles the responses of the handler it wraps, by the limits of a {@link Throttle}: the asynchronous download
 * server of "Tenfold increase in server throughput with Servlet 3.0 asynchronous processing", done right.
 *
 * <p>For each request it first decides, in O(1) without blocking:
 *
 * <ul>
 *   <li>a client in the deny list gets {@code 403 Forbidden};
 *   <li>a client in the allow list goes through unthrottled, and so does a {@code HEAD} request (no body to pace);
 *   <li>a client that already has {@link ThrottleLimits#maxRequestsPerClient()} requests in flight gets
 *       {@code 429 Too Many Requests} with {@code Retry-After: 1};
 *   <li>any other request is passed on with a throttled response: every byte it writes is granted by the request's,
 *       the client's and the global bucket, and a write that must wait for tokens is parked on the timer, holding no
 *       thread (see {@link ThrottledWrite}).
 * </ul>
 *
 * <p>Both handler shapes are throttled: an {@link AsyncHandler}'s writes and file writes complete their callbacks only
 * when all their bytes were written; a blocking {@link Handler}'s stream and {@code send} methods block (its virtual
 * thread) until then. The request's slot in its client's count is freed when the wrapped handler completes.
 *
 * <p>The invocation type is the wrapped handler's: the decision above never blocks.
 *
 * <p>Thread-safety: stateless apart from the shared {@link Throttle}; any number of requests at once.
 */
public final class ThrottleHandler implements AsyncHandler, Dumpable {
    private static final byte[] FORBIDDEN = "403 Forbidden\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TOO_MANY = "429 Too Many Requests: this client has too many downloads in progress\n"
            .getBytes(StandardCharsets.US_ASCII);

    private final Throttle throttle;
    private final AsyncHandler next;

    /**
     * @param throttle the limits and state, possibly shared with other handlers
     * @param next the handler whose responses are throttled
     */
    public ThrottleHandler(Throttle throttle, AsyncHandler next) {
        this.throttle = Objects.requireNonNull(throttle, "throttle");
        this.next = Objects.requireNonNull(next, "next");
    }

    /**
     * @param throttle the limits and state
     * @param next a blocking handler, run like {@link Handlers#blocking(Handler)}
     */
    public ThrottleHandler(Throttle throttle, Handler next) {
        this(throttle, Handlers.blocking(next));
    }

    /** @return the throttle */
    public Throttle throttle() {
        return throttle;
    }

    /** @return the wrapped handler */
    public AsyncHandler next() {
        return next;
    }

    @Override
    public void handle(Request request, Response response, Callback callback) throws Exception {
        Throttle.Admission admission =
                throttle.admit(request.remoteAddress(), request.method().equals("HEAD"));
        if (admission.status() == HttpStatus.FORBIDDEN_403) {
            reject(response, HttpStatus.FORBIDDEN_403, FORBIDDEN, callback);
            return;
        }
        if (admission.status() == HttpStatus.TOO_MANY_REQUESTS_429) {
            response.header(HttpHeader.RETRY_AFTER.asString(), "1");
            reject(response, HttpStatus.TOO_MANY_REQUESTS_429, TOO_MANY, callback);
            return;
        }
        RequestThrottle throttled = admission.request();
        if (throttled == null) {
            Handlers.invoke(next, request, response, callback);
            return;
        }
        ThrottledResponse wrapper = new ThrottledResponse(response, throttled);
        Callback completion = wrapper.completion(callback);
        try {
            Handlers.invoke(next, request, wrapper, completion);
        } catch (Throwable x) {
            // Through the completion, so that the client's slot is freed.
            completion.failed(x);
        }
    }

    private static void reject(Response response, int status, byte[] body, Callback callback) {
        response.status(status);
        response.header(HttpHeader.CONTENT_TYPE.asString(), "text/plain; charset=utf-8");
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    /**
     * @return non-blocking if the wrapped handler is: admission only counts; otherwise {@code EITHER}: admission runs
     *     in place and the wrapped handler is dispatched where its own type says
     */
    @Override
    public InvocationType invocationType() {
        return next.invocationType() == InvocationType.NON_BLOCKING
                ? InvocationType.NON_BLOCKING
                : InvocationType.EITHER;
    }

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        out.append(toString()).append(System.lineSeparator());
        out.append(indent).append("+- ");
        throttle.dump(out, indent + "   ");
    }

    @Override
    public String toString() {
        return "ThrottleHandler{" + throttle.limits() + ", next=" + next + "}";
    }
}
