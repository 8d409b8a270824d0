package dev.quarry.server.internal.h2;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.timer.HashedWheelTimer;
import dev.quarry.core.timer.Timeout;
import dev.quarry.http.HttpException;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.server.internal.BodyDataRate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Resets the streams of one HTTP/2 connection that made no progress for the stream idle timeout (a client that never
 * opens its window, or never ends a request whose response was sent), and fails the body reads of streams whose client
 * sends slower than the minimum body rate, if there is one. One timer task per connection, at half the
 * timeout, scheduled while streams are open: a new stream costs a field check, not a timer task.
 *
 * <p>Threading: {@link #schedule} on the producer, the check on the timer, {@link #cancel} on the closing thread.
 * The pending timeout is a plain field, written by the producer and the timer: a race at worst schedules one extra
 * check, which finds nothing or the connection closed. The streams are scanned under the connection's lock; the
 * resets happen outside it.
 */
final class Http2StreamIdleChecker {
    private final Duration timeout;
    private final HashedWheelTimer timer;
    private final ReentrantLock lock;
    private final Http2StreamTable streams;
    private final Http2ServerConnection connection;
    private final long periodMillis;
    private Timeout streamIdleCheck;

    Http2StreamIdleChecker(
            Duration timeout,
            HashedWheelTimer timer,
            ReentrantLock lock,
            Http2StreamTable streams,
            Http2ServerConnection connection,
            boolean checkBodyRate) {
        this.timeout = timeout;
        this.timer = timer;
        this.lock = lock;
        this.streams = streams;
        this.connection = connection;
        long period = Math.max(10, timeout.toMillis() / 2);
        // With a minimum body rate, the same check judges the bodies being read, often enough to matter.
        this.periodMillis = checkBodyRate ? Math.min(period, BodyDataRate.CHECK_PERIOD_MILLIS) : period;
    }

    /** A stream opened: makes sure a check is pending. */
    void schedule() {
        if (streamIdleCheck != null && !streamIdleCheck.isExpired() && !streamIdleCheck.isCancelled()) {
            return;
        }
        streamIdleCheck = timer.schedule(
                Invocable.task(InvocationType.NON_BLOCKING, this::checkIdleStreams),
                periodMillis,
                TimeUnit.MILLISECONDS);
    }

    /** The connection closed. */
    void cancel() {
        Timeout idle = streamIdleCheck;
        if (idle != null) {
            idle.cancel();
        }
    }

    private void checkIdleStreams() {
        if (connection.isClosed()) {
            return;
        }
        long limit = timeout.toNanos();
        long now = System.nanoTime();
        List<Http2Stream> expired = new ArrayList<>();
        List<Http2Stream> timedOutReaders = new ArrayList<>();
        boolean any;
        lock.lock();
        try {
            for (Http2Stream stream : streams.values()) {
                if (stream.isBodyTooSlow()) {
                    // As for a body that stopped: the handler's reads fail with a 408, answered on the stream.
                    if (stream.onContentTimeout(stream.bodyRateFailure())) {
                        timedOutReaders.add(stream);
                    }
                    continue;
                }
                if (!stream.isWaitingForPeer() || now - stream.lastProgressNanos() <= limit) {
                    continue;
                }
                if (stream.isWaitingForContent() && !stream.isCompleted()) {
                    // The client's fault, not the server's: the handler's read fails with a 408 that the exchange
                    // answers on the still open stream (then reset if the client never ends its request).
                    if (stream.onContentTimeout(new HttpException(
                            HttpStatus.REQUEST_TIMEOUT_408, "no request content for " + timeout.toMillis() + " ms"))) {
                        timedOutReaders.add(stream);
                    }
                } else {
                    expired.add(stream);
                }
            }
            any = streams.size() > expired.size();
        } finally {
            lock.unlock();
        }
        for (Http2Stream stream : timedOutReaders) {
            stream.exchange().onContentAvailable();
        }
        for (Http2Stream stream : expired) {
            connection.resetStream(
                    stream,
                    stream.isCompleted() ? ErrorCode.NO_ERROR : ErrorCode.CANCEL,
                    new TimeoutException("stream " + stream.id() + " made no progress for " + timeout));
        }
        streamIdleCheck = null;
        if (any) {
            schedule();
        }
    }

    @Override
    public String toString() {
        return "Http2StreamIdleChecker{timeout=" + timeout + ", pending=" + (streamIdleCheck != null) + "}";
    }
}
