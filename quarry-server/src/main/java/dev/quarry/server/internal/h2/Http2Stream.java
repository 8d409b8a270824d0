package dev.quarry.server.internal.h2;

import dev.quarry.core.Callback;
import dev.quarry.http.HttpException;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.h2.Http2Exception;
import dev.quarry.server.Content;
import dev.quarry.server.internal.BodyDataRate;
import dev.quarry.server.internal.Exchange;
import dev.quarry.server.internal.HttpStream;
import dev.quarry.server.internal.ResponseHead;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.function.Supplier;

/**
 * One HTTP/2 stream on the server: request content arrives as DATA frames into a queue bounded by the stream's receive
 * window (the window is only reopened as the handler consumes, so a slow handler slows its client, not server memory);
 * response content leaves as frames through the connection's flusher, within the stream's send window.
 *
 * <p>Thread-safety: state is guarded by the connection's lock; the producing thread delivers frames, the handler's
 * threads read and send.
 */
final class Http2Stream implements HttpStream {
    /**
     * A DATA payload shares its input buffer (a zero-copy slice that keeps the whole buffer while the handler holds the
     * chunk) only if it fills at least this fraction of the buffer; smaller ones are copied out. So a held buffer holds
     * at least a quarter of its capacity in content, and the memory a connection's unread content keeps is at most four
     * times its receive window (one-byte DATA frames once pinned a ~20 KB buffer per byte).
     */
    static final int SHARE_FRACTION = 4;

    private final int id;
    private final Http2ServerConnection session;
    private final ArrayDeque<Content.Chunk> content = new ArrayDeque<>(4);
    private Exchange exchange;
    // The minimum data rate of the request body, null for none (or no body). Updated under the session lock.
    private BodyDataRate bodyRate;
    // Guarded by the session lock.
    private boolean remoteClosed;
    private boolean endStreamSent;
    // Both sides sent END_STREAM: closed on the wire (RFC 9113 5.1), though its handler may still be finishing. Set
    // once, under the lock; countedClosed is the table's note that it counted this stream among its closed ones.
    private boolean closedOnWire;
    private boolean countedClosed;
    // Whether the connection's stream table holds this stream (saves the table a map lookup); under the lock.
    private boolean inTable;
    // The final (non-1xx) response head went out: an interim response may no longer follow. Under the lock.
    private boolean finalHeadSent;
    private boolean completed;
    private boolean demanding;
    // The request asked for 100 Continue and neither content nor a 100 has passed yet: the first demand sends it.
    private boolean continuePending;
    private Throwable failure;
    private int sendWindow;
    private int recvWindow;
    private int initialRecvWindow;
    private int unackedConsumed;
    private long contentReceived;
    private long expectedContentLength = -1;
    private volatile long lastProgressNanos = System.nanoTime();
    private boolean reset;
    // Set with failure or reset, read without the lock by the exchange deciding how to log a handler's failure.
    private volatile boolean broken;
    private boolean sendStalled;
    // Whether the stream holds one of the connection's open-file permits; guarded by the session lock.
    private boolean filePermit;

    Http2Stream(int id, Http2ServerConnection session, int sendWindow) {
        this.id = id;
        this.session = session;
        this.sendWindow = sendWindow;
    }

    int id() {
        return id;
    }

    void exchange(Exchange exchange, long expectedContentLength) {
        this.exchange = exchange;
        this.expectedContentLength = expectedContentLength;
    }

    Exchange exchange() {
        return exchange;
    }

    /** @param rate the minimum data rate of the request body, set under the lock before the stream receives content */
    void bodyRate(BodyDataRate rate) {
        this.bodyRate = rate;
    }

    // --- receiving (producer thread) -----------------------------------------------------------------------------

    /**
     * Sets the stream's receive window when the stream opens: the connection's advertised
     * SETTINGS_INITIAL_WINDOW_SIZE. Under the lock.
     *
     * @param window the initial window, in bytes
     */
    void initReceiveWindow(int window) {
        recvWindow = window;
        initialRecvWindow = window;
    }

    /** @return false if the DATA exceeds the stream's receive window (a flow-control error) */
    boolean consumeReceiveWindow(int bytes) {
        recvWindow -= bytes;
        return recvWindow >= 0;
    }

    /**
     * Credits consumed content back to the receive window, under the lock.
     *
     * @return the WINDOW_UPDATE increment to send now (once half the window was consumed), or 0
     */
    int creditReceiveWindow(int bytes) {
        if (remoteClosed || failure != null) {
            return 0; // the client sends nothing more on this stream: no update needed
        }
        unackedConsumed += bytes;
        if (unackedConsumed < initialRecvWindow / 2) {
            return 0;
        }
        int increment = unackedConsumed;
        unackedConsumed = 0;
        recvWindow += increment;
        return increment;
    }

