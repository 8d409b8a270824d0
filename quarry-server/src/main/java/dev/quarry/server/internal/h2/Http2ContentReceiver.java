package dev.quarry.server.internal.h2;

import dev.quarry.core.Callback;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.h2.Http2Exception;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The request content of one HTTP/2 connection: DATA frames into their streams' queues, each payload copied or
 * sharing the input buffer and charged to the server's {@link Http2ContentBudget}; and flow-control credit back to the
 * client. Credit returns, for the stream and for the connection, only as handlers consume content, or at once for
 * content nobody will read (padding, a completed or reset stream, a frame refused with a stream error): so the
 * connection window bounds what the connection holds unread.
 *
 * <p>Threading: {@link #onData} on the producer; {@link #onContentConsumed} on whichever thread releases content.
 * Both take the connection's lock once; O(1); a DATA frame allocates only the copy of a small payload (and a
 * WINDOW_UPDATE when one is due).
 */
final class Http2ContentReceiver {
    private final ReentrantLock lock;
    private final Http2StreamTable streams;
    private final Http2ConnectionWindow connectionWindow;
    private final Http2InputBuffer input;
    private final Http2ContentBudget budget;
    private final Http2Flusher flusher;
    private final FrameGenerator generator;
    private final Http2Closer closer;

    Http2ContentReceiver(
            ReentrantLock lock,
            Http2StreamTable streams,
            Http2ConnectionWindow connectionWindow,
            Http2InputBuffer input,
            Http2ContentBudget budget,
            Http2Flusher flusher,
            FrameGenerator generator,
            Http2Closer closer) {
        this.lock = lock;
        this.streams = streams;
        this.connectionWindow = connectionWindow;
        this.input = input;
        this.budget = budget;
        this.flusher = flusher;
        this.generator = generator;
        this.closer = closer;
    }

    /**
     * A DATA frame; on the producer.
     *
     * @throws Http2Exception a connection error (the connection window overrun, DATA on an idle stream) or a stream
     *     error (the stream window overrun, content-length, the budget overrun, a closed stream)
     */
    void onData(int streamId, ByteBuffer data, boolean endStream, int flowControlledLength) {
        int length = data.remaining();
        Http2Stream stream;
        boolean wake = false;
        boolean discard = false;
        boolean spent = false;
        // Whether a queued chunk now owns the frame's credit: it gives it back when the handler consumes it. Credit for
        // anything else (padding, discarded content, a frame refused with a stream error) goes back at once.
        boolean held = false;
        int streamCredit = 0;
        int connectionCredit = 0;
        lock.lock();
        try {
            connectionWindow.onData(flowControlledLength);
            spent = true;
            stream = streams.get(streamId);
            if (stream != null) {
                if (!stream.consumeReceiveWindow(flowControlledLength)) {
                    throw Http2Exception.stream(
                            streamId, ErrorCode.FLOW_CONTROL_ERROR, "DATA beyond the stream window");
                }
                discard = stream.isCompleted();
                if (discard) {
                    // The response is complete and the handler gone: nobody will read this, just keep the windows
                    // open. The request may still prove malformed (content-length), or DATA may follow END_STREAM.
                    stream.countContent(length, endStream);
                    if (endStream) {
                        stream.onTrailers(null);
                        streams.remove(streamId);
                    }
                } else {
                    wake = queueData(stream, data, flowControlledLength, endStream);
                    held = length > 0;
                }
                if (!held && flowControlledLength > 0) {
                    streamCredit = stream.creditReceiveWindow(flowControlledLength);
                }
            }
        } finally {
            if (spent && !held && flowControlledLength > 0) {
                connectionCredit = connectionWindow.onConsumed(flowControlledLength);
            }
            lock.unlock();
            sendCredit(streamId, streamCredit, connectionCredit);
        }
        if (stream == null) {
            onFrameForMissingStream(streamId, "DATA");
            return;
        }
        if (discard) {
            closer.afterStreamRemoved();
            return;
        }
        if (wake && stream.exchange() != null) {
            stream.exchange().onContentAvailable();
        }
    }

    /**
     * Queues a DATA payload for its handler, under the lock: a small one is copied, a large one shares the input buffer
     * (see {@link Http2Stream#SHARE_FRACTION}); either way its memory is charged to the server's content budget, which
     * it must not overrun.
     *
     * @return whether the handler waits for content and must be called back
     * @throws Http2Exception ENHANCE_YOUR_CALM on this stream if the payload would overrun the budget
     */
    private boolean queueData(Http2Stream stream, ByteBuffer data, int flowControlledLength, boolean endStream) {
        int length = data.remaining();
        if (length == 0) {
            return stream.onData(data, null, 0, flowControlledLength, endStream);
        }
        Http2SharedInput shared = null;
        if (!Http2Stream.copies(length, input.buffer().capacity())) {
            shared = input.share();
        }
        if (budget.wouldOverrun(shared == null ? length : shared.chargeToHold())) {
            budget.onStreamReset();
            throw Http2Exception.stream(
                    stream.id(),
                    ErrorCode.ENHANCE_YOUR_CALM,
                    "request content beyond the server's budget of " + budget.max() + " bytes held");
        }
        if (shared != null) {
            return stream.onData(data, shared, 0, flowControlledLength, endStream); // charges the buffer if first
        }
        // A small payload is copied rather than pin the whole input buffer (~20 KB) it arrived in: a client sending
        // one-byte DATA frames to a handler that does not read yet would hold a pooled buffer per byte of window.
        ByteBuffer copy = ByteBuffer.allocate(length);
        copy.put(data).flip();
        boolean wake = stream.onData(copy, null, length, flowControlledLength, endStream);
        // Charged once queued (content-length may refuse it first); no handler can take the chunk while we hold the
        // lock.
        budget.charge(length);
        return wake;
    }

    /** Sends the WINDOW_UPDATEs that credit returned now calls for, if any (outside the lock). */
    private void sendCredit(int streamId, int streamCredit, int connectionCredit) {
        if (streamCredit > 0) {
            flusher.offer(new Http2Flusher.ControlEntry(
                    out -> generator.windowUpdate(out, streamId, streamCredit), Callback.NOOP));
        }
        if (connectionCredit > 0) {
            flusher.offer(new Http2Flusher.ControlEntry(
                    out -> generator.windowUpdate(out, 0, connectionCredit), Callback.NOOP));
        }
    }

    /** A frame for a stream not in the map: idle (never opened) is a connection error; closed, a stream error. */
    private void onFrameForMissingStream(int streamId, String frame) {
        if (streamId > streams.lastStreamId()) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, frame + " on idle stream " + streamId);
        }
        if (streams.wasRecentlyReset(streamId)) {
            return; // RFC 9113 5.4.2: frames in flight after our RST_STREAM are ignored
        }
        throw Http2Exception.stream(streamId, ErrorCode.STREAM_CLOSED, frame + " on closed stream " + streamId);
    }

    /**
     * Content was consumed by its handler, or released unread: credit for the stream's window and the connection's,
     * each in one WINDOW_UPDATE once half of it was given back.
     *
     * @return whether a WINDOW_UPDATE was queued (the caller flushes it)
     */
    boolean onContentConsumed(Http2Stream stream, int bytes) {
        int increment;
        int connectionIncrement;
        lock.lock();
        try {
            increment = stream.creditReceiveWindow(bytes);
            connectionIncrement = connectionWindow.onConsumed(bytes);
        } finally {
            lock.unlock();
        }
        if (increment > 0 || connectionIncrement > 0) {
            sendCredit(stream.id(), increment, connectionIncrement);
            return true;
        }
        return false;
    }
}
