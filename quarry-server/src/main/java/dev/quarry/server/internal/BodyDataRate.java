package dev.quarry.server.internal;

import dev.quarry.http.HttpException;
import dev.quarry.http.HttpStatus;
import java.util.concurrent.TimeUnit;

/**
 * The minimum data rate of one request body ({@link dev.quarry.server.HttpConfig#minRequestBodyRate()}): counts the
 * body's bytes and the time the server spent waiting for them, and says when the client sends too slowly.
 *
 * <p>Only the time during which the handler waits for content counts: a handler that is slow to read holds the body
 * back itself (through TCP or HTTP/2 flow control), which is not the client's fault. The first
 * {@link #GRACE_NANOS} of waiting are free (a round trip, a {@code 100 Continue}); after that the body must have
 * brought {@code rate} bytes per further second of waiting. Bytes that arrived while the handler was busy count too.
 *
 * <p>Threading: recorded by the reading side, one thread at a time (the handler's demand starts a wait, the arrival of
 * content ends it, each on the thread where it happens); checked by the timer ({@link #isTooSlow}). The fields are
 * volatile so that the check sees recent values; a check that reads a value one update late only decides one tick
 * later. Cost: a clock read when a wait starts and ends, and a volatile add per chunk of content; no allocation.
 */
public final class BodyDataRate {
    /** The waiting time a body gets before the rate applies. */
    public static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How often the timer checks the rate of the bodies being waited for. */
    public static final long CHECK_PERIOD_MILLIS = 500;

    private final long bytesPerSecond;
    private volatile long bytes;
    private volatile long waitedNanos;
    // When the current wait began, 0 when the handler is not waiting.
    private volatile long waitingSince;

    /** @param bytesPerSecond the minimum rate, positive */
    public BodyDataRate(long bytesPerSecond) {
        if (bytesPerSecond <= 0) {
            throw new IllegalArgumentException("bytesPerSecond must be positive, was " + bytesPerSecond);
        }
        this.bytesPerSecond = bytesPerSecond;
    }

    /** Starts counting for a new body. */
    public void reset() {
        bytes = 0;
        waitedNanos = 0;
        waitingSince = 0;
    }

    /** The handler waits for content that has not arrived: the waiting time counts from now. */
    public void onWaiting() {
        if (waitingSince == 0) {
            long now = System.nanoTime();
            waitingSince = now == 0 ? 1 : now;
        }
    }

    /** Content (or the end of it, or a failure) is there for the handler: the wait is over. */
    public void onWaitOver() {
        long since = waitingSince;
        if (since != 0) {
            waitingSince = 0;
            waitedNanos += System.nanoTime() - since;
        }
    }

    /** @param count bytes of the body that arrived */
    public void onBytes(long count) {
        bytes += count;
    }

    /**
     * On the timer.
     *
     * @return whether the body came slower than the minimum rate, over the time waited for it beyond the grace
     */
    public boolean isTooSlow() {
        long charged = waitedNanos() - GRACE_NANOS;
        if (charged <= 0) {
            return false;
        }
        // bytes < rate * charged / 1e9, in doubles: a rate times nanoseconds overflows a long within hours.
        return bytes < (double) bytesPerSecond * charged / 1e9;
    }

    /** @return the failure that a too slow body's reads get: a 408 the exchange answers if it can */
    public HttpException failure() {
        return new HttpException(
                HttpStatus.REQUEST_TIMEOUT_408,
                "request body slower than " + bytesPerSecond + " bytes/s (" + bytes + " bytes in "
                        + TimeUnit.NANOSECONDS.toMillis(waitedNanos()) + " ms of waiting)");
    }

    /** @return the time waited so far, the current wait included */
    private long waitedNanos() {
        long since = waitingSince;
        return waitedNanos + (since != 0 ? System.nanoTime() - since : 0);
    }

    @Override
    public String toString() {
        return "BodyDataRate{min=" + bytesPerSecond + " B/s, bytes=" + bytes + ", waited="
                + TimeUnit.NANOSECONDS.toMillis(waitedNanos()) + " ms" + (waitingSince != 0 ? ", waiting" : "") + "}";
    }
}