    /**
     * @param length a DATA payload's length
     * @param bufferCapacity the capacity of the input buffer it was parsed from
     * @return whether the payload is to be copied rather than share the buffer
     */
    static boolean copies(int length, int bufferCapacity) {
        return length < bufferCapacity / SHARE_FRACTION;
    }

    /**
     * Queues request content; called by the producer under the lock.
     *
     * @param data the payload: a copy, or a slice of the input buffer that {@code shared} describes
     * @param shared how {@code data} shares the input buffer, held while the handler holds the chunk; null if
     *     {@code data} is a copy (or not pooled)
     * @param charged bytes of a copy charged to the server's content budget, refunded when the chunk is released
     * @return whether the handler is waiting for content and must be called back (outside the lock)
     */
    boolean onData(ByteBuffer data, Http2SharedInput shared, int charged, int flowControlledLength, boolean endStream) {
        countContent(data.remaining(), endStream);
        continuePending = false; // the client did not wait (it may not): a 100 now would only cost a frame
        if (data.hasRemaining()) {
            if (shared != null) {
                shared.hold();
            }
            content.add(new DataChunk(this, data, shared, charged, flowControlledLength));
        }
        if (endStream) {
            remoteClosed = true;
            noteClosedOnWire();
        }
        lastProgressNanos = System.nanoTime();
        return takeDemand();
    }

    /**
     * Counts request content against the declared content-length (RFC 9113 8.1.1), whether it is queued or, after the
     * response completed, discarded; under the lock.
     *
     * @throws Http2Exception a stream error: DATA after END_STREAM, or content that does not match content-length
     */
    void countContent(int length, boolean endStream) {
        if (remoteClosed) {
            throw Http2Exception.stream(id, ErrorCode.STREAM_CLOSED, "DATA after END_STREAM");
        }
        contentReceived += length;
        if (bodyRate != null) {
            bodyRate.onBytes(length);
        }
        if (expectedContentLength >= 0
                && (contentReceived > expectedContentLength
                        || (endStream && contentReceived != expectedContentLength))) {
            throw Http2Exception.stream(
                    id,
                    ErrorCode.PROTOCOL_ERROR,
                    "content-length " + expectedContentLength + " but " + contentReceived + " bytes of DATA");
        }
    }

    /** Trailers ended the content. */
    boolean onTrailers(HttpFields trailers) {
        remoteClosed = true;
        noteClosedOnWire();
        return takeDemand();
    }

    /** The stream was reset or the connection failed: content reads fail, pending writes fail. */
    boolean onFailure(Throwable cause) {
        if (failure == null) {
            failure = cause;
        }
        broken = true;
        return takeDemand();
    }

    /**
     * The handler waits for request content that the client stopped sending: its reads fail with {@code timeout} (a
     * 408 the exchange answers, if nothing was committed), while the stream stays open for that answer. Under the lock.
     *
     * @return whether the handler is waiting and must be called back (outside the lock)
     */
    boolean onContentTimeout(HttpException timeout) {
        if (failure == null) {
            failure = timeout;
        }
        return takeDemand();
    }

    /** @return whether the handler waits for request content that has not come; under the lock */
    boolean isWaitingForContent() {
        return demanding && !remoteClosed && failure == null;
    }

    /**
     * Under the lock: whether the handler reads a body that comes slower than the minimum rate (counting only the time
     * it waited for content), so that its reads must fail with {@link #bodyRateFailure()}.
     */
    boolean isBodyTooSlow() {
        return bodyRate != null && !remoteClosed && failure == null && !completed && bodyRate.isTooSlow();
    }

    /** @return the 408 of a body slower than the minimum rate */
    HttpException bodyRateFailure() {
        return bodyRate.failure();
    }

    /** Under the lock, when the stream opens: the request carries {@code Expect: 100-continue} and has content. */
    void expectContinue() {
        continuePending = true;
    }

    /** Under the lock: whether the stream's reads failed with a timeout (a late or too slow body, answered 408). */
    boolean isContentTimedOut() {
        return failure instanceof HttpException;
    }

    private boolean takeDemand() {
        if (demanding) {
            if (bodyRate != null) {
                bodyRate.onWaitOver();
            }
            demanding = false;
            return true;
        }
        return false;
    }

    boolean isRemoteClosed() {
        return remoteClosed;
    }

    // --- HttpStream: content ---------------------------------------------------------------------------------------

    @Override
    public Content.Chunk read() {
        session.lock().lock();
        try {
            Content.Chunk chunk = content.poll();
            if (chunk != null) {
                return chunk;
            }
            if (failure != null) {
                return Content.Chunk.failed(failure);
            }
            if (remoteClosed) {
                return Content.Chunk.EOF;
            }
            return null;
        } finally {
            session.lock().unlock();
        }
    }

