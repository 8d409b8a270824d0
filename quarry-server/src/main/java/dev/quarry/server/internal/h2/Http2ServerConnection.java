package dev.quarry.server.internal.h2;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.buffer.RetainableByteBuffer;
import dev.quarry.core.strategy.AdaptiveExecutionStrategy;
import dev.quarry.core.strategy.ExecutionStrategy;
import dev.quarry.core.strategy.StrategyStatistics;
import dev.quarry.core.timer.Timeout;
import dev.quarry.http.HttpFields;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.h2.FrameListener;
import dev.quarry.http.h2.FrameParser;
import dev.quarry.http.h2.HeaderBlock;
import dev.quarry.http.h2.Http2Exception;
import dev.quarry.http.h2.Http2Messages;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.hpack.HpackDecoder;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.http.hpack.HpackLimits;
import dev.quarry.io.AbstractConnection;
import dev.quarry.io.EndPoint;
import dev.quarry.server.Http2Config;
import dev.quarry.server.internal.ServerContext;
import java.io.EOFException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An HTTP/2 server connection (RFC 9113). It is itself a {@link ExecutionStrategy.Producer}: reading bytes and parsing
 * frames is production, and each new stream is a task for its own {@link AdaptiveExecutionStrategy}. Control and
 * flow-control frames (SETTINGS, PING, WINDOW_UPDATE, RST_STREAM, GOAWAY) and request content are handled by the
 * producer as it parses them, never queued behind application code: that is what keeps a connection alive when every
 * thread is blocked in handlers that wait for its request bodies (the "eat what you kill" starvation scenario).
 *
 * <p>The read task declares {@link InvocationType#EITHER} (or non-blocking, when handlers never block on a platform
 * thread): when the selector runs it in non-blocking mode, the strategy only parses and dispatches, never running a
 * blocking handler itself.
 *
 * <p>Responses completed while the producer is still producing are batched: their frames go out in one write when
 * the input runs dry.
 *
 * <p>Its parts, one job each, all sharing the connection's lock: {@link Http2StreamTable} (open streams, stream ids,
 * recent resets), {@link Http2StreamOpener} (new requests), {@link Http2ControlFrames} (SETTINGS, PING and the
 * control-frame limits), {@link Http2ConnectionWindow} (connection flow control), {@link Http2StreamIdleChecker},
 * {@link Http2Closer} (GOAWAY and close sequencing), {@link Http2ContentReceiver} (request content and the credit it
 * returns), {@link Http2OpenFiles}, {@link Http2InputBuffer} and {@link Http2Flusher}. This class
 * produces, dispatches the stream frames, and serves its streams ({@link Http2Stream} calls back into it).
 *
 * <p>Threading: parsing and frame callbacks on the producing thread (one at a time); streams, windows and the flusher
 * queues are guarded by one lock, held briefly.
 */
