package dev.quarry.client;

import dev.quarry.core.InvocationType;
import dev.quarry.core.buffer.RetainableByteBuffer;
import dev.quarry.core.pool.Pool;
import dev.quarry.core.timer.Timeout;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.h2.FrameListener;
import dev.quarry.http.h2.FrameParser;
import dev.quarry.http.h2.HeaderBlock;
import dev.quarry.http.h2.Http2Exception;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.hpack.HpackDecoder;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.http.hpack.HpackLimits;
import dev.quarry.io.AbstractConnection;
import dev.quarry.io.EndPoint;
import java.io.EOFException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.SocketTimeoutException;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * One HTTP/2 connection of a destination's pool (RFC 9113): many exchanges at once, one stream each, up to the
 * server's SETTINGS_MAX_CONCURRENT_STREAMS. Its pool entry is held once per exchange; an exchange the pool hands over
 * beyond the server's limit (the pool's limit is the same for every connection of the destination) waits here for one
 * of this connection's streams to end, so that no request ever fails for want of a stream.
 *
 * <p><b>Reading.</b> The server's frames are parsed on the selector thread, which never blocks (it only takes the
 * connection's short {@link Http2Lock}): response heads are handed to the exchange (whose future completes on the
 * client's executor) and DATA payloads are copied into the stream's queue ({@link Http2Stream}). The connection window
 * is credited back at once (the streams' windows bound what is buffered); a stream's window only as its reader
 * consumes. One thread parses at a time, but not always the selector's (over TLS a wake-up may come from a TLS
 * thread, and the first reads run on the executor): a read wake-up that comes while another thread still parses makes
 * that thread read again, it is never dropped.
 *
 * <p><b>Writing.</b> Each request is written by a virtual thread of the client's executor, which waits there for
 * send-window credit (the server's flow control) and for each DATA frame to be written before reading more of a
 * streamed body. Frames from every thread go through the {@link Http2Flusher}.
 *
 * <p><b>Failures.</b> RST_STREAM fails its exchange only; a REFUSED_STREAM, or a stream above a GOAWAY's last stream
 * id, was not processed by the server and is retried on a new connection (up to 8 times). A response received in full
 * stands whatever becomes of its request's sending afterwards: the connection closing, or a pending write of its last
 * frame failed by that close. A frame the server should not have sent fails the connection with GOAWAY and every
 * exchange on it with a {@link BadResponseException}.
 *
 * <p>Thread-safety: state is guarded by {@link #lock}; frame callbacks run on the parsing (selector) thread.
 */
final class Http2Connection extends AbstractConnection implements ClientConnection, FrameListener {
    private static final System.Logger LOG = System.getLogger(Http2Connection.class.getName());
    /** What each stream may receive before the reader consumed it: the per-stream memory bound. */
    static final int STREAM_WINDOW = 512 * 1024;
    /** The connection's receive window; credited back as DATA arrives, since the stream windows bound memory. */
    static final int CONNECTION_WINDOW = 16 * 1024 * 1024;

    private static final int IO_BUSY = 1;
    private static final int IO_CLOSED = 2;
    /** A fill interest fired while another thread was still parsing: that thread reads again before it leaves. */
    private static final int IO_PENDING_FILL = 4;

    private final Destination destination;
    private final HttpClient client;
    private final Pool.Entry<ClientConnection> entry;
    private final long createdNanos = System.nanoTime();
    private volatile Timeout expiry;
    private final Http2Lock lock = new Http2Lock();
    private final HpackEncoder encoder = new HpackEncoder();
    private final FrameGenerator generator = new FrameGenerator(encoder);
    private final FrameParser parser;
    private final Http2Flusher flusher;
    private final Http2RequestWriter writer;
    private final Http2ResponseReader reader;
    private final RetainableByteBuffer buffer;
    private final AtomicInteger io = new AtomicInteger();

    // Guarded by lock.
    private final Map<Integer, Http2Stream> streams = new HashMap<>();
    private final List<Http2Stream> live = new ArrayList<>();
    private final ArrayDeque<Exchange> waiting = new ArrayDeque<>();
    private final Http2SendWindows sendWindows = new Http2SendWindows();
    private int nextStreamId = 1;
    private int lastStreamId;
    private int peerMaxStreams = Integer.MAX_VALUE;
    /**
     * Streams held back below the server's limit after it refused one (REFUSED_STREAM): it counted a stream we saw
     * end as still open. One less stream is started per refusal until a stream ends; never more than are live.
     */
    private int holdBack;

    private int connectionUnacknowledged;
    private long streamsOpened;
    private boolean opened;
    private boolean settingsReceived;
    private boolean upgraded;
    private volatile boolean goAway;
    private volatile Throwable failure;

    Http2Connection(EndPoint endPoint, Destination destination, HttpClient client, Pool.Entry<ClientConnection> entry) {
        super(endPoint);
        this.destination = destination;
        this.client = client;
        this.entry = entry;
        int maxHeaders = client.maxResponseHeaderSize();
        this.parser = new FrameParser(
                FrameParser.Side.CLIENT,
                this,
                new HpackDecoder(
                        HpackDecoder.DEFAULT_MAX_TABLE_SIZE, HpackLimits.DEFAULT.withMaxHeaderListSize(maxHeaders)),
                new FrameParser.Limits(
                        Http2Settings.DEFAULT_MAX_FRAME_SIZE,
                        Math.max(FrameParser.Limits.DEFAULT.maxHeaderBlockSize(), 2 * maxHeaders),
                        FrameParser.Limits.DEFAULT.maxContinuationFrames()));
        // The parser needs a whole frame in the buffer: at least our SETTINGS_MAX_FRAME_SIZE plus its header.
        int size = Math.max(client.networkBufferSize(), Http2Settings.DEFAULT_MAX_FRAME_SIZE + 9);
        this.buffer = client.bufferPool().acquire(size, true);
        buffer.byteBuffer().flip(); // drain mode: nothing to parse yet
        this.flusher = new Http2Flusher(lock, endPoint, size);
        this.writer = new Http2RequestWriter(this, client, flusher, generator);
        this.reader = new Http2ResponseReader(this, client, generator);
        endPoint.setIdleTimeout(client.idleTimeoutMillis());
    }

    @Override
    public String protocol() {
        return "h2";
    }

    @Override
    public Pool.Entry<ClientConnection> entry() {
        return entry;
    }

    @Override
    public long createdNanos() {
        return createdNanos;
    }

    @Override
    public void expiry(Timeout timeout) {
        this.expiry = timeout;
    }

    @Override
    public Timeout expiry() {
        return expiry;
    }

    @Override
    protected InvocationType readInvocationType() {
        return InvocationType.NON_BLOCKING; // parsing copies, queues and wakes; it never runs application code
    }

    /** Sends the preface, our SETTINGS and the connection window; the pool gets the connection on the server's. */
    @Override
    public void onOpen() {
        // The preface is queued before the first fill interest: over TLS the server's SETTINGS may already be
        // decrypted, and their ACK, queued by the parsing thread, must not go out before the preface (RFC 9113 3.4).
        Http2Settings settings = localSettings(client);
        flusher.offer(new Http2Flusher.Frame() {
            @Override
            void generate(ByteBuffer out) {
                if (out.remaining() < 24 + 9 + 18 + 9 + 4) {
                    throw new BufferOverflowException();
                }
                FrameGenerator.preface(out);
                generator.settings(out, settings);
                generator.windowUpdate(out, 0, CONNECTION_WINDOW - Http2Settings.DEFAULT_INITIAL_WINDOW_SIZE);
            }
        });
        if (!upgraded) {
            super.onOpen(); // an upgraded connection parses what came with the 101 first, then asks to fill
        }
    }

    /** Our SETTINGS: no push, the stream window, the header list size. */
    private static Http2Settings localSettings(HttpClient client) {
        return new Http2Settings()
                .set(Http2Settings.ENABLE_PUSH, 0)
                .set(Http2Settings.INITIAL_WINDOW_SIZE, STREAM_WINDOW)
                .set(Http2Settings.MAX_HEADER_LIST_SIZE, client.maxResponseHeaderSize());
    }

    /**
     * @return the {@code HTTP2-Settings} value of an h2c upgrade offer: our SETTINGS payload, base64url without
     *     padding (RFC 7540 3.2.1)
     */
    static String upgradeSettings(HttpClient client) {
        ByteBuffer frame = ByteBuffer.allocate(64);
        new FrameGenerator(new HpackEncoder()).settings(frame, localSettings(client));
        frame.flip().position(9); // the payload, without the frame header
        byte[] payload = new byte[frame.remaining()];
        frame.get(payload);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(payload);
    }

    /**
     * Takes over the exchange of an HTTP/1.1 connection that the server switched to HTTP/2: it is stream 1, its
     * request sent (RFC 7540 3.2), and {@code leftover} (the bytes after the 101) holds the server's first frames.
     */
    void adoptUpgraded(Exchange exchange, ByteBuffer leftover) {
        Http2Stream upgradedStream;
        lock.lock();
        try {
            upgraded = true;
            opened = true; // the socket was counted open by the HTTP/1.1 connection
            upgradedStream = newStream(exchange);
            Http2Stream stream = upgradedStream;
            stream.id = 1;
            stream.headersSent = true;
            stream.requestEnded = true;
            streams.put(1, stream);
            nextStreamId = 3;
            lastStreamId = 1;
            streamsOpened = 1;
        } finally {
            lock.unlock();
        }
        exchange.connection(this);
        startIdleTimeout(upgradedStream);
        ByteBuffer bytes = buffer.byteBuffer();
        bytes.compact();
        bytes.put(leftover);
        bytes.flip();
    }

    @Override
    public boolean isUsable() {
        EndPoint endPoint = endPoint();
        return endPoint.isOpen() && !goAway && failure == null && nextStreamId > 0;
    }

    // --- exchanges ---------------------------------------------------------------------------------------------------

    @Override
    public void assign(Exchange exchange, boolean reused) {
        Http2Stream stream = null;
        boolean refused = false;
        lock.lock();
        try {
            if (!isUsable()) {
                refused = true;
            } else if (live.size() >= peerMaxStreams - holdBack) {
                waiting.add(exchange);
            } else {
                stream = newStream(exchange);
            }
        } finally {
            lock.unlock();
        }
        exchange.connection(this);
        if (refused) {
            unprocessed(exchange, new IOException("the HTTP/2 connection to " + destination.origin() + " closed"));
        } else if (stream != null) {
            start(stream);
        }
    }

    private Http2Stream newStream(Exchange exchange) {
        Http2Stream stream =
                new Http2Stream(this, exchange, sendWindows.initialStreamWindow(), STREAM_WINDOW, client.timer());
        live.add(stream);
        return stream;
    }

    private void start(Http2Stream stream) {
        Throwable aborted = stream.exchange.abortCause();
        if (aborted != null) {
            failStream(stream, aborted, null, false);
            return;
        }
        if (!startIdleTimeout(stream)) {
            return;
        }
        client.executor().execute(() -> writer.write(stream));
    }

    /** Starts the stream's own idle timeout, if its request has one. @return false if the stream failed instead */
    private boolean startIdleTimeout(Http2Stream stream) {
        if (stream.idleTimeout == null) {
            return true;
        }
        try {
            stream.idleTimeout.start();
        } catch (IllegalStateException x) {
            failStream(stream, new IOException("the client is closed", x), ErrorCode.CANCEL, false);
            return false;
        }
        // It may have closed between its creation and the start: a close stops only a started timeout.
        boolean closed;
        lock.lock();
        try {
            closed = stream.closed;
        } finally {
            lock.unlock();
        }
        if (closed) {
            stream.idleTimeout.stop();
        }
        return !closed;
    }

    /**
     * The stream's own idle timeout expired (on the timer's executor, must not block): the stream is reset with
     * CANCEL and its exchange fails; the connection and its other streams go on.
     */
    void streamIdleExpired(Http2Stream stream) {
        boolean requestSent;
        boolean responseStarted;
        lock.lock();
        try {
            if (stream.closed) {
                return;
            }
            requestSent = stream.requestEnded;
            responseStarted = stream.responseStarted;
        } finally {
            lock.unlock();
        }
        SocketTimeoutException cause = IdleTimeoutFailure.of(
                stream.exchange.request, stream.exchange.request.idleTimeoutMillis(), requestSent, responseStarted);
        LOG.log(Level.DEBUG, "resetting stream {0}: {1}", stream.id, cause.getMessage());
        failStream(stream, cause, ErrorCode.CANCEL, false);
    }

    /** Starts the exchanges that wait for a stream, as far as the server's limit allows. */
    private void startWaiting() {
        startWaiting(false);
    }

    /** @param streamEnded whether a stream just ended, which ends one stream of {@link #holdBack} */
    private void startWaiting(boolean streamEnded) {
        List<Http2Stream> started = new ArrayList<>();
        List<Exchange> refused = new ArrayList<>();
        lock.lock();
        try {
            if (streamEnded && holdBack > 0) {
                holdBack--;
            }
            if (!isUsable()) {
                refused.addAll(waiting);
                waiting.clear();
            }
            while (!waiting.isEmpty() && live.size() < peerMaxStreams - holdBack) {
                started.add(newStream(waiting.poll()));
            }
        } finally {
            lock.unlock();
        }
        for (Http2Stream stream : started) {
            start(stream);
        }
        for (Exchange exchange : refused) {
            unprocessed(exchange, new IOException("the HTTP/2 connection to " + destination.origin() + " closed"));
        }
    }

    /** An exchange the server never saw: retried on another connection (a bounded number of times), else failed. */
    private void unprocessed(Exchange exchange, Throwable cause) {
        exchange.connection(null);
        if (exchange.retryableUnprocessed()) {
            LOG.log(Level.DEBUG, "retrying {0} on a new connection after: {1}", exchange, cause);
            destination.retry(exchange);
        } else {
            exchange.ended();
            exchange.fail(cause);
        }
        destination.streamEnded(this, false);
    }

    @Override
    public void abort(Exchange exchange, Throwable cause) {
        Http2Stream stream = null;
        boolean wasWaiting;
        lock.lock();
        try {
            for (Http2Stream s : live) {
                if (s.exchange == exchange) {
                    stream = s;
                    break;
                }
            }
            wasWaiting = stream == null && waiting.remove(exchange);
        } finally {
            lock.unlock();
        }
        if (stream != null) {
            abortStream(stream, cause);
        } else if (wasWaiting) {
            exchange.connection(null);
            exchange.ended();
            exchange.fail(cause);
            destination.streamEnded(this, isUsable());
        }
    }

    /** The reader gave up (or the exchange was aborted): reset the stream if it still runs, drop what it buffered. */
    void abortStream(Http2Stream stream, Throwable cause) {
        List<Http2Stream.Chunk> dropped = null;
        lock.lock();
        try {
            if (stream.closed) {
                if (stream.failure == null) {
                    stream.failure = cause;
                }
                dropped = stream.drain();
            }
        } finally {
            lock.unlock();
        }
        if (dropped != null) {
            release(dropped);
            return;
        }
        failStream(stream, cause, ErrorCode.CANCEL, false);
    }

    /**
     * Fails a stream once: drops its buffered content, wakes its writer, resets it on the wire (if it was opened and
     * {@code reset} is given), then retries or fails its exchange, and ends its hold on the pool entry.
     */
    void failStream(Http2Stream stream, Throwable cause, ErrorCode reset, boolean unprocessed) {
        List<Http2Stream.Chunk> dropped;
        Thread writer;
        int id;
        boolean responseStarted;
        lock.lock();
        try {
            if (stream.closed) {
                return;
            }
            closeLocked(stream);
            stream.failure = cause;
            dropped = stream.drain();
            writer = Http2SendWindows.takeWaiter(stream);
            id = stream.id;
            responseStarted = stream.responseStarted;
        } finally {
            lock.unlock();
        }
        release(dropped);
        if (writer != null) {
            LockSupport.unpark(writer);
        }
        stream.continued(false); // a writer waiting for 100 Continue stops
        if (reset != null && id != 0) {
            offerControl(out -> generator.rstStream(out, id, reset));
        }
        Exchange exchange = stream.exchange;
        exchange.connection(null);
        if (unprocessed && !responseStarted && exchange.retryableUnprocessed()) {
            LOG.log(Level.DEBUG, "retrying {0} on a new connection after: {1}", exchange, cause);
            destination.retry(exchange);
        } else {
            exchange.ended();
            if (!exchange.fail(cause)) {
                stream.content.fail(cause);
            }
        }
        startWaiting(true);
        destination.streamEnded(this, isUsable());
    }

    /**
     * Sending the request failed: one of its frames could not be written (the connection closed under it), or its
     * body failed. The stream fails, unless the server had sent the whole response already: that response stands (RFC
     * 9113 8.1, a server may answer before it read the whole request) and stays readable. This cannot be left to
     * {@link #onClose}: the endpoint fails a write still pending (written to the socket, its completion not run yet)
     * before it tells the connection that it closed, and nginx closes right after the last response it owes after
     * GOAWAY, so the failed write of a request's HEADERS frame often comes with that request's whole response parsed.
     *
     * @param reset how to reset the stream if it fails, or null to send nothing
     * @param unprocessed whether the server never saw the request (its HEADERS frame was not written): it may be
     *     retried on another connection
     */
    void sendingFailed(Http2Stream stream, Throwable cause, ErrorCode reset, boolean unprocessed) {
        if (answeredInFull(stream)) {
            LOG.log(Level.DEBUG, "{0}: its response stands, received in full before: {1}", stream, cause);
            if (reset != null) {
                int id = stream.id; // the request was cut short: the server waits for no more of it (RFC 9113 8.1)
                offerControl(out -> generator.rstStream(out, id, ErrorCode.CANCEL));
            }
            return;
        }
        failStream(stream, cause, reset, unprocessed);
    }

    private void endStreamsAnsweredInFull() {
        List<Http2Stream> streams;
        lock.lock();
        try {
            streams = new ArrayList<>(live);
        } finally {
            lock.unlock();
        }
        for (Http2Stream stream : streams) {
            answeredInFull(stream);
        }
    }

    /**
     * A stream whose whole response arrived ends normally, its content left for the reader, even though its request
     * was not marked sent (the writer's thread had not run since its last frame went out, or the server answered
     * before reading the whole body: RFC 9113 8.1) and will not be: the connection closed, or sending it failed.
     * nginx closes a connection right after the last response it owes once it sent GOAWAY.
     *
     * @return whether the stream ended normally now; false if it had ended already, or its response had not
     */
    private boolean answeredInFull(Http2Stream stream) {
        Thread writer;
        lock.lock();
        try {
            if (stream.closed || !stream.remoteEnded || stream.failure != null) {
                return false;
            }
            closeLocked(stream);
            writer = Http2SendWindows.takeWaiter(stream);
        } finally {
            lock.unlock();
        }
        if (writer != null) {
            LockSupport.unpark(writer); // it finds the stream closed and stops sending
        }
        streamDone(stream);
        return true;
    }

    /** Under the lock: the stream no longer counts against the server's limit. */
    void closeLocked(Http2Stream stream) {
        stream.closed = true;
        if (stream.idleTimeout != null) {
            stream.idleTimeout.stop(); // lock-free: cancels its one scheduled check
        }
        live.remove(stream);
        if (stream.id != 0) {
            streams.remove(stream.id);
        }
    }

    /** Both directions of a stream ended normally (the reader may still be reading what was buffered). */
    void streamDone(Http2Stream stream) {
        Exchange exchange = stream.exchange;
        exchange.connection(null);
        exchange.ended();
        startWaiting(true);
        destination.streamEnded(this, isUsable());
    }

    private void release(List<Http2Stream.Chunk> chunks) {
        for (Http2Stream.Chunk chunk : chunks) {
            chunk.buffer().release();
        }
    }

    // --- writing requests (the writer, Http2RequestWriter, runs on the client's executor) ----------------------------

    /**
     * Under the lock (a HEADERS frame being generated): gives the stream its id, in the order HEADERS frames are
     * written (RFC 9113 5.1.1).
     *
     * @return false if the connection can take no new stream
     */
    boolean openStream(Http2Stream stream) {
        if (stream.id != 0) {
            return true;
        }
        if (!isUsable()) {
            return false;
        }
        stream.id = nextStreamId;
        nextStreamId += 2;
        lastStreamId = stream.id;
        streams.put(stream.id, stream);
        streamsOpened++;
        return true;
    }

    /**
     * Takes send-window credit for up to {@code want} bytes from the stream's and the connection's windows, or, when
     * either is closed, registers the calling writer to be unparked when a WINDOW_UPDATE or SETTINGS opens them.
     *
     * @return the bytes granted, or 0 if the caller must park and ask again
     * @throws Http2RequestWriter.StreamGone if the stream failed, or the server already sent its whole response
     */
    int takeCredit(Http2Stream stream, int want) throws Http2RequestWriter.StreamGone {
        lock.lock();
        try {
            if (stream.failure != null || stream.closed || stream.remoteEnded) {
                // Failed; or the server answered before reading the whole request: stop sending (RFC 9113 8.1).
                throw new Http2RequestWriter.StreamGone();
            }
            return sendWindows.take(stream, want);
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: credit taken for a DATA frame that was never sent goes back to the connection's window. */
    void returnCredit(int bytes) {
        sendWindows.giveBack(bytes);
    }

    /** @return the most payload of one DATA frame: the server's SETTINGS_MAX_FRAME_SIZE, and what the flusher holds */
    int maxPayload() {
        lock.lock();
        try {
            return Math.min(generator.maxFrameSize(), flusher.maxDataPayload());
        } finally {
            lock.unlock();
        }
    }

    /**
     * @return the id of a stream whose response ended while its request was still being sent, which the writer then
     *     resets; 0 if the stream is closed or its response still runs
     */
    int answeredEarly(Http2Stream stream) {
        lock.lock();
        try {
            return stream.closed || !stream.remoteEnded ? 0 : stream.id;
        } finally {
            lock.unlock();
        }
    }

    /** The request's last frame was written. */
    void requestEnded(Http2Stream stream) {
        boolean done = false;
        lock.lock();
        try {
            stream.requestEnded = true;
            if (stream.remoteEnded && !stream.closed) {
                closeLocked(stream);
                done = true;
            }
        } finally {
            lock.unlock();
        }
        if (done) {
            streamDone(stream);
        }
    }

    void offerControl(Consumer<ByteBuffer> frame) {
        flusher.offer(new Http2Flusher.Frame() {
            @Override
            void generate(ByteBuffer out) {
                frame.accept(out);
            }
        });
    }

    // --- reading responses (on the selector thread) ------------------------------------------------------------------

    @Override
    protected void onFillable() {
        if (!enterIo()) {
            return;
        }
        do {
            read();
        } while (leaveIo());
    }

    /** Parses what is buffered and reads until the endpoint has nothing more, then asks to be called back. */
    private void read() {
        try {
            ByteBuffer bytes = buffer.byteBuffer();
            while (true) {
                while (parser.parseFrame(bytes)) {
                    // each frame went to its callback
                }
                if (parser.isClosed()) {
                    return; // a connection error: GOAWAY was sent and the connection closes
                }
                bytes.compact();
                int n;
                try {
                    n = endPoint().fill(bytes);
                } finally {
                    bytes.flip();
                }
                if (n == 0) {
                    // The callback may run on another thread before this one has left onFillable: over TLS, with
                    // bytes already buffered, the wake-up comes at once. enterIo() keeps it for this thread then.
                    fillInterested();
                    return;
                }
                if (n < 0) {
                    endPoint()
                            .close(new EOFException(
                                    "the server closed the HTTP/2 connection to " + destination.origin()));
                    return;
                }
            }
        } catch (IOException x) {
            endPoint().close(x);
        } catch (Throwable x) {
            LOG.log(Level.WARNING, "reading failed on " + this, x);
            endPoint().close(x);
        }
    }

    /**
     * @return true if the caller owns the input now; false if the connection is closed, or if another thread owns
     *     it: that thread then reads again when it leaves, so that a fill interest firing before it left is never
     *     lost (dropping it stopped the connection's reading for good)
     */
    private boolean enterIo() {
        while (true) {
            int state = io.get();
            if ((state & IO_CLOSED) != 0) {
                return false;
            }
            if ((state & IO_BUSY) != 0) {
                if (io.compareAndSet(state, state | IO_PENDING_FILL)) {
                    return false;
                }
            } else if (io.compareAndSet(state, IO_BUSY)) {
                return true;
            }
        }
    }

    /** @return true if a fill interest fired meanwhile: the caller, still owning the input, reads again */
    private boolean leaveIo() {
        while (true) {
            int state = io.get();
            if ((state & IO_CLOSED) != 0) {
                // Closed while we parsed: the release of the buffer was left to us.
                io.set(IO_CLOSED);
                buffer.release();
                return false;
            }
            if ((state & IO_PENDING_FILL) != 0) {
                if (io.compareAndSet(state, IO_BUSY)) {
                    return true;
                }
            } else if (io.compareAndSet(state, 0)) {
                return false;
            }
        }
    }

    /** The reader consumed its chunk: hand it the next one, and credit the server's window for what it read. */
    void demand(Http2Stream stream) {
        reader.demand(stream);
    }

    @Override
    public void onData(int streamId, ByteBuffer data, boolean endStream, int flowControlledLength) {
        reader.onData(streamId, data, endStream, flowControlledLength);
    }

    /** Wakes the request writer waiting for credit, so that it sees its stream ended. */
    void wakeWriter(Http2Stream stream) {
        Thread writer;
        int withheld = 0;
        lock.lock();
        try {
            writer = Http2SendWindows.takeWaiter(stream);
            if (stream.bodyWithheld && stream.remoteEnded && !stream.requestEnded && !stream.closed) {
                stream.bodyWithheld = false;
                withheld = stream.id;
            }
        } finally {
            lock.unlock();
        }
        if (writer != null) {
            LockSupport.unpark(writer);
        }
        if (withheld != 0) {
            endWithheld(stream, withheld);
        }
    }

    /**
     * The writer withholds the body (a final response came before {@code 100 Continue}): the request ends at once if
     * the response already did, else when it does ({@link #wakeWriter}).
     */
    void withholdBody(Http2Stream stream) {
        int id = 0;
        lock.lock();
        try {
            if (stream.closed || stream.requestEnded) {
                return;
            }
            if (stream.remoteEnded) {
                id = stream.id;
            } else {
                stream.bodyWithheld = true;
            }
        } finally {
            lock.unlock();
        }
        if (id != 0) {
            endWithheld(stream, id);
        }
    }

    /**
     * Ends a request whose body was withheld, once its response ended: RST_STREAM CANCEL (RFC 9113 8.1: the response
     * stands), as when the server answers before the whole body was sent; the connection stays usable.
     */
    private void endWithheld(Http2Stream stream, int id) {
        offerControl(out -> generator.rstStream(out, id, ErrorCode.CANCEL));
        requestEnded(stream);
    }

    @Override
    public void onHeaders(int streamId, HeaderBlock block, boolean endStream) {
        reader.onHeaders(streamId, block, endStream);
    }

    // --- for the response reader, under the lock -----------------------------------------------------------------

    Http2Lock lock() {
        return lock;
    }

    /** Under the lock: the open stream with that id, or null. */
    Http2Stream streamLocked(int id) {
        return streams.get(id);
    }

    /** Under the lock: the highest stream id the client opened. */
    int lastStreamIdLocked() {
        return lastStreamId;
    }

    /**
     * Under the lock: counts DATA received on the connection (any stream, even one reset meanwhile).
     *
     * @return the WINDOW_UPDATE increment to send for the connection now, or 0
     */
    int creditConnectionLocked(int flowControlledLength) {
        connectionUnacknowledged += flowControlledLength;
        if (connectionUnacknowledged < CONNECTION_WINDOW / 2) {
            return 0;
        }
        int credit = connectionUnacknowledged;
        connectionUnacknowledged = 0;
        return credit;
    }

    @Override
    public void onRstStream(int streamId, ErrorCode error) {
        Http2Stream stream;
        boolean finished = false;
        lock.lock();
        try {
            stream = streams.get(streamId);
            if (stream != null && error == ErrorCode.NO_ERROR && stream.remoteEnded && !stream.closed) {
                // The server has the whole response out and wants no more of the request (RFC 9113 8.1).
                closeLocked(stream);
                finished = true;
            }
        } finally {
            lock.unlock();
        }
        if (stream == null) {
            return;
        }
        if (finished) {
            wakeWriter(stream);
            streamDone(stream);
            return;
        }
        boolean refused = error == ErrorCode.REFUSED_STREAM;
        IOException cause = new IOException("the server reset the stream of " + stream.exchange.request + " (" + error
                + (refused ? ", not processed" : "") + ")");
        LOG.log(Level.DEBUG, "{0} on {1}", cause.getMessage(), this);
        if (refused && waitAfterRefusal(stream, cause)) {
            return;
        }
        failStream(stream, cause, null, refused);
    }

    /**
     * A stream the server refused goes back to wait on this connection, still holding its pool entry, until another
     * of its streams ends: retrying at once, elsewhere or here, would hit the same full count.
     *
     * @return false if it cannot wait here (nothing else runs on the connection, or it was refused too often)
     */
    private boolean waitAfterRefusal(Http2Stream stream, IOException cause) {
        List<Http2Stream.Chunk> dropped;
        Thread writer;
        lock.lock();
        try {
            if (stream.closed || stream.responseStarted || live.size() <= 1 || !isUsable()) {
                return false;
            }
            if (!stream.exchange.refusedAgain()) {
                return false;
            }
            closeLocked(stream);
            stream.failure = cause;
            dropped = stream.drain();
            writer = Http2SendWindows.takeWaiter(stream);
            holdBack = Math.min(holdBack + 1, live.size());
            waiting.addFirst(stream.exchange);
        } finally {
            lock.unlock();
        }
        release(dropped);
        if (writer != null) {
            LockSupport.unpark(writer);
        }
        return true;
    }

    @Override
    public void onSettings(Http2Settings settings) {
        boolean first;
        List<Thread> wake;
        int maxStreams;
        lock.lock();
        try {
            OptionalLong value = settings.get(Http2Settings.MAX_CONCURRENT_STREAMS);
            if (value.isPresent()) {
                peerMaxStreams = (int) Math.min(Integer.MAX_VALUE, value.getAsLong());
            }
            value = settings.get(Http2Settings.INITIAL_WINDOW_SIZE);
            if (value.isPresent()) {
                sendWindows.initialStreamWindow((int) value.getAsLong(), live);
            }
            value = settings.get(Http2Settings.MAX_FRAME_SIZE);
            if (value.isPresent()) {
                generator.setMaxFrameSize((int) value.getAsLong());
            }
            value = settings.get(Http2Settings.HEADER_TABLE_SIZE);
            if (value.isPresent()) {
                encoder.setMaxTableSize((int) Math.min(Integer.MAX_VALUE, value.getAsLong()));
            }
            first = !settingsReceived;
            settingsReceived = true;
            opened = true;
            wake = sendWindows.takeWaiters();
            maxStreams = peerMaxStreams;
        } finally {
            lock.unlock();
        }
        offerControl(generator::settingsAck);
        Http2SendWindows.unpark(wake);
        int multiplex = Math.max(1, Math.min(client.maxStreamsPerConnection(), maxStreams));
        if (first && !upgraded) {
            destination.maxMultiplex(multiplex);
            destination.onOpened(this);
        } else if (first) {
            destination.maxMultiplex(multiplex); // the upgraded connection is in the pool already
            startWaiting();
        } else if (settings.has(Http2Settings.MAX_CONCURRENT_STREAMS)) {
            destination.maxMultiplex(multiplex);
            startWaiting();
        }
    }

    @Override
    public void onSettingsAck() {
        // Our settings are in force; nothing waits for them.
    }

    @Override
    public void onPing(long payload, boolean ack) {
        if (!ack) {
            offerControl(out -> generator.ping(out, payload, true));
        }
    }

    @Override
    public void onGoAway(int lastProcessed, ErrorCode error, ByteBuffer debugData) {
        List<Http2Stream> unprocessed = new ArrayList<>();
        lock.lock();
        try {
            goAway = true;
            for (Http2Stream stream : live) {
                if (stream.id == 0 || stream.id > lastProcessed) {
                    unprocessed.add(stream);
                }
            }
        } finally {
            lock.unlock();
        }
        String debug = StandardCharsets.UTF_8.decode(debugData).toString();
        LOG.log(Level.DEBUG, "GOAWAY {0} (last stream {1}) {2} on {3}", error, lastProcessed, debug, this);
        IOException cause = new IOException("the server went away (GOAWAY " + error
                + (debug.isEmpty() ? "" : ": " + debug) + ") before processing the request");
        for (Http2Stream stream : unprocessed) {
            failStream(stream, cause, null, true);
        }
        startWaiting(); // waiting exchanges go elsewhere
        boolean idle;
        lock.lock();
        try {
            idle = live.isEmpty();
        } finally {
            lock.unlock();
        }
        if (idle && entry.removeIfIdle()) {
            closeGracefully();
        }
    }

    @Override
    public void onWindowUpdate(int streamId, int increment) {
        List<Thread> wake;
        lock.lock();
        try {
            if (streamId == 0) {
                sendWindows.creditConnection(increment);
            } else {
                Http2Stream stream = streams.get(streamId);
                if (stream == null) {
                    return;
                }
                Http2SendWindows.creditStream(stream, increment);
            }
            wake = sendWindows.takeWaiters();
        } finally {
            lock.unlock();
        }
        Http2SendWindows.unpark(wake);
    }

    @Override
    public void onPushPromise(int streamId, int promisedStreamId, HeaderBlock block) {
        throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "PUSH_PROMISE although the client disabled push");
    }

    @Override
    public void onConnectionError(Http2Exception error) {
        LOG.log(Level.DEBUG, "HTTP/2 connection error from {0}: {1}", destination.origin(), error.getMessage());
        failure = badResponse("invalid HTTP/2 frames (" + error.error() + "): " + error.getMessage());
        flusher.offer(new Http2Flusher.Frame() {
            @Override
            void generate(ByteBuffer out) {
                generator.goAway(out, 0, error.error(), error.getMessage());
            }

            @Override
            void written() {
                endPoint().close(failure);
            }

            @Override
            void failed(Throwable cause) {
                endPoint().close(failure);
            }
        });
    }

    @Override
    public void onStreamError(Http2Exception error) {
        Http2Stream stream;
        lock.lock();
        try {
            stream = streams.get(error.streamId());
        } finally {
            lock.unlock();
        }
        if (stream != null) {
            failStream(stream, badResponse(error.getMessage()), error.error(), false);
        } else {
            offerControl(out -> generator.rstStream(out, error.streamId(), error.error()));
        }
    }

    BadResponseException badResponse(String problem) {
        return new BadResponseException("invalid HTTP/2 response from " + destination.origin() + ": " + problem);
    }

    // --- closing -----------------------------------------------------------------------------------------------------

    /** Says GOAWAY (no error), then closes. */
    void closeGracefully() {
        flusher.offer(new Http2Flusher.Frame() {
            @Override
            void generate(ByteBuffer out) {
                generator.goAway(out, 0, ErrorCode.NO_ERROR, null);
            }

            @Override
            void written() {
                endPoint().close();
            }

            @Override
            void failed(Throwable cause) {
                endPoint().close();
            }
        });
    }

    /**
     * The whole connection was silent for the client's idle timeout. Without streams whose requests have idle timeouts
     * of their own, it closes as ever; with some, their own timeouts decide for them, so only the streams that have
     * none fail (reset with CANCEL) and the connection stays open.
     */
    @Override
    public boolean onIdleExpired() {
        List<Http2Stream> expired = new ArrayList<>();
        lock.lock();
        try {
            boolean ownTimeouts = false;
            for (Http2Stream stream : live) {
                if (stream.idleTimeout != null) {
                    ownTimeouts = true;
                } else {
                    expired.add(stream);
                }
            }
            if (!ownTimeouts) {
                return true;
            }
        } finally {
            lock.unlock();
        }
        for (Http2Stream stream : expired) {
            boolean requestSent;
            boolean responseStarted;
            lock.lock();
            try {
                requestSent = stream.requestEnded;
                responseStarted = stream.responseStarted;
            } finally {
                lock.unlock();
            }
            failStream(
                    stream,
                    IdleTimeoutFailure.of(
                            stream.exchange.request, endPoint().idleTimeout(), requestSent, responseStarted),
                    ErrorCode.CANCEL,
                    false);
        }
        return false;
    }

    @Override
    public void onClose(Throwable cause) {
        Throwable reason = failure;
        if (reason == null) {
            if (cause instanceof TimeoutException timeout) {
                reason = new SocketTimeoutException(timeout.getMessage());
            } else if (cause == null || cause instanceof ClosedChannelException) {
                reason = new EOFException("the HTTP/2 connection to " + destination.origin() + " was closed");
            } else {
                reason = cause;
            }
            failure = reason;
        }
        // Before the flusher's frames fail (a request's last frame may be written with its callback not run yet); the
        // endpoint may have failed its pending write already, which sendingFailed() copes with.
        endStreamsAnsweredInFull();
        flusher.terminate(reason);
        boolean wasOpened;
        List<Http2Stream> streamsLeft;
        lock.lock();
        try {
            wasOpened = opened;
            streamsLeft = new ArrayList<>(live);
        } finally {
            lock.unlock();
        }
        if (wasOpened) {
            destination.onClosed(this);
        }
        for (Http2Stream stream : streamsLeft) {
            // A request the server never received may go elsewhere; one it may have received fails.
            failStream(stream, reason, null, stream.id == 0);
        }
        startWaiting();
        if (!wasOpened) {
            destination.openFailed(entry, reason);
        } else if (streamsLeft.isEmpty()) {
            destination.removeIdle(this);
        }
        while (true) {
            int state = io.get();
            if ((state & IO_CLOSED) != 0) {
                return;
            }
            if ((state & IO_BUSY) != 0) {
                if (io.compareAndSet(state, state | IO_CLOSED)) {
                    return; // the parsing thread releases the buffer when it leaves
                }
            } else if (io.compareAndSet(state, IO_CLOSED)) {
                buffer.release();
                return;
            }
        }
    }

    @Override
    public boolean isIdle() {
        lock.lock();
        try {
            return live.isEmpty() && waiting.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "Http2Connection@" + Integer.toHexString(hashCode()) + "{" + destination.origin() + ", streams="
                + live.size() + ", waiting=" + waiting.size() + ", maxStreams=" + peerMaxStreams
                + (goAway ? ", GOAWAY" : "")
                + ", " + endPoint() + "}";
    }
}