    @Override
    public void demand() {
        boolean now;
        boolean sendContinue = false;
        session.lock().lock();
        try {
            now = !content.isEmpty() || failure != null || remoteClosed;
            if (!now) {
                if (bodyRate != null) {
                    bodyRate.onWaiting();
                }
                demanding = true;
                sendContinue = continuePending;
                continuePending = false;
            }
        } finally {
            session.lock().unlock();
        }
        if (now) {
            exchange.onContentAvailable();
        } else if (sendContinue) {
            // RFC 9110 10.1.1 and RFC 9113 8.1: a HEADERS frame with :status 100 and no END_STREAM, ahead of the
            // response (the flusher keeps a stream's entries in order). A final response sent without reading never
            // gets here, so the client learns from it alone that its body is not wanted. A head sent on another thread
            // since the check above may be queued first: the flusher then drops this 100 (it decides under its lock).
            session.send(new Http2Flusher.ResponseEntry(
                    this, HttpStatus.CONTINUE_100, new HttpFields(0), null, false, null, Callback.NOOP));
        }
    }

    /** A chunk was consumed: its memory goes back to the budget, its bytes reopen the windows. */
    void chunkReleased(int charged, int flowControlledLength) {
        if (charged > 0) {
            session.contentBudget().refund(charged);
        }
        if (flowControlledLength > 0) {
            session.onContentConsumed(this, flowControlledLength);
        }
    }

    @Override
    public boolean acquireFilePermit(Runnable onGranted) {
        return session.openFiles().acquire(this, onGranted);
    }

    @Override
    public void releaseFilePermit() {
        session.openFiles().release(this);
    }

    /** @return whether the stream holds an open-file permit; under the lock */
    boolean holdsFilePermit() {
        return filePermit;
    }

    /** @param held whether the stream holds an open-file permit; under the lock */
    void holdsFilePermit(boolean held) {
        filePermit = held;
    }

    // --- HttpStream: sending ---------------------------------------------------------------------------------------

    @Override
    public void send(
            ResponseHead head, ByteBuffer content, boolean last, Supplier<HttpFields> trailers, Callback callback) {
        send(head, content, false, last, trailers, callback);
    }

    /** The flusher copies the mapping into its frames under a guard: a file truncated meanwhile resets this stream. */
    @Override
    public void sendFileMapping(
            ResponseHead head, ByteBuffer mapped, boolean last, Supplier<HttpFields> trailers, Callback callback) {
        send(head, mapped, true, last, trailers, callback);
    }

    private void send(
            ResponseHead head,
            ByteBuffer content,
            boolean fileMapping,
            boolean last,
            Supplier<HttpFields> trailers,
            Callback callback) {
        if (head != null) {
            // The HttpStream contract: refuse an unencodable head here, with nothing queued, so that the exchange can
            // still answer 500 (the flusher would otherwise only find out when it encodes, and reset the stream).
            FrameGenerator.checkSendable(head.fields());
        }
        HttpFields trailerFields = null;
        if (last && trailers != null) {
            HttpFields supplied = trailers.get();
            if (supplied != null && !supplied.isEmpty()) {
                try {
                    FrameGenerator.checkSendable(supplied);
                } catch (IllegalArgumentException x) {
                    callback.failed(x); // committed already: the exchange fails and the stream is reset
                    return;
                }
                trailerFields = supplied;
            }
        }
        if (head != null && continuePending) {
            // The response commits before any read: a 100 after it would be a second head (and malformed).
            session.lock().lock();
            try {
                continuePending = false;
            } finally {
                session.lock().unlock();
            }
        }
        lastProgressNanos = System.nanoTime();
        session.send(new Http2Flusher.ResponseEntry(
                this,
                head == null ? 0 : head.status(),
                head == null ? null : withContentLength(head),
                content,
                fileMapping,
                last,
                trailerFields,
                callback));
    }

    private static HttpFields withContentLength(ResponseHead head) {
        HttpFields fields = head.fields();
        if (head.contentLength() >= 0 && !fields.contains(dev.quarry.http.HttpHeader.CONTENT_LENGTH)) {
            fields.put(dev.quarry.http.HttpHeader.CONTENT_LENGTH, Long.toString(head.contentLength()));
        }
        return fields;
    }

    int sendWindow() {
        return sendWindow;
    }

    void consumeSendWindow(int bytes) {
        sendStalled = false;
        sendWindow -= bytes;
        lastProgressNanos = System.nanoTime();
    }