public final class Http2ServerConnection extends AbstractConnection
        implements FrameListener, ExecutionStrategy.Producer {
    private static final System.Logger LOG = System.getLogger(Http2ServerConnection.class.getName());
    /**
     * How many bytes one connection reads in a row before it yields its thread to the others (fairness: one client
     * sending frames as fast as it can must not stall the rest of its selector).
     */
    static final int FAIR_SHARE_BYTES = 128 * 1024;

    private final ServerContext context;
    private final Http2Config config;
    private final ReentrantLock lock = new Http2SessionLock();
    private final FrameParser parser;
    private final FrameGenerator generator;
    private final Http2Flusher flusher;
    private final Http2ConnectionWindow connectionWindow;
    private final Http2StreamTable streams;
    private final Http2Closer closer;
    private final Http2ControlFrames control;
    private final Http2StreamIdleChecker idleChecker;
    private final Http2StreamOpener opener;
    private final Http2InputBuffer input;
    private final Http2OpenFiles openFiles;
    private final Http2ContentReceiver receiver;
    private final AdaptiveExecutionStrategy strategy;
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>(2); // grows once to the connection's concurrency
    private final RateControl resets;
    private final InvocationType streamTaskType;
    private volatile Thread deferringThread;
    // Bytes read since this connection last let the others have their turn; confined to the producer.
    private int readThisTurn;
    // WINDOW_UPDATE frames received for closed streams; confined to the producer.
    private long strayWindowUpdates;
    // The header timeout of a header block that spans a wait for input; confined to the producer (onClose reads it).
    private Timeout headerTimer;
    private dev.quarry.server.internal.Http2Upgrade.UpgradedRequest upgraded;

    /**
     * @param context the server's shared state
     * @param endPoint the endpoint
     * @param prefaceConsumed whether the client preface was already read (prior knowledge detected by HTTP/1.1)
     */
    public Http2ServerConnection(ServerContext context, EndPoint endPoint, boolean prefaceConsumed) {
        super(endPoint);
        this.context = context;
        this.config = context.http2Config();
        HpackDecoder decoder = new HpackDecoder(
                Http2Settings.DEFAULT_HEADER_TABLE_SIZE,
                HpackLimits.DEFAULT.withMaxHeaderListSize(config.maxHeaderListSize()));
        this.parser = new FrameParser(
                FrameParser.Side.SERVER,
                this,
                decoder,
                new FrameParser.Limits(
                        config.maxFrameSize(), config.maxHeaderBlockSize(), config.maxContinuationFrames()));
        if (!prefaceConsumed) {
            parser.expectPreface();
        }
        HpackEncoder encoder = new HpackEncoder();
        this.generator = new FrameGenerator(encoder);
        this.connectionWindow = new Http2ConnectionWindow(lock, config.connectionWindow());
        this.flusher = new Http2Flusher(
                lock,
                context.timer(),
                config.smallFrameWait(),
                endPoint,
                context.buffers(),
                generator,
                connectionWindow,
                context.config().outputBufferSize(),
                context.threads(),
                this::onMappingFault);
        this.streams = new Http2StreamTable(lock, flusher);
        this.closer = new Http2Closer(lock, streams, flusher, generator, endPoint);
        this.control =
                new Http2ControlFrames(config, lock, context.timer(), encoder, generator, flusher, streams, closer);
        this.idleChecker = new Http2StreamIdleChecker(
                config.streamIdleTimeout(),
                context.timer(),
                lock,
                streams,
                this,
                context.config().minRequestBodyRate() > 0);
        this.opener = new Http2StreamOpener(context, lock, endPoint, streams, closer, control, idleChecker, this);
        this.input = new Http2InputBuffer(
                context.buffers(),
                endPoint,
                Math.max(context.config().inputBufferSize(), config.maxFrameSize() + 9 + 1024),
                context.http2Budget());
        this.openFiles = new Http2OpenFiles(lock, config.maxOpenFiles(), context.statistics());
        this.receiver = new Http2ContentReceiver(
                lock, streams, connectionWindow, input, context.http2Budget(), flusher, generator, closer);
        this.strategy = new AdaptiveExecutionStrategy(this, context.threads());
        this.resets = new RateControl(config.maxResetsPerSecond());
        this.streamTaskType = context.readInvocationType();
    }

    @Override
    public String protocol() {
        return endPoint().isSecure() ? "h2" : "h2c";
    }

    /**
     * Gives the connection bytes already read (after the preface, or after an upgrade request); before
     * {@link #onOpen()}.
     *
     * @param buffered bytes in drain mode; copied
     */
    void prime(ByteBuffer buffered) {
        input.prime(buffered);
    }

    /** Makes the request of an {@code Upgrade: h2c} stream 1; before {@link #onOpen()}. */
    void upgraded(dev.quarry.server.internal.Http2Upgrade.UpgradedRequest request) {
        this.upgraded = request;
    }

    @Override
    public void onOpen() {
        context.statistics().onHttp2Connection();
        control.sendPreface();
        dev.quarry.server.internal.Http2Upgrade.UpgradedRequest request = upgraded;
        if (request != null) {
            upgraded = null;
            Http2Stream stream = opener.openUpgraded(request);
            if (stream != null) {
                tasks.add(streamTask(stream));
            }
        }
        strategy.produce();
    }

    // --- production ------------------------------------------------------------------------------------------------

    @Override
    protected InvocationType readInvocationType() {
        return streamTaskType == InvocationType.NON_BLOCKING ? InvocationType.NON_BLOCKING : InvocationType.EITHER;
    }

    @Override
    protected void onFillable() {
        strategy.produce();
    }

    @Override
    public Runnable produce() {
        try {
            while (true) {
                if (closer.isClosed()) {
                    // Only the producer touches the input buffer: it releases it here, whoever closed the connection
                    // (onClose asks for production so that this runs). Streams were failed; their tasks are moot.
                    tasks.clear();
                    input.release();
                    return null;
                }
                Runnable task = tasks.poll();
                if (task != null) {
                    // The task may run here (then its responses are batched until the input runs dry) or elsewhere.
                    deferringThread = Thread.currentThread();
                    return task;
                }
                RetainableByteBuffer in = input.buffer();
                if (in != null && parseFrame(in)) {
                    continue;
                }
                if (parser.isClosed() || closer.isClosing() && streams.isEmpty()) {
                    flusher.iterate();
                    return null;
                }
                if (!fill()) {
                    deferringThread = null;
                    flusher.iterate();
                    return null;
                }
            }
        } catch (IOException x) {
            // The client's doing (a reset, a broken pipe), not a fault of the server: counted, one line at DEBUG.
            context.statistics().onPeerIoFailure();
            LOG.log(Level.DEBUG, () -> "HTTP/2 connection failed on " + this + ": " + x);
            streams.failAll(x);
            closer.closeNow();
            return null;
        } catch (Throwable x) {
            LOG.log(Level.WARNING, "HTTP/2 processing failed on " + this, x);
            // fail, not goAway: after a graceful GOAWAY, goAway would do nothing and leave the connection open, its
            // reading stopped, until the idle timeout.
            closer.fail(ErrorCode.INTERNAL_ERROR, "internal error");
            return null;
        }
    }

    private boolean parseFrame(RetainableByteBuffer in) {
        try {
            return parser.parseFrame(in.byteBuffer());
        } catch (Http2Exception x) {
            if (x.isConnectionError()) {
                onConnectionError(x);
            } else {
                onStreamError(x);
            }
            return true;
        }
    }

    /** Reads more bytes; false when none are available now (fill interest registered) or the input ended. */
    private boolean fill() throws IOException {
        if (readThisTurn >= FAIR_SHARE_BYTES) {
            // A client that keeps the socket full (a frame flood, a fast upload) would keep this thread, often a
            // selector, to itself: give the other connections their turn and come back when the selector says so.
            readThisTurn = 0;
            fillInterested();
            return false;
        }
        int filled = input.fill();
        if (filled > 0) {
            readThisTurn += filled;
            return true;
        }
        if (filled == 0) {
            readThisTurn = 0;
            armHeaderTimeout();
            fillInterested();
            return false;
        }
        // The client closed its side: streams in progress cannot complete.
        streams.failAll(new EOFException("the client closed the HTTP/2 connection"));
        closer.closeNow();
        return false;
    }

    /**
     * Waiting for input in the middle of a header block (HEADERS and its CONTINUATIONs, or part of such a frame): the
     * block has the header timeout to complete, however its bytes trickle in; past it the connection is closed with
     * GOAWAY. Armed only when a block spans a wait, which a client sending whole frames never causes.
     */
    private void armHeaderTimeout() {
        RetainableByteBuffer in = input.buffer();
        if (!parser.isInHeaderBlock(in == null ? null : in.byteBuffer())) {
            cancelHeaderTimeout(); // no block in progress: none can be late
            return;
        }
        if (headerTimer != null) {
            return;
        }
        Duration timeout = context.config().headerTimeout();
        headerTimer = context.timer()
                .schedule(
                        Invocable.task(
                                InvocationType.NON_BLOCKING,
                                () -> closer.goAway(
                                        ErrorCode.ENHANCE_YOUR_CALM,
                                        "request header block not complete within " + timeout.toMillis() + " ms")),
                        timeout);
    }

    private void cancelHeaderTimeout() {
        Timeout timer = headerTimer;
        if (timer != null) {
            headerTimer = null;
            timer.cancel();
        }
    }

    private Runnable streamTask(Http2Stream stream) {
        return Invocable.task(streamTaskType, () -> stream.exchange().handle());
    }

    // --- FrameListener (producer thread) -------------------------------------------------------------------------

    @Override
    public void onHeaders(int streamId, HeaderBlock block, boolean endStream) {
        cancelHeaderTimeout();
        if ((streamId & 1) == 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "client stream ids are odd, not " + streamId);
        }
        Http2Stream existing = streams.find(streamId);
        if (existing != null) {
            onTrailers(existing, block, endStream);
            return;
        }
        Http2Stream stream = opener.open(streamId, block, endStream);
        if (stream != null) {
            tasks.add(streamTask(stream));
        }
    }

    private void onTrailers(Http2Stream stream, HeaderBlock block, boolean endStream) {
        if (stream.isRemoteClosed()) {
            throw Http2Exception.stream(stream.id(), ErrorCode.STREAM_CLOSED, "HEADERS after END_STREAM");
        }
        if (!endStream) {
            throw Http2Exception.stream(stream.id(), ErrorCode.PROTOCOL_ERROR, "trailers without END_STREAM");
        }
        HttpFields trailers = Http2Messages.trailers(stream.id(), block);
        boolean wake;
        lock.lock();
        try {
            wake = stream.onTrailers(trailers);
            if (stream.isCompleted()) {
                streams.remove(stream.id()); // both sides are done now
                wake = false;
            }
        } finally {
            lock.unlock();
        }
        closer.afterStreamRemoved();
        if (wake) {
            stream.exchange().onContentAvailable();
        }
    }

    @Override
    public void onData(int streamId, ByteBuffer data, boolean endStream, int flowControlledLength) {
        if (!data.hasRemaining() && !endStream) {
            control.onEmptyData();
        }
        receiver.onData(streamId, data, endStream, flowControlledLength);
    }

    @Override
    public void onRstStream(int streamId, ErrorCode error) {
        if (streamId > streams.lastStreamId()) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "RST_STREAM on idle stream " + streamId);
        }
        Http2Stream stream;
        lock.lock();
        try {
            stream = streams.remove(streamId);
            if (stream != null) {
                stream.markReset(); // the abort of its exchange must not answer with another RST_STREAM
            }
        } finally {
            lock.unlock();
        }
        streams.rememberPeerReset(streamId);
        if (stream == null) {
            return;
        }
        if (!resets.onEvent()) {
            throw Http2Exception.connection(
                    ErrorCode.ENHANCE_YOUR_CALM,
                    "more than " + resets.limit() + " streams reset per second (rapid reset)");
        }
        streams.fail(stream, new EOFException("stream " + streamId + " reset by the client: " + error));
        closer.afterStreamRemoved();
    }

    @Override
    public void onSettings(Http2Settings settings) {
        control.onSettings(settings);
    }

    @Override
    public void onSettingsAck() {
        control.onSettingsAck();
    }

    @Override
    public void onPing(long payload, boolean ack) {
        control.onPing(payload, ack);
    }

    @Override
    public void onPriority(int streamId, int dependency, boolean exclusive, int weight) {
        control.onPriority();
    }

    @Override
    public void onUnknownFrame(int type, int streamId, int length) {
        control.onUnknownFrame();
    }

    @Override
    public void onGoAway(int lastStreamId, ErrorCode error, ByteBuffer debugData) {
        closer.onPeerGoAway();
    }

    @Override
    public void onWindowUpdate(int streamId, int increment) {
        if (streamId == 0) {
            control.onWindowUpdate(increment, false);
            connectionWindow.onWindowUpdate(increment);
            flusher.iterate();
            return;
        }
        Http2Stream stream;
        lock.lock();
        try {
            stream = streams.get(streamId);
            if (stream != null && !stream.updateSendWindow(increment)) {
                throw Http2Exception.stream(streamId, ErrorCode.FLOW_CONTROL_ERROR, "stream window above 2^31-1");
            }
        } finally {
            lock.unlock();
        }
        if (stream == null && streamId > streams.lastStreamId()) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "WINDOW_UPDATE on idle stream " + streamId);
        }
        if (stream == null) {
            // A client may credit a stream that we ended before it learnt so: one such update per stream opened is
            // fair; beyond that (updates on closed streams are never checked for overflow) it is a flood.
            strayWindowUpdates++;
            control.onWindowUpdate(increment, strayWindowUpdates > (streams.lastStreamId() + 1L) / 2);
            return; // nothing to send on a closed stream
        }
        control.onWindowUpdate(increment, false);
        flusher.iterate();
    }

    @Override
    public void onConnectionError(Http2Exception error) {
        LOG.log(Level.DEBUG, () -> "connection error on " + this + ": " + error);
        closer.goAway(error.error(), error.getMessage());
    }

    @Override
    public void onStreamError(Http2Exception error) {
        LOG.log(Level.DEBUG, () -> "stream error on " + this + ": " + error);
        Http2Stream stream;
        lock.lock();
        try {
            stream = streams.remove(error.streamId());
            if (stream != null && !stream.markReset()) {
                return; // already reset
            }
        } finally {
            lock.unlock();
        }
        // The RST_STREAM first: failing the stream's exchange below must not be what the client sees.
        sendReset(error.streamId(), error.error());
        if (stream != null) {
            streams.fail(stream, new IOException(error.getMessage()));
            closer.afterStreamRemoved();
            // A reset the client provoked (a malformed frame on an open stream) frees its stream slot as one it sends
            // does: both count toward the rapid-reset limit (MadeYouReset, CVE-2025-8671).
            if (!resets.onEvent()) {
                onConnectionError(Http2Exception.connection(
                        ErrorCode.ENHANCE_YOUR_CALM,
                        "more than " + resets.limit() + " streams reset per second (provoked resets, MadeYouReset)"));
            }
        }
    }

    // --- streams (any thread) ------------------------------------------------------------------------------------

    ReentrantLock lock() {
        return lock;
    }

    /**
     * Queues an entry and writes it, unless the producer will (it flushes once its tasks ran and the input ran dry).
     *
     * <p>A blocking handler's virtual thread yields once before it writes a small entry (one copied into the frame
     * buffer: a head, a short body) when other streams of the connection are open: their handlers, typically started
     * by the same read and queued on the same carriers, get to queue their responses first, and one gathering write
     * then carries them all (each handler still returns only once its own response went out: the first thread's write
     * completes the others' writes). Without it every response cost a write system call of its own (one per request
     * under h2load -m100, against 0.01 for the asynchronous path), the largest part of a blocking stream's cost. The
     * yield is bounded (once per write, whatever the other handlers do), so a handler that blocks for long delays
     * nobody's response by more than one turn of the scheduler. Large payloads (files, big bodies) are written as
     * before: they are a system call's worth each anyway.
     */
    void send(Http2Flusher.Entry entry) {
        if (!flusher.offer(entry)) {
            return;
        }
        Thread current = Thread.currentThread();
        if (current == deferringThread) {
            return;
        }
        if (entry.isSmall() && current.isVirtual() && !Invocable.isNonBlockingInvocation() && othersOpen()) {
            Thread.yield();
        }
        flusher.iterate();
    }

    /** @return whether streams other than the sender's are open on the wire, whose responses may follow soon */
    private boolean othersOpen() {
        lock.lock();
        try {
            return streams.activeCount() > 1;
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: both sides ended this stream (see {@link Http2StreamTable#activeCount()}). */
    void onStreamClosedOnWire(Http2Stream stream) {
        streams.onClosedOnWire(stream);
    }

    /**
     * A handler consumed request content (or it was released unread): reopen the stream's window and the connection's,
     * each once half of it was given back.
     */
    void onContentConsumed(Http2Stream stream, int bytes) {
        if (receiver.onContentConsumed(stream, bytes) && Thread.currentThread() != deferringThread) {
            flusher.iterate();
        }
    }

    /** @return the bound on files this connection's responses keep open */
    Http2OpenFiles openFiles() {
        return openFiles;
    }

    /** @return the server-wide budget that request content is charged to */
    Http2ContentBudget contentBudget() {
        return context.http2Budget();
    }

    /**
     * The response of a stream was sent and nothing will read its content: the exchange completed, or the session
     * answered the request itself (431, a bad target).
     */
    void onStreamCompleted(Http2Stream stream) {
        boolean stopSending;
        lock.lock();
        try {
            // From now on its DATA is discarded with the window kept open, and END_STREAM or RST_STREAM frees the
            // stream.
            stream.markCompleted();
            stream.releaseContent();
            if (stream.isRemoteClosed()) {
                streams.remove(stream.id());
            }
            // A body answered 408 (it stopped, or came too slowly) is not worth waiting for: RST_STREAM NO_ERROR after
            // the complete response asks the client to stop sending it (RFC 9113 8.1), and frees the stream now rather
            // than when a trickling client lets it idle out.
            stopSending = !stream.isRemoteClosed() && stream.isContentTimedOut();
            // Otherwise the stream stays half-closed (local) until the client ends or resets it: its frames are still
            // judged by the stream rules (window overflow, DATA after END_STREAM) and its DATA is discarded with the
            // window kept open. A client that never ends it is reset by the stream idle timeout.
        } finally {
            lock.unlock();
        }
        if (stopSending) {
            resetStream(stream, ErrorCode.NO_ERROR, new TimeoutException("request body abandoned after its 408"));
            return;
        }
        closer.afterStreamRemoved();
    }

    /** Resets a stream from our side: its handler's pending reads and writes fail. */
    void resetStream(Http2Stream stream, ErrorCode error, Throwable cause) {
        boolean first;
        lock.lock();
        try {
            streams.remove(stream.id());
            first = stream.markReset();
        } finally {
            lock.unlock();
        }
        if (!first) {
            return; // reset already, by the client or by us
        }
        sendReset(stream.id(), error);
        streams.fail(stream, cause);
        closer.afterStreamRemoved();
    }

    /**
     * The flusher met a fault reading a file mapping that it could not pin on one stream (see {@link Http2Flusher}):
     * it failed the queued streams' writes; the connection ends, with GOAWAY INTERNAL_ERROR if none was sent yet.
     */
    private void onMappingFault(IOException cause) {
        closer.fail(ErrorCode.INTERNAL_ERROR, "cannot read a file being sent");
    }

    /** @return whether the connection is closed; any thread */
    boolean isClosed() {
        return closer.isClosed();
    }

    /** Resets a stream that is not (or no longer) registered: RST_STREAM, remembered for frames in flight. */
    void sendReset(int streamId, ErrorCode error) {
        streams.rememberReset(streamId);
        flusher.offer(Http2Flusher.reset(streamId, error, generator));
        if (Thread.currentThread() != deferringThread) {
            flusher.iterate();
        }
    }

    // --- connection life cycle ------------------------------------------------------------------------------------

    @Override
    public void onClose(Throwable cause) {
        closer.onClosed();
        Throwable failure = cause != null ? cause : new EOFException("HTTP/2 connection closed");
        streams.failAll(failure);
        flusher.terminate(failure);
        control.cancelTimers();
        idleChecker.cancel();
        Timeout header = headerTimer; // a racy read is fine: cancelling is idempotent, a late expiry finds it closed
        if (header != null) {
            header.cancel();
        }
        // The flusher's buffer is only touched under the lock or by a write that fails once the endpoint is closed:
        // it can go back now. The input belongs to the producer, which releases it when it sees `closed`: produce now,
        // here or, if a thread is producing (possibly this one, closing on end of input), by that thread once more.
        flusher.release();
        openFiles.close();
        strategy.produce();
    }

    @Override
    public boolean onIdleExpired() {
        if (flusher.isPending()) {
            // A write has waited a whole idle timeout for the client to read: it stopped reading (or vanished). As on
            // HTTP/1.1, the connection closes; its streams fail, and its buffers and open files are let go. A GOAWAY
            // could not be written anyway.
            LOG.log(Level.DEBUG, () -> "closing " + this + ": the client read nothing for an idle timeout");
            return true;
        }
        if (streams.isEmpty()) {
            closer.goAway(ErrorCode.NO_ERROR, "idle timeout");
        }
        return false; // streams in progress have their own idle timeout; GOAWAY closes the connection when written
    }

    @Override
    public void shutdown() {
        closer.shutdown();
    }

    @Override
    public boolean isIdle() {
        return streams.isEmpty();
    }

    /** @return the mode counts of this connection's strategy */
    public StrategyStatistics strategyStatistics() {
        return strategy.statistics();
    }

    @Override
    public String toString() {
        return "Http2ServerConnection@" + Integer.toHexString(hashCode()) + "{streams=" + streams.count() + ", last="
                + streams.lastStreamId() + (closer.goAwaySent() ? ", goaway" : "") + ", " + endPoint() + "}";
    }
}
