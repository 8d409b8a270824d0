package dev.quarry.server.handlers;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.IteratingCallback;
import dev.quarry.core.throttle.TokenBucket;
import dev.quarry.core.timer.Timeout;
import dev.quarry.server.internal.Exchange;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.TimeUnit;

/**
 * One write of a handler through a {@link ThrottledResponse}, sent chunk by chunk, each chunk granted by every bucket
 * of the request's chain before it goes out. Its steps, driven by {@link IteratingCallback} (no recursion, no thread
 * held between steps):
 *
 * <ol>
 *   <li>reserve the chunk from the next bucket of the chain ({@link TokenBucket#reserve}): the bucket grants it at
 *       once or goes into debt and says how long until the tokens exist;
 *   <li>if it must wait: park on the timer for exactly that long (one timer task per wait, no polling, no
 *       re-submission) and resume with the next bucket; the first wait of a response first writes the response head,
 *       so that the client gets status and headers at once rather than after the first chunk's wait;
 *   <li>once every bucket granted it: write the chunk to the wrapped response and continue only when that write
 *       completed, i.e. when the bytes reached the socket.
 * </ol>
 *
 * <p>So a throttled response holds at most one chunk between the handler and the socket, plus nothing: the content
 * is the handler's own buffer, sliced without copying, or a file region handed to the wrapped response. A client
 * that reads slowly or not at all stops the chunk writes, which stops the handler's write callback, which stops the
 * handler (back pressure); the server's idle timeout then closes the connection and this write fails. The handler's
 * callback completes only when all its bytes were written.
 *
 * <p>When a step fails, the chunk's reservations are refunded to the buckets that granted them (a client or the
 * server does not pay for bytes that were not sent), and a pending park is cancelled.
 *
 * <p>A step that resumes after the request is over (its handler completed while this write waited for tokens, and the
 * server's response was recycled for another request) writes nothing: the write fails with an
 * {@link IllegalStateException} ("response already completed"), logged at DEBUG.
 *
 * <p>Where it runs: resumption after a park is a timer task, {@link InvocationType#NON_BLOCKING} (it runs on the timer
 * thread) unless the handler's callback declared itself blocking, in which case the timer's executor runs it.
 *
 * <p>Thread-safety: confined to one step at a time by {@link IteratingCallback}; the handler must not write again before
 * its callback completed, as for any response.
 */
final class ThrottledWrite extends IteratingCallback {
    private static final System.Logger LOG = System.getLogger(ThrottledWrite.class.getName());

    private enum Step {
        NONE,
        HEAD,
        PARK,
        CHUNK
    }

    private final ThrottledResponse response;
    private final RequestThrottle request;
    private final ThrottleCounters counters;
    private final ByteBuffer content;
    private final FileChannel file;
    private final long fileEnd;
    private final boolean last;
    private final Callback callback;
    private final Resume resume = new Resume();
    private long filePosition;
    private Step step = Step.NONE;
    private TokenBucket[] chain;
    private long chunk;
    private int stage;
    private boolean waiting;
    private long deadline;
    private Timeout parked;

    private ThrottledWrite(
            ThrottledResponse response,
            ByteBuffer content,
            FileChannel file,
            long position,
            long count,
            boolean last,
            Callback callback) {
        this.response = response;
        this.request = response.request();
        this.counters = request.throttle().counters();
        this.content = content;
        this.file = file;
        this.filePosition = position;
        this.fileEnd = position + count;
        this.last = last;
        this.callback = callback;
    }

    /** Writes {@code content}, which must not be empty, chunk by chunk. */
    static void write(ThrottledResponse response, boolean last, ByteBuffer content, Callback callback) {
        new ThrottledWrite(response, content, null, 0, 0, last, callback).iterate();
    }

    /** Writes a file region, which must not be empty, chunk by chunk. */
    static void write(
            ThrottledResponse response, FileChannel file, long position, long count, boolean last, Callback callback) {
        new ThrottledWrite(response, null, file, position, count, last, callback).iterate();
    }

