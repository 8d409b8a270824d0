package dev.quarry.server.internal.h2;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.io.EndPoint;
import java.io.IOException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Sequences the end of one HTTP/2 connection: our GOAWAY, the close once the streams in progress are gone and
 * everything queued is written, or the close at once. The rule it keeps: a close never overtakes our GOAWAY.
 *
 * <p>Threading: any thread (producer, timer, server stop, write completions). The flags are volatile; the decision
 * to send GOAWAY is taken under the connection's lock, in one critical section with the producer's registration of a
 * new stream. O(1) except for failing the streams on a connection error.
 */
final class Http2Closer {
    private final ReentrantLock lock;
    private final Http2StreamTable streams;
    private final Http2Flusher flusher;
    private final FrameGenerator generator;
    private final EndPoint endPoint;
    private volatile boolean goAwaySent;
    // Set once our GOAWAY is in the flusher's queue: a close queued from then on cannot overtake it.
    private volatile boolean goAwayQueued;
    private volatile boolean closing;
    private volatile boolean closed;

    Http2Closer(
            ReentrantLock lock,
            Http2StreamTable streams,
            Http2Flusher flusher,
            FrameGenerator generator,
            EndPoint endPoint) {
        this.lock = lock;
        this.streams = streams;
        this.flusher = flusher;
        this.generator = generator;
        this.endPoint = endPoint;
    }

    /** @return whether our GOAWAY was sent (or is queued); read under the lock to order it with new streams */
    boolean goAwaySent() {
        return goAwaySent;
    }

    /** @return whether the connection ends once its streams are gone (client GOAWAY, server shutdown) */
    boolean isClosing() {
        return closing;
    }

    /** @return whether the connection is closed */
    boolean isClosed() {
        return closed;
    }

    /** The endpoint closed: the connection is closed, whoever closed it. */
    void onClosed() {
        closed = true;
    }

    /**
     * Sends GOAWAY and closes once it is written (and, for NO_ERROR, once streams in progress completed).
     *
     * @return false if a GOAWAY was sent already (this one is not)
     */
    boolean goAway(ErrorCode error, String reason) {
        int last;
        lock.lock();
        try {
            // With Http2StreamOpener.open: the last stream id read here is the last stream that was (or will be)
            // served.
            if (goAwaySent) {
                return false;
            }
            goAwaySent = true;
            last = streams.lastStreamId();
        } finally {
            lock.unlock();
        }
        flusher.offer(new Http2Flusher.ControlEntry(
                out -> generator.goAway(out, last, error, reason),
                Callback.from(
                        InvocationType.NON_BLOCKING,
                        () -> {
                            if (error != ErrorCode.NO_ERROR || streams.isEmpty()) {
                                closeNow();
                            }
                        },
                        x -> closeNow())));
        goAwayQueued = true;
        if (error != ErrorCode.NO_ERROR) {
            streams.failAll(new IOException("HTTP/2 connection error " + error + ": " + reason));
        }
        flusher.iterate();
        return true;
    }

    /**
     * The connection cannot go on (an error of ours): GOAWAY with {@code error} and close once it is written; if a
     * GOAWAY went already (a graceful one, say), its streams fail and it closes once what is queued is written. If
     * that GOAWAY is not queued yet (another thread is queuing it), the close waits for it: its completion, or the
     * removal of the last stream, closes the connection.
     */
    void fail(ErrorCode error, String reason) {
        if (!goAway(error, reason)) {
            streams.failAll(new IOException("HTTP/2 connection error " + error + ": " + reason));
            if (goAwayQueued) {
                closeAfterFlush();
            }
        }
    }

    /** The client sent GOAWAY: finish the streams in progress, then close. */
    void onPeerGoAway() {
        closing = true;
        if (streams.isEmpty()) {
            goAway(ErrorCode.NO_ERROR, "");
        }
    }

    /** The server stops: GOAWAY, then close once the streams in progress completed. */
    void shutdown() {
        // The GOAWAY is queued first: whatever closes the connection from now on closes after it.
        goAway(ErrorCode.NO_ERROR, "server shutting down");
        closing = true;
        if (streams.isEmpty()) {
            closeAfterFlush();
        }
    }

    /**
     * Closes once the last stream is gone, if the connection is ending: after our GOAWAY, but never before it is
     * queued (the close would overtake it and the client would see the connection end without it; the GOAWAY's own
     * completion closes in that case); or after the client's GOAWAY, when we send none.
     */
    void afterStreamRemoved() {
        if ((goAwayQueued || closing && !goAwaySent) && streams.isEmpty()) {
            closeAfterFlush();
        }
    }

    /** Closes once everything queued so far is written. */
    void closeAfterFlush() {
        flusher.offer(new Http2Flusher.ControlEntry(
                out -> {}, Callback.from(InvocationType.NON_BLOCKING, this::closeNow, x -> closeNow())));
        flusher.iterate();
    }

    /** Closes the endpoint now. */
    void closeNow() {
        closed = true;
        // Lingering: the client may still be sending, and unread bytes at close would turn our FIN into RST.
        endPoint.closeLingering(EndPoint.DEFAULT_LINGER_MILLIS);
    }

    @Override
    public String toString() {
        return "Http2Closer{" + (goAwaySent ? "goaway" : "") + (goAwayQueued ? ",queued" : "")
                + (closing ? ",closing" : "") + (closed ? ",closed" : "") + "}";
    }
}
