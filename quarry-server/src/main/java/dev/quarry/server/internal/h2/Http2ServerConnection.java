package dev.quarry.server.internal.h2;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.buffer.RetainableByteBuffer;
import dev.quarry.core.strategy.AdaptiveExecutionStrategy;
import dev.quarry.core.strategy.ExecutionStrategy;
import dev.quarry.core.strategy.StrategyStatistics;
import dev.quarry.core.timer.Timeout;
import dev.quarry.http.BadMessageException;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.h2.FrameListener;
import dev.quarry.http.h2.FrameParser;
import dev.quarry.http.h2.HeaderBlock;
import dev.quarry.http.h2.Http2Exception;
import dev.quarry.http.h2.Http2Messages;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.h2.RequestHead;
import dev.quarry.http.hpack.HpackDecoder;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.http.hpack.HpackLimits;
import dev.quarry.io.AbstractConnection;
import dev.quarry.io.EndPoint;
import dev.quarry.server.Http2Config;
import dev.quarry.server.internal.Exchange;
import dev.quarry.server.internal.ServerContext;
import java.io.EOFException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
 * <p>Threading: parsing and frame callbacks on the producing thread (one at a time); streams, windows and the flusher
 * queues are guarded by one lock, held briefly.
 */
public final class Http2ServerConnection extends AbstractConnection
        implements FrameListener, ExecutionStrategy.Producer {
    private static final System.Logger LOG = System.getLogger(Http2ServerConnection.class.getName());
    private static final int RECENTLY_RESET = 64;
    private static final int MAX_CONTROL_BACKLOG = 1024;

    private final ServerContext context;
    private final Http2Config config;
    private final ReentrantLock lock = new ReentrantLock();
    private final FrameParser parser;
    private final HpackEncoder encoder;
    private final FrameGenerator generator;
    private final Http2Flusher flusher;
    private final AdaptiveExecutionStrategy strategy;
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private final Map<Integer, Http2Stream> streams = new HashMap<>();
    private final int[] recentlyReset = new int[RECENTLY_RESET];
    private final RateControl resets;
    private final RateControl controlFrames;
    private final InvocationType streamTaskType;
    private RetainableByteBuffer input;
    private int recentlyResetIndex;
    // Written by the producer under the lock (goAway reads it from any thread).
    private int lastStreamId;
    private int connectionSendWindow = Http2Settings.DEFAULT_INITIAL_WINDOW_SIZE;
    private int connectionRecvWindow;
    private int connectionUnacked;
    private int peerInitialWindow = Http2Settings.DEFAULT_INITIAL_WINDOW_SIZE;
    private boolean settingsReceived;
    private boolean drained;
    private volatile boolean goAwaySent;
    // Set once our GOAWAY is in the flusher's queue: a close queued from then on cannot overtake it.
    private volatile boolean goAwayQueued;
    private volatile boolean closing;
    private volatile boolean closed;
    private volatile Thread deferringThread;
    private Timeout settingsAckTimeout;
    private Timeout streamIdleCheck;
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
        this.encoder = new HpackEncoder();
        this.generator = new FrameGenerator(encoder);
        this.flusher = new Http2Flusher(
                lock,
                endPoint,
                context.buffers(),
                generator,
                new WindowAccess(),
                context.config().outputBufferSize());
        this.strategy = new AdaptiveExecutionStrategy(this, context.threads());
        this.resets = new RateControl(config.maxResetsPerSecond());
        this.controlFrames = new RateControl(config.maxControlFramesPerSecond());
        this.connectionRecvWindow = config.connectionWindow();
        this.streamTaskType = context.readInvocationType();
    }

    @Override
    public String protocol() {
        return "h2c";
    }

    /**
     * Gives the connection bytes already read (after the preface, or after an upgrade request); before
     * {@link #onOpen()}.
     *
     * @param buffered bytes in drain mode; copied
     */
    void prime(ByteBuffer buffered) {
        if (buffered.hasRemaining()) {
            ensureInput(buffered.remaining());
            ByteBuffer in = input.byteBuffer();
            in.compact();
            in.put(buffered);
            in.flip();
        }
    }

    /** Makes the request of an {@code Upgrade: h2c} stream 1; before {@link #onOpen()}. */
    void upgraded(dev.quarry.server.internal.Http2Upgrade.UpgradedRequest request) {
        this.upgraded = request;
    }

    @Override
    public void onOpen() {
        context.statistics().onHttp2Connection();
        sendPreface();
        dev.quarry.server.internal.Http2Upgrade.UpgradedRequest request = upgraded;
        if (request != null) {
            upgraded = null;
            openUpgradedStream(request);
        }
        strategy.produce();
    }

    private void openUpgradedStream(dev.quarry.server.internal.Http2Upgrade.UpgradedRequest request) {
        applySettings(Http2UpgradeSettings.decode(request.settings()));
        settingsReceived = true;
        lastStreamId = 1;
        Http2Stream stream = new Http2Stream(1, this, peerInitialWindow);
        stream.initReceiveWindow(config.initialStreamWindow());
        long length = request.body().length;
        try {
            Exchange exchange = new Exchange(
                    context,
                    stream,
                    endPoint(),
                    request.method(),
                    request.target(),
                    HttpVersion.HTTP_2,
                    request.fields(),
                    "http",
                    request.fields().get(HttpHeader.HOST).orElse(""),
                    length);
            stream.exchange(exchange, length);
        } catch (BadMessageException x) {
            registerStream(stream);
            stream.onTrailers(null);
            sendError(stream, x.status(), x.reason());
            return;
        }
        lock.lock();
        try {
            if (length > 0) {
                stream.onData(ByteBuffer.wrap(request.body()), null, 0, true);
            } else {
                stream.onTrailers(null);
            }
        } finally {
            lock.unlock();
        }
        registerStream(stream);
        context.statistics().onHttp2Request();
        tasks.add(streamTask(stream));
    }

    private void sendPreface() {
        Http2Settings settings = new Http2Settings()
                .set(Http2Settings.MAX_CONCURRENT_STREAMS, config.maxConcurrentStreams())
                .set(Http2Settings.INITIAL_WINDOW_SIZE, config.initialStreamWindow())
                .set(Http2Settings.MAX_FRAME_SIZE, config.maxFrameSize())
                .set(Http2Settings.MAX_HEADER_LIST_SIZE, config.maxHeaderListSize())
                .set(Http2Settings.ENABLE_PUSH, 0);
        flusher.offer(new Http2Flusher.ControlEntry(out -> generator.settings(out, settings), Callback.NOOP));
        int increase = config.connectionWindow() - Http2Settings.DEFAULT_INITIAL_WINDOW_SIZE;
        if (increase > 0) {
            flusher.offer(
                    new Http2Flusher.ControlEntry(out -> generator.windowUpdate(out, 0, increase), Callback.NOOP));
        }
        flusher.iterate();
        settingsAckTimeout = context.timer()
                .schedule(
                        Invocable.task(InvocationType.NON_BLOCKING, this::onSettingsAckTimeout),
                        config.settingsAckTimeout().toNanos(),
                        TimeUnit.NANOSECONDS);
    }

    private void onSettingsAckTimeout() {
        goAway(ErrorCode.SETTINGS_TIMEOUT, "no SETTINGS acknowledgement within " + config.settingsAckTimeout());
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
                if (closed) {
                    // Only the producer touches the input buffer: it releases it here, whoever closed the connection
                    // (onClose asks for production so that this runs). Streams were failed; their tasks are moot.
                    tasks.clear();
                    releaseInput();
                    return null;
                }
                Runnable task = tasks.poll();
                if (task != null) {
                    // The task may run here (then its responses are batched until the input runs dry) or elsewhere.
                    deferringThread = Thread.currentThread();
                    return task;
                }
                if (input != null && parseFrame()) {
                    continue;
                }
                if (parser.isClosed() || closing && streamsEmpty()) {
                    flusher.iterate();
                    return null;
                }
                if (!fill()) {
                    deferringThread = null;
                    flusher.iterate();
                    return null;
                }
            }
        } catch (Throwable x) {
            LOG.log(Level.WARNING, "HTTP/2 processing failed on " + this, x);
            goAway(ErrorCode.INTERNAL_ERROR, "internal error");
            return null;
        }
    }

    private boolean parseFrame() {
        try {
            return parser.parseFrame(input.byteBuffer());
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
        if (drained) {
            // The last read did not fill the buffer: the socket had nothing more, so reading now would return 0.
            drained = false;
            if (input != null && !input.byteBuffer().hasRemaining() && !input.isRetained()) {
                input.release();
                input = null;
            }
            fillInterested();
            return false;
        }
        ensureInput(0);
        ByteBuffer in = input.byteBuffer();
        in.compact();
        int space = in.remaining();
        int read;
        try {
            read = endPoint().fill(in);
        } finally {
            in.flip();
        }
        if (read > 0) {
            drained = read < space;
            return true;
        }
        if (read == 0) {
            if (!in.hasRemaining() && !input.isRetained()) {
                input.release();
                input = null;
            }
            fillInterested();
            return false;
        }
        // The client closed its side: streams in progress cannot complete.
        failStreams(new EOFException("the client closed the HTTP/2 connection"));
        closeNow();
        return false;
    }

    private void ensureInput(int minimum) {
        int size = Math.max(Math.max(minimum, context.config().inputBufferSize()), config.maxFrameSize() + 9 + 1024);
        if (input == null) {
            input = context.buffers().acquire(size, true);
            input.byteBuffer().flip();
            return;
        }
        if (input.isRetained()) {
            // Request content still references this buffer: move the unparsed bytes to a fresh one.
            RetainableByteBuffer fresh =
                    context.buffers().acquire(Math.max(size, input.byteBuffer().remaining()), true);
            fresh.byteBuffer().put(input.byteBuffer());
            fresh.byteBuffer().flip();
            input.release();
            input = fresh;
        }
    }

    private Runnable streamTask(Http2Stream stream) {
        return Invocable.task(streamTaskType, () -> stream.exchange().handle());
    }

    // --- FrameListener (producer thread) -------------------------------------------------------------------------

    @Override
    public void onHeaders(int streamId, HeaderBlock block, boolean endStream) {
        if ((streamId & 1) == 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "client stream ids are odd, not " + streamId);
        }
        Http2Stream existing;
        lock.lock();
        try {
            existing = streams.get(streamId);
        } finally {
            lock.unlock();
        }
        if (existing != null) {
            onTrailers(existing, block, endStream);
            return;
        }
        if (streamId <= lastStreamId) {
            throw Http2Exception.connection(
                    ErrorCode.STREAM_CLOSED, "HEADERS on closed stream " + streamId + " (last " + lastStreamId + ")");
        }
        Http2Stream stream = new Http2Stream(streamId, this, peerInitialWindow);
        stream.initReceiveWindow(config.initialStreamWindow());
        boolean ignore;
        boolean refuse;
        lock.lock();
        try {
            // One critical section with goAway(), which may run on another thread (stop, timer): either the GOAWAY
            // comes first and this stream is ignored (RFC 9113 6.8), or its last-stream-id covers this stream, which
            // is then already registered, so that the GOAWAY's completion does not close under it.
            lastStreamId = streamId;
            ignore = goAwaySent;
            refuse = !ignore && streams.size() >= config.maxConcurrentStreams();
            if (!ignore && !refuse) {
                streams.put(streamId, stream);
            }
        } finally {
            lock.unlock();
        }
        if (ignore) {
            return;
        }
        if (refuse) {
            sendReset(streamId, ErrorCode.REFUSED_STREAM);
            return;
        }
        scheduleStreamIdleCheck();
        if (block.tooLarge()) {
            answerWithError(
                    stream,
                    endStream,
                    HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE_431,
                    "request header fields too large");
            return;
        }
        // A stream error from here on (a malformed request) resets the registered stream and removes it.
        RequestHead head = Http2Messages.request(streamId, block);
        Exchange exchange;
        try {
            exchange = new Exchange(
                    context,
                    stream,
                    endPoint(),
                    head.method(),
                    head.path() != null ? head.path() : head.authority(),
                    HttpVersion.HTTP_2,
                    head.fields(),
                    head.scheme() != null ? head.scheme() : "http",
                    head.authority(),
                    head.contentLength());
        } catch (BadMessageException x) {
            answerWithError(stream, endStream, x.status(), x.reason());
            return;
        }
        if (endStream && head.contentLength() > 0) {
            throw Http2Exception.stream(
                    streamId, ErrorCode.PROTOCOL_ERROR, "content-length " + head.contentLength() + " but no DATA");
        }
        lock.lock();
        try {
            stream.exchange(exchange, head.contentLength());
            if (endStream) {
                stream.onTrailers(null);
            }
        } finally {
            lock.unlock();
        }
        context.statistics().onHttp2Request();
        tasks.add(streamTask(stream));
    }

    /** The session answers a registered stream's request itself (431, a bad target), without a handler. */
    private void answerWithError(Http2Stream stream, boolean endStream, int status, String reason) {
        if (endStream) {
            lock.lock();
            try {
                stream.onTrailers(null);
            } finally {
                lock.unlock();
            }
        }
        sendError(stream, status, reason);
    }

    private void registerStream(Http2Stream stream) {
        lock.lock();
        try {
            streams.put(stream.id(), stream);
        } finally {
            lock.unlock();
        }
        scheduleStreamIdleCheck();
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
        afterStreamRemoved();
        if (wake) {
            stream.exchange().onContentAvailable();
        }
    }

    @Override
    public void onData(int streamId, ByteBuffer data, boolean endStream, int flowControlledLength) {
        connectionRecvWindow -= flowControlledLength;
        if (connectionRecvWindow < 0) {
            throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "DATA beyond the connection window");
        }
        // Connection-level credit returns as data arrives: each stream's own window bounds what it buffers.
        returnConnectionCredit(flowControlledLength);
        if (!data.hasRemaining() && !endStream && !controlFrames.onEvent()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many empty DATA frames");
        }
        Http2Stream stream;
        lock.lock();
        try {
            stream = streams.get(streamId);
        } finally {
            lock.unlock();
        }
        if (stream == null) {
            onFrameForMissingStream(streamId, "DATA");
            return;
        }
        boolean wake;
        boolean discard;
        lock.lock();
        try {
            if (!stream.consumeReceiveWindow(flowControlledLength)) {
                throw Http2Exception.stream(streamId, ErrorCode.FLOW_CONTROL_ERROR, "DATA beyond the stream window");
            }
            discard = stream.isCompleted();
            if (discard) {
                // The response is complete and the handler gone: nobody will read this, just keep the windows open.
                // The request may still prove malformed (content-length), or DATA may follow END_STREAM.
                stream.countContent(data.remaining(), endStream);
                if (endStream) {
                    stream.onTrailers(null);
                    streams.remove(streamId);
                }
                wake = false;
            } else {
                wake = stream.onData(data, input, flowControlledLength, endStream);
            }
        } finally {
            lock.unlock();
        }
        if (discard) {
            if (flowControlledLength > 0) {
                onContentConsumed(stream, flowControlledLength);
            }
            afterStreamRemoved();
            return;
        }
        if (!data.hasRemaining() && flowControlledLength > 0) {
            onContentConsumed(stream, flowControlledLength); // padding only: nothing for the handler to consume
        }
        if (wake && stream.exchange() != null) {
            stream.exchange().onContentAvailable();
        }
    }

    private void returnConnectionCredit(int bytes) {
        connectionUnacked += bytes;
        if (connectionUnacked >= config.connectionWindow() / 2) {
            int increment = connectionUnacked;
            connectionUnacked = 0;
            connectionRecvWindow += increment;
            flusher.offer(
                    new Http2Flusher.ControlEntry(out -> generator.windowUpdate(out, 0, increment), Callback.NOOP));
        }
    }

    /** A frame for a stream not in the map: idle (never opened) is a connection error; closed, a stream error. */
    private void onFrameForMissingStream(int streamId, String frame) {
        if (streamId > lastStreamId) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, frame + " on idle stream " + streamId);
        }
        if (wasRecentlyReset(streamId)) {
            return; // RFC 9113 5.4.2: frames in flight after our RST_STREAM are ignored
        }
        throw Http2Exception.stream(streamId, ErrorCode.STREAM_CLOSED, frame + " on closed stream " + streamId);
    }

    @Override
    public void onRstStream(int streamId, ErrorCode error) {
        if (streamId > lastStreamId) {
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
        rememberPeerReset(streamId);
        if (stream == null) {
            return;
        }
        if (!resets.onEvent()) {
            throw Http2Exception.connection(
                    ErrorCode.ENHANCE_YOUR_CALM,
                    "more than " + resets.limit() + " streams reset per second (rapid reset)");
        }
        failStream(stream, new EOFException("stream " + streamId + " reset by the client: " + error));
        afterStreamRemoved();
    }

    @Override
    public void onSettings(Http2Settings settings) {
        if (settingsReceived && !controlFrames.onEvent()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many SETTINGS frames");
        }
        settingsReceived = true;
        checkControlBacklog();
        // Queue the ACK before applying: a window opened by the new settings may release DATA at once, and the peer
        // expects the ACK first.
        flusher.offer(new Http2Flusher.ControlEntry(generator::settingsAck, Callback.NOOP));
        applySettings(settings);
        flusher.iterate();
    }

    private void onSettingsFromUpgrade(Http2Settings settings) {
        settingsReceived = true;
        applySettings(settings);
    }

    private void applySettings(Http2Settings settings) {
        settings.get(Http2Settings.HEADER_TABLE_SIZE).ifPresent(size -> {
            lock.lock();
            try {
                encoder.setMaxTableSize((int) Math.min(size, Integer.MAX_VALUE));
            } finally {
                lock.unlock();
            }
        });
        settings.get(Http2Settings.MAX_FRAME_SIZE).ifPresent(size -> flusher.setMaxFrameSize((int) size));
        settings.get(Http2Settings.INITIAL_WINDOW_SIZE).ifPresent(size -> {
            int delta = (int) size - peerInitialWindow;
            lock.lock();
            try {
                peerInitialWindow = (int) size;
                for (Http2Stream stream : streams.values()) {
                    if (!stream.updateSendWindow(delta)) {
                        throw Http2Exception.connection(
                                ErrorCode.FLOW_CONTROL_ERROR, "SETTINGS_INITIAL_WINDOW_SIZE overflows a stream window");
                    }
                }
            } finally {
                lock.unlock();
            }
            flusher.iterate();
        });
    }

    @Override
    public void onSettingsAck() {
        Timeout timeout = settingsAckTimeout;
        if (timeout != null) {
            timeout.cancel();
        }
    }

    @Override
    public void onPing(long payload, boolean ack) {
        if (ack) {
            return;
        }
        if (!controlFrames.onEvent()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many PING frames");
        }
        checkControlBacklog();
        flusher.offer(new Http2Flusher.ControlEntry(out -> generator.ping(out, payload, true), Callback.NOOP));
        flusher.iterate();
    }

    /**
     * A peer that keeps sending frames we must answer (PING, SETTINGS) while never reading our answers would make
     * them pile up without bound, under any rate limit: past a backlog, it is treated as an attack.
     */
    private void checkControlBacklog() {
        if (flusher.controlBacklog() >= MAX_CONTROL_BACKLOG) {
            throw Http2Exception.connection(
                    ErrorCode.ENHANCE_YOUR_CALM,
                    MAX_CONTROL_BACKLOG + " control frames waiting to be written: the client does not read");
        }
    }

    @Override
    public void onPriority(int streamId, int dependency, boolean exclusive, int weight) {
        if (!controlFrames.onEvent()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many PRIORITY frames");
        }
    }

    @Override
    public void onUnknownFrame(int type, int streamId, int length) {
        if (!controlFrames.onEvent()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many unknown frames");
        }
    }

    @Override
    public void onGoAway(int lastStreamId, ErrorCode error, ByteBuffer debugData) {
        closing = true;
        if (streamsEmpty()) {
            goAway(ErrorCode.NO_ERROR, "");
        }
    }

    @Override
    public void onWindowUpdate(int streamId, int increment) {
        if (streamId == 0) {
            lock.lock();
            try {
                long next = (long) connectionSendWindow + increment;
                if (next > Integer.MAX_VALUE) {
                    throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "connection window above 2^31-1");
                }
                connectionSendWindow = (int) next;
            } finally {
                lock.unlock();
            }
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
        if (stream == null && streamId > lastStreamId) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "WINDOW_UPDATE on idle stream " + streamId);
        }
        flusher.iterate();
    }

    @Override
    public void onConnectionError(Http2Exception error) {
        LOG.log(Level.DEBUG, () -> "connection error on " + this + ": " + error);
        goAway(error.error(), error.getMessage());
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
            failStream(stream, new IOException(error.getMessage()));
            afterStreamRemoved();
        }
    }

    // --- streams (any thread) ------------------------------------------------------------------------------------

    ReentrantLock lock() {
        return lock;
    }

    void send(Http2Flusher.Entry entry) {
        if (!flusher.offer(entry)) {
            return;
        }
        if (Thread.currentThread() != deferringThread) {
            flusher.iterate();
        }
    }

    /** A handler consumed request content: reopen the stream's window once half of it was consumed. */
    void onContentConsumed(Http2Stream stream, int bytes) {
        int increment;
        lock.lock();
        try {
            increment = stream.creditReceiveWindow(bytes);
        } finally {
            lock.unlock();
        }
        if (increment > 0) {
            flusher.offer(new Http2Flusher.ControlEntry(
                    out -> generator.windowUpdate(out, stream.id(), increment), Callback.NOOP));
            if (Thread.currentThread() != deferringThread) {
                flusher.iterate();
            }
        }
    }

    /**
     * The response of a stream was sent and nothing will read its content: the exchange completed, or the session
     * answered the request itself (431, a bad target).
     */
    void onStreamCompleted(Http2Stream stream) {
        lock.lock();
        try {
            // From now on its DATA is discarded with the window kept open, and END_STREAM or RST_STREAM frees the
            // stream.
            stream.markCompleted();
            stream.releaseContent();
            if (stream.isRemoteClosed()) {
                streams.remove(stream.id());
            }
            // Otherwise the stream stays half-closed (local) until the client ends or resets it: its frames are still
            // judged by the stream rules (window overflow, DATA after END_STREAM) and its DATA is discarded with the
            // window kept open. A client that never ends it is reset by the stream idle timeout.
        } finally {
            lock.unlock();
        }
        afterStreamRemoved();
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
        failStream(stream, cause);
        afterStreamRemoved();
    }

    private void failStream(Http2Stream stream, Throwable cause) {
        boolean wake;
        lock.lock();
        try {
            wake = stream.onFailure(cause);
            stream.releaseContent();
        } finally {
            lock.unlock();
        }
        flusher.removeStream(stream, cause);
        if (wake && stream.exchange() != null) {
            stream.exchange().onContentAvailable();
        }
    }

    private void sendReset(int streamId, ErrorCode error) {
        rememberReset(streamId);
        flusher.offer(Http2Flusher.reset(streamId, error, generator));
        if (Thread.currentThread() != deferringThread) {
            flusher.iterate();
        }
    }

    private void rememberReset(int streamId) {
        recentlyReset[recentlyResetIndex++ % RECENTLY_RESET] = streamId;
    }

    /** Streams the client reset: a later frame on them is a STREAM_CLOSED error (RFC 9113 5.1), not ignored. */
    private void rememberPeerReset(int streamId) {
        for (int i = 0; i < RECENTLY_RESET; i++) {
            if (recentlyReset[i] == streamId) {
                recentlyReset[i] = 0;
            }
        }
    }

    private boolean wasRecentlyReset(int streamId) {
        for (int id : recentlyReset) {
            if (id == streamId) {
                return true;
            }
        }
        return false;
    }

    /**
     * Closes once the last stream is gone, if the connection is ending: after our GOAWAY, but never before it is
     * queued (the close would overtake it and the client would see the connection end without it; the GOAWAY's own
     * completion closes in that case); or after the client's GOAWAY, when we send none.
     */
    private void afterStreamRemoved() {
        if ((goAwayQueued || closing && !goAwaySent) && streamsEmpty()) {
            closeAfterFlush();
        }
    }

    private boolean streamsEmpty() {
        lock.lock();
        try {
            return streams.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    private void sendError(Http2Stream stream, int status, String reason) {
        HttpFields fields = new HttpFields(4);
        context.serverField().ifPresent(fields::add);
        if (context.config().sendDateHeader()) {
            fields.add(context.dateField().field());
        }
        fields.put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        byte[] body =
                (status + " " + HttpStatus.reason(status) + ": " + reason + "\n").getBytes(StandardCharsets.UTF_8);
        fields.put(HttpHeader.CONTENT_LENGTH, Integer.toString(body.length));
        context.statistics().onResponse(status);
        send(new Http2Flusher.ResponseEntry(
                stream,
                status,
                fields,
                ByteBuffer.wrap(body),
                true,
                null,
                Callback.from(InvocationType.NON_BLOCKING, () -> onStreamCompleted(stream), x -> {})));
    }

    // --- connection life cycle ------------------------------------------------------------------------------------

    /** Sends GOAWAY and closes once it is written (and, for NO_ERROR, once streams in progress completed). */
    private void goAway(ErrorCode error, String reason) {
        int last;
        lock.lock();
        try {
            // With onHeaders: the last stream id read here is the last stream that was (or will be) served.
            if (goAwaySent) {
                return;
            }
            goAwaySent = true;
            last = lastStreamId;
        } finally {
            lock.unlock();
        }
        flusher.offer(new Http2Flusher.ControlEntry(
                out -> generator.goAway(out, last, error, reason),
                Callback.from(
                        InvocationType.NON_BLOCKING,
                        () -> {
                            if (error != ErrorCode.NO_ERROR || streamsEmpty()) {
                                closeNow();
                            }
                        },
                        x -> closeNow())));
        goAwayQueued = true;
        if (error != ErrorCode.NO_ERROR) {
            failStreams(new IOException("HTTP/2 connection error " + error + ": " + reason));
        }
        flusher.iterate();
    }

    private void closeAfterFlush() {
        flusher.offer(new Http2Flusher.ControlEntry(
                out -> {}, Callback.from(InvocationType.NON_BLOCKING, this::closeNow, x -> closeNow())));
        flusher.iterate();
    }

    private void closeNow() {
        closed = true;
        endPoint().shutdownOutput();
        endPoint().close();
    }

    private void failStreams(Throwable cause) {
        List<Http2Stream> all;
        lock.lock();
        try {
            all = new ArrayList<>(streams.values());
            streams.clear();
        } finally {
            lock.unlock();
        }
        for (Http2Stream stream : all) {
            failStream(stream, cause);
        }
    }

    @Override
    public void onClose(Throwable cause) {
        closed = true;
        Throwable failure = cause != null ? cause : new EOFException("HTTP/2 connection closed");
        failStreams(failure);
        flusher.terminate(failure);
        cancelTimers();
        // The flusher's buffer is only touched under the lock or by a write that fails once the endpoint is closed:
        // it can go back now. The input belongs to the producer, which releases it when it sees `closed`: produce now,
        // here or, if a thread is producing (possibly this one, closing on end of input), by that thread once more.
        flusher.release();
        strategy.produce();
    }

    /** On the producer only. */
    private void releaseInput() {
        RetainableByteBuffer current = input;
        if (current != null) {
            input = null;
            current.release();
        }
    }

    private void cancelTimers() {
        Timeout ack = settingsAckTimeout;
        if (ack != null) {
            ack.cancel();
        }
        Timeout idle = streamIdleCheck;
        if (idle != null) {
            idle.cancel();
        }
    }

    @Override
    public boolean onIdleExpired() {
        if (streamsEmpty()) {
            goAway(ErrorCode.NO_ERROR, "idle timeout");
        }
        return false; // streams in progress have their own idle timeout; GOAWAY closes the connection when written
    }

    @Override
    public void shutdown() {
        // The GOAWAY is queued first: whatever closes the connection from now on closes after it.
        goAway(ErrorCode.NO_ERROR, "server shutting down");
        closing = true;
        if (streamsEmpty()) {
            closeAfterFlush();
        }
    }

    @Override
    public boolean isIdle() {
        return streamsEmpty();
    }

    /** Resets streams that made no progress for the stream idle timeout (a client that never opens its window). */
    private void scheduleStreamIdleCheck() {
        if (streamIdleCheck != null && !streamIdleCheck.isExpired() && !streamIdleCheck.isCancelled()) {
            return;
        }
        long period = Math.max(10, config.streamIdleTimeout().toMillis() / 2);
        streamIdleCheck = context.timer()
                .schedule(
                        Invocable.task(InvocationType.NON_BLOCKING, this::checkIdleStreams),
                        period,
                        TimeUnit.MILLISECONDS);
    }

    private void checkIdleStreams() {
        if (closed) {
            return;
        }
        long limit = config.streamIdleTimeout().toNanos();
        long now = System.nanoTime();
        List<Http2Stream> expired = new ArrayList<>();
        boolean any;
        lock.lock();
        try {
            for (Http2Stream stream : streams.values()) {
                if (stream.isWaitingForPeer() && now - stream.lastProgressNanos() > limit) {
                    expired.add(stream);
                }
            }
            any = streams.size() > expired.size();
        } finally {
            lock.unlock();
        }
        for (Http2Stream stream : expired) {
            resetStream(
                    stream,
                    stream.isCompleted() ? ErrorCode.NO_ERROR : ErrorCode.CANCEL,
                    new TimeoutException(
                            "stream " + stream.id() + " made no progress for " + config.streamIdleTimeout()));
        }
        streamIdleCheck = null;
        if (any) {
            scheduleStreamIdleCheck();
        }
    }

    /** @return the mode counts of this connection's strategy */
    public StrategyStatistics strategyStatistics() {
        return strategy.statistics();
    }

    @Override
    public String toString() {
        int count;
        lock.lock();
        try {
            count = streams.size();
        } finally {
            lock.unlock();
        }
        return "Http2ServerConnection@" + Integer.toHexString(hashCode()) + "{streams=" + count + ", last="
                + lastStreamId + (goAwaySent ? ", goaway" : "") + ", " + endPoint() + "}";
    }

    /** The connection send window, for the flusher, under the lock. */
    private final class WindowAccess implements Http2Flusher.Windows {
        @Override
        public int connectionSendWindow() {
            return connectionSendWindow;
        }

        @Override
        public void consumeConnectionSendWindow(int bytes) {
            connectionSendWindow -= bytes;
        }
    }
}