    /**
     * Changes the send window (WINDOW_UPDATE or a SETTINGS_INITIAL_WINDOW_SIZE change), under the lock.
     *
     * @return false if the window would exceed 2^31-1 (a flow-control error)
     */
    boolean updateSendWindow(int delta) {
        long next = (long) sendWindow + delta;
        if (next > Integer.MAX_VALUE) {
            return false;
        }
        sendWindow = (int) next;
        return true;
    }

    /** Under the lock: the flusher generated the final response head. */
    void onFinalHeadSent() {
        finalHeadSent = true;
    }

    /** @return whether the final response head was generated; under the lock */
    boolean isFinalHeadSent() {
        return finalHeadSent;
    }

    void onEndStreamSent() {
        endStreamSent = true;
        noteClosedOnWire();
    }

    /**
     * Under the lock, when either side ended the stream: once both did, the stream no longer counts toward the
     * concurrency limit the client sees (SETTINGS_MAX_CONCURRENT_STREAMS), even while its handler is still finishing
     * (a blocking handler's thread, between its last write and its return) and the stream is still in the table.
     */
    private void noteClosedOnWire() {
        if (remoteClosed && endStreamSent && !closedOnWire) {
            closedOnWire = true;
            if (session != null) { // a flusher test's stream has no session
                session.onStreamClosedOnWire(this);
            }
        }
    }

    /** @return whether the table counted this stream among the closed ones it still holds; under the lock */
    boolean countedClosed() {
        return countedClosed;
    }

    /** @param counted whether the table counts this stream among the closed ones it still holds; under the lock */
    void countedClosed(boolean counted) {
        countedClosed = counted;
    }

    /** @return whether the connection's stream table holds this stream; under the lock */
    boolean inTable() {
        return inTable;
    }

    /** @param held whether the connection's stream table holds this stream; by the table, under the lock */
    void inTable(boolean held) {
        inTable = held;
    }

    boolean isEndStreamSent() {
        return endStreamSent;
    }

    /** Under the lock: the flusher found the send window closed with content to send. */
    void sendStalled(boolean stalled) {
        sendStalled = stalled;
    }

    /**
     * Under the lock: whether the stream is waiting on the peer — to open its window, to send request content the
     * handler asked for, or to end a request whose response is complete. Only such a stream can be idle: a handler that
     * is simply slow (long polling) is not the client's fault and is never reset for it.
     */
    boolean isWaitingForPeer() {
        return sendStalled || (demanding && !remoteClosed) || (completed && !remoteClosed);
    }

    long lastProgressNanos() {
        return lastProgressNanos;
    }

    boolean isCompleted() {
        return completed;
    }

    /** The response was sent and nobody will read content any more: later DATA is discarded. Under the lock. */
    void markCompleted() {
        completed = true;
    }

    /**
     * Marks the stream reset (by either side), under the lock: a stream is reset at most once, and never in answer to
     * the peer's own RST_STREAM (RFC 9113 5.4.2).
     *
     * @return true if it was not reset before
     */
    boolean markReset() {
        if (reset) {
            return false;
        }
        reset = true;
        broken = true;
        return true;
    }

    /** The connection failed under this stream: its exchange cannot complete, through no fault of its handler. */
    void markBroken() {
        broken = true;
    }

    @Override
    public boolean isBroken() {
        return broken;
    }

    @Override
    public void succeeded() {
        session.onStreamCompleted(this);
    }

    @Override
    public void failed(Throwable failure) {
        completed = true;
        session.resetStream(this, ErrorCode.INTERNAL_ERROR, failure);
    }

    /** Releases queued content that will never be read. Under the lock. */
    void releaseContent() {
        Content.Chunk chunk;
        while ((chunk = content.poll()) != null) {
            chunk.release();
        }
    }

    @Override
    public String toString() {
        return "Http2Stream{" + id + (remoteClosed ? ", remote closed" : "") + (endStreamSent ? ", local closed" : "")
                + (failure != null ? ", failed" : "") + ", sendWindow=" + sendWindow + "}";
    }

    /**
     * Content of one DATA frame, a copy or a slice of a shared input buffer: gives its memory back and reopens the
     * windows when released (once).
     */
    private static final class DataChunk extends Content.Chunk {
        private final Http2Stream stream;
        private final int charged;
        private final int flowControlledLength;
        private Http2SharedInput shared;
        private boolean released;

        DataChunk(Http2Stream stream, ByteBuffer data, Http2SharedInput shared, int charged, int flowControlledLength) {
            super(data, false);
            this.stream = stream;
            this.shared = shared;
            this.charged = charged;
            this.flowControlledLength = flowControlledLength;
        }

        @Override
        public void release() {
            if (released) {
                return;
            }
            released = true;
            Http2SharedInput current = shared;
            shared = null;
            if (current != null) {
                current.release();
            }
            stream.chunkReleased(charged, flowControlledLength);
        }
    }
}