    private long remaining() {
        return content != null ? content.remaining() : fileEnd - filePosition;
    }

    @Override
    protected Action process() throws Exception {
        if (step == Step.CHUNK) {
            // Booked first: a chunk whose write completed was sent, even if its request ended meanwhile, and the
            // failure below must not refund its tokens.
            counters.bytesSent.add(chunk);
            chunk = 0;
        }
        if (response.isOver()) {
            // A timer or a write completion after the request ended: the wrapped response is another request's now.
            LOG.log(Level.DEBUG, () -> "throttled write resumed after its request was over: " + this);
            failed(Exchange.responseCompleted()); // not thrown: process() throwing is logged as a bug
            return Action.SCHEDULED; // the operation failed; nothing runs any more
        }
        step = Step.NONE;
        if (chunk == 0) {
            long remaining = remaining();
            if (remaining == 0) {
                return Action.SUCCEEDED;
            }
            chain = request.chain();
            chunk = request.chunkSize(remaining);
            stage = 0;
            waiting = false;
        }
        long now = request.throttle().clock().nanoTime();
        if (waiting) {
            long left = deadline - now;
            if (left > 0) {
                return park(left);
            }
            waiting = false;
        }
        while (stage < chain.length) {
            long wait = chain[stage++].reserve(chunk);
            if (wait > 0) {
                waiting = true;
                deadline = now + wait;
                if (!response.isCommitted()) {
                    // Status and headers now: the client learns the length and type before the first chunk's wait.
                    step = Step.HEAD;
                    response.wrapped().write(false, ByteBuffer.allocate(0), this);
                    return Action.SCHEDULED;
                }
                return park(wait);
            }
        }
        boolean lastChunk = last && chunk == remaining();
        step = Step.CHUNK;
        if (content != null) {
            int length = (int) chunk;
            ByteBuffer slice = content.slice(content.position(), length);
            content.position(content.position() + length);
            response.wrapped().write(lastChunk, slice, this);
        } else {
            long position = filePosition;
            filePosition += chunk;
            response.wrapped().write(file, position, chunk, lastChunk, this);
        }
        return Action.SCHEDULED;
    }

    private Action park(long nanos) {
        step = Step.PARK;
        counters.onPark(nanos);
        try {
            parked = request.throttle().timer().schedule(resume, nanos, TimeUnit.NANOSECONDS);
        } catch (RuntimeException x) {
            counters.onResume();
            throw x;
        }
        return Action.SCHEDULED;
    }

    @Override
    protected void onCompleteSuccess() {
        callback.succeeded();
    }

    @Override
    protected void onCompleteFailure(Throwable cause) {
        Timeout timeout = parked;
        if (step == Step.PARK && timeout != null && timeout.cancel()) {
            counters.onResume();
        }
        if (chunk > 0 && chain != null) {
            for (int i = 0; i < stage; i++) {
                chain[i].refund(chunk);
            }
        }
        callback.failed(cause);
    }

    /** Completing this callback runs the next step, and perhaps the handler's callback: as blocking as the latter. */
    @Override
    public InvocationType invocationType() {
        return callback.invocationType() == InvocationType.BLOCKING
                ? InvocationType.BLOCKING
                : InvocationType.NON_BLOCKING;
    }

    @Override
    public String toString() {
        return "ThrottledWrite@" + Integer.toHexString(hashCode()) + "{" + step + ", chunk=" + chunk + ", stage="
                + stage + ", remaining=" + remaining() + (last ? ", last" : "") + ", " + super.toString() + "}";
    }

    /** The end of a park: the timer runs it. */
    private final class Resume implements Invocable.Task {
        @Override
        public void run() {
            parked = null;
            counters.onResume();
            succeeded();
        }

        @Override
        public InvocationType invocationType() {
            return ThrottledWrite.this.invocationType();
        }

        @Override
        public String toString() {
            return "Resume[" + ThrottledWrite.this + "]";
        }
    }
}
