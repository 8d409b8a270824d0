package dev.quarry.server.internal.h1;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.timer.Timeout;
import dev.quarry.http.BadMessageException;
import dev.quarry.http.HttpException;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.h1.HttpParser;
import dev.quarry.io.AbstractConnection;
import dev.quarry.io.EndPoint;
import dev.quarry.io.ServerConnector;
import dev.quarry.server.Content;
import dev.quarry.server.internal.BodyDataRate;
import dev.quarry.server.internal.Exchange;
import dev.quarry.server.internal.HttpStream;
import dev.quarry.server.internal.ResponseHead;
import dev.quarry.server.internal.ServerContext;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * An HTTP/1.1 server connection: parses requests, runs one exchange at a time (pipelined requests wait in the input
 * buffer and are answered in order), and writes responses.
 *
 * <p>Hot path, one request per read: the selector runs the read task in place; the request is parsed from a pooled
 * direct buffer into the fields of a recycled exchange (see {@link dev.quarry.server.internal.ExchangePool}: request,
 * response and their fields are reused, so a request allocates nothing); a non-blocking handler runs in place; the
 * response head and a small body are copied into one pooled direct buffer and written with one system call; the next
 * read is skipped when the last one did not fill the buffer (the socket is drained), so a request costs one read and
 * one write. Pipelined requests: responses completed in place while more requests are buffered are aggregated and
 * written together when the input runs dry. File content of a response with a Content-Length goes zero-copy: the head
 * is flushed, then the region is transferred from the file to the socket ({@link EndPoint#transfer}).
 *
 * <p>Threading: {@link #process()} runs on one thread at a time ({@link ProcessingActivity}): a call that comes while
 * another thread is inside (a read wake-up that a TLS endpoint delivers at once on another thread, an exchange
 * completed on a handler's thread before the thread that started it has left) makes that thread go round once more
 * instead of running alongside it. An exchange's handler may read, write and complete from any thread;
 * completion resumes processing on the completing thread, in non-blocking mode unless every blocking handler is
 * dispatched anyway. Buffers are released only by the activity that owns them (never from {@code onClose}, which may
 * run on any thread while they are in use).
 *
 * <p>This class keeps the connection's lifecycle and the processing state machine (read, parse, run the exchange,
 * discard unread content, close); its parts, one instance each per connection and called directly (final classes),
 * are {@link Http1Request} (the parser's listener: request head and content), {@link Http1ResponseWriter} (response
 * output), {@link Http1Buffers} (pooled input and output buffers), {@link Http2Handover} (prior knowledge and h2c)
 * and {@link ProcessingActivity} (who is processing, for a graceful shutdown).
 */
public final class Http1Connection extends AbstractConnection implements HttpStream {
    private static final System.Logger LOG = System.getLogger(Http1Connection.class.getName());
    /**
     * How many bytes one connection reads in a row before it yields its thread to the others (fairness: one client
     * sending as fast as it can must not stall the rest of its selector).
     */
    static final int FAIR_SHARE_BYTES = 128 * 1024;

    private static final int IDLE = 0;
    private static final int HANDLING = 1;
    private static final int ASYNC = 2;
    private static final int COMPLETED = 3;
    private static final VarHandle EXCHANGE_STATE;

    static {
        try {
            EXCHANGE_STATE = MethodHandles.lookup().findVarHandle(Http1Connection.class, "exchangeState", int.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final ServerContext context;
    private final Http1Request request;
    private final HttpParser parser;
    // IDLE, HANDLING, ASYNC or COMPLETED, through EXCHANGE_STATE (a field, not an AtomicInteger: every idle connection
    // keeps it). IDLE is 0.
    private volatile int exchangeState;
    // One of each per connection; the hot path calls them directly (final classes, monomorphic).
    private final Http1Buffers buffers;
    final Http1ResponseWriter writer;
    // Kept for the HTTP/2 hand-over, which is created only when it happens: an idle connection holds no more.
    private final ServerConnector connector;
    private final ProcessingActivity activity = new ProcessingActivity();
    // Plain fields, written by the processing thread only.
    private boolean drained;
    // Read only by a thread comparing it with itself (isHandlingInPlace): it sees its own writes, and never another
    // thread's value as its own, so a plain field is enough. Other threads ask the activity whether anyone processes.
    private Thread processingThread;
    volatile boolean shutdown;
    volatile boolean closed;
    // The exchange in progress.
    private volatile Exchange exchange;
    // An exchange completed asynchronously and awaits finishing by the thread that processes next (which resets the
    // parser, the request and the recycled exchange: only the processing thread may touch them).
    private volatile boolean finishPending;
    // The recycled exchange this connection holds from the start of a request (the parser fills its request fields)
    // until it waits for the network between requests, when it goes back to the server's pool: requests that follow
    // back to back reuse it, and an idle connection holds none. Confined to the processing thread.
    private Exchange recycled;
    // Counts the exchanges started, naming the one in progress for the timers (its object is recycled, so its
    // identity does not name it). Written by the processing thread before it publishes the exchange.
    private long exchangeNumber;
    // Bytes read since this connection last let the others have their turn; confined to the processing thread.
    private int readThisTurn;
    // The header timeout of a request head that did not arrive in one read (rare: allocated only then).
    private Timeout headerTimer;
    private volatile boolean headTimedOut;
    boolean persistent;
    // A completed exchange left part of its body unread: discarded before the next request is parsed.
    private boolean discarding;
    private long discarded;
    // The request body of the exchange in progress came too late: written by the timer, read by the reader.
    private volatile LateBody lateBody;
    // The minimum body data rate, null when there is none; counted by the reading side, checked on the timer.
    final BodyDataRate bodyRate;
    // The pending rate check and the exchange it is for (handler thread and timer; a stale one dies at its tick).
    private volatile Timeout bodyRateCheck;
    private volatile long bodyRateChecked = -1;

    /**
     * @param context the server's shared state
     * @param connector the connector that accepted the endpoint
     * @param endPoint the endpoint
     */
    public Http1Connection(ServerContext context, ServerConnector connector, EndPoint endPoint) {
        super(endPoint);
        this.context = context;
        this.buffers = new Http1Buffers(
                context.buffers(),
                context.config().inputBufferSize(),
                context.config().outputBufferSize());
        this.request = new Http1Request(this, context, endPoint, buffers);
        this.parser = request.parser;
        this.writer = new Http1ResponseWriter(this, request, context, endPoint, buffers);
        this.connector = connector;
        long minRate = context.config().minRequestBodyRate();
        this.bodyRate = minRate > 0 ? new BodyDataRate(minRate) : null;
    }

    @Override
    public String protocol() {
        return "http/1.1";
    }

    @Override
    public void onOpen() {
        context.statistics().onHttp1Connection();
        super.onOpen();
    }

    /**
     * Opens the connection with bytes already read (after an upgrade, or a detection step).
     *
     * @param buffered the bytes, in drain mode; copied
     */
    public void onOpen(ByteBuffer buffered) {
        if (buffered.hasRemaining()) {
            buffers.ensureInput(buffered.remaining());
            ByteBuffer in = buffers.input.byteBuffer();
            in.compact();
            in.put(buffered);
            in.flip();
        }
        context.statistics().onHttp1Connection();
        process();
    }

    @Override
    protected InvocationType readInvocationType() {
        // Waiting for content of an exchange in progress only wakes the handler; a new request may run handlers.
        return exchange != null ? InvocationType.NON_BLOCKING : context.readInvocationType();
    }

    @Override
    protected void onFillable() {
        Exchange current = exchange;
        if (current != null) {
            if (bodyRate != null) {
                bodyRate.onWaitOver();
            }
            current.onContentAvailable();
            return;
        }
        process();
    }

    @Override
    protected void onFillInterestedFailed(Throwable cause) {
        Exchange current = exchange;
        if (current != null) {
            if (bodyRate != null) {
                bodyRate.onWaitOver();
            }
            request.contentFailure = cause;
            current.onContentAvailable();
            return;
        }
        // Idle (waiting for a request): nothing else uses the buffers.
        buffers.releaseAll();
        endPoint().close(cause);
    }

    // --- processing of requests ----------------------------------------------------------------------------------

    /** Parses and handles buffered requests, reading more as needed, until it must wait. */
    private void process() {
        if (!activity.enter()) {
            // Another thread is processing, and goes round once more for this call before it leaves; or a graceful
            // shutdown closed the idle connection, and nothing may be read any more. Two threads processing at once
            // would share the parser and the buffers, and the first to leave would clear processingThread under the
            // second (or release the buffers it parses, if the connection closed meanwhile).
            return;
        }
        do {
            processRound();
        } while (activity.exit());
        if (closed && exchange == null && !activity.isProcessing()) {
            // A closeNow() on another thread between this round's last look at `closed` and the exit saw this thread
            // still processing and left the buffers to it (Dekker: the exit's CAS comes before this read of `closed`,
            // closeNow's write of it before its read of the activity). Releasing is idempotent.
            buffers.releaseAll();
        }
        if (shutdown) {
            // The shutdown may have found this thread processing and left the closing to it (Dekker: the flag is
            // written before the shutdown reads the activity, and read here after it changed).
            closeOrReadOnceMore();
        }
    }

    /** One round of {@link #process()}, by the thread that owns processing. */
    private void processRound() {
        processingThread = Thread.currentThread();
        try {
            if (finishPending) {
                finishPending = false;
                if (!finishExchange()) {
                    return;
                }
            }
            while (!closed && exchange == null) {
                if (discarding) {
                    if (!discardUnreadContent()) {
                        return;
                    }
                    continue;
                }
                if (headTimedOut && parser.isInHead()) {
                    headTimedOut = false;
                    sendBadMessage(new BadMessageException(
                            HttpStatus.REQUEST_TIMEOUT_408,
                            "request head not complete within "
                                    + context.config().headerTimeout().toMillis() + " ms"));
                    return;
                }
                if (request.parseHead()) {
                    cancelHeaderTimeout();
                    if (request.preface) {
                        handover().prior();
                        return;
                    }
                    if (request.badMessage != null) {
                        sendBadMessage(request.badMessage);
                        return;
                    }
                    if (mustFlushBeforeContinue() && !writer.flushThenResume()) {
                        return; // resumes with the head parsed already: parseHead() says so at once
                    }
                    if (!startExchange()) {
                        return;
                    }
                    continue;
                }
                if (!fill()) {
                    return;
                }
            }
        } catch (IOException x) {
            // The client's doing (a reset, a broken pipe), not a fault of the server: counted, one line at DEBUG.
            context.statistics().onPeerIoFailure();
            LOG.log(Level.DEBUG, () -> "connection failed on " + this + ": " + x);
            endPoint().close(x);
        } catch (Throwable x) {
            LOG.log(Level.WARNING, "processing failed on " + this, x);
            endPoint().close(x);
        } finally {
            processingThread = null;
            if (closed && exchange == null) {
                buffers.releaseAll();
            }
        }
    }

    /**
     * Reads more bytes.
     *
     * @return whether bytes were read and processing may go on; false if it must wait (fill interest, or a pending
     *     write whose completion resumes it) or the connection is done
     */
    private boolean fill() throws IOException {
        if (buffers.hasPendingOutput()) {
            return writer.flushThenResume();
        }
        if (readThisTurn >= FAIR_SHARE_BYTES) {
            // A client that keeps the socket full (a pipelined flood) would keep this thread, often a selector, to
            // itself: give the other connections their turn and come back when the selector says so.
            readThisTurn = 0;
            awaitFillable();
            return false;
        }
        if (drained && !shutdown) {
            // The last read did not fill the buffer: the socket had nothing more, so reading again now would only
            // return 0. Let the selector say when there is more. (Not when stopping: the next step is to close, and a
            // request that came meanwhile must be read first.)
            drained = false;
            if (waitForRequest(false)) {
                return false;
            }
            // The stop began meanwhile: read once more, below, before closing.
        }
        buffers.ensureInput(0);
        ByteBuffer in = buffers.input.byteBuffer();
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
            readThisTurn = drained ? 0 : readThisTurn + read;
            return true;
        }
        if (read == 0) {
            readThisTurn = 0;
            waitForRequest(true);
            return false;
        }
        onEndOfInput();
        return false;
    }

    /**
     * Waits for the next bytes of a request (fill interest), or closes a stopping connection between requests.
     *
     * @param socketEmpty whether a read just found the socket empty (false when the drained shortcut skipped it)
     * @return true if the connection now waits or closed; false if it is stopping and the socket was not read since:
     *     the caller reads once more, so that a request already there is answered rather than lost
     */
    private boolean waitForRequest(boolean socketEmpty) {
        if (shutdown && parser.isStart()) {
            if (!socketEmpty) {
                return false;
            }
            closeNow();
            return true;
        }
        if (buffers.input != null && !buffers.hasInput()) {
            buffers.releaseInput();
        }
        buffers.releaseOutputIfEmpty();
        if (recycled != null && exchange == null && parser.isStart()) {
            // No request begun: the exchange serves other connections while this one waits.
            context.exchanges().release(recycled);
            recycled = null;
        }
        if (headerTimer == null && parser.isInHead()) {
            // Part of a head came and the rest has to be waited for: from now on it has the header timeout to arrive,
            // however its bytes trickle in (each byte restarts the idle timeout, not this one).
            headTimedOut = false;
            headerTimer = context.timer()
                    .schedule(
                            Invocable.task(InvocationType.NON_BLOCKING, this::onHeaderTimeout),
                            context.config().headerTimeout());
        }
        awaitFillable();
        if (headTimedOut) {
            // The timeout fired between the last check and the fill interest, and found nothing to wake: wake it now,
            // from another thread (waking here would process re-entrantly).
            context.threads().execute(Invocable.task(InvocationType.NON_BLOCKING, endPoint()::wakeFill));
        }
        return true;
    }

    /**
     * Asks to process again when bytes come. The exchange's handler may have asked for content and completed without
     * waiting for the wake-up (it left the body unread, being discarded now, or read it all with {@code read()}): its
     * fill interest is still registered (a second one would fail with a ReadPendingException), and its wake-up, finding
     * no exchange, processes.
     */
    private void awaitFillable() {
        if (endPoint().isFillInterested()) {
            return;
        }
        fillInterested();
    }

    private void cancelHeaderTimeout() {
        Timeout timer = headerTimer;
        if (timer != null) {
            headerTimer = null;
            timer.cancel();
        }
    }

    /** On the timer's executor: the head is late. Processing answers 408 (it checks the flag), woken if it waits. */
    private void onHeaderTimeout() {
        headTimedOut = true;
        endPoint().wakeFill();
    }

    private void onEndOfInput() {
        parser.atEOF();
        parser.parse(buffers.inputOrEmpty());
        if (request.badMessage != null) {
            sendBadMessage(request.badMessage);
            return;
        }
        // The client is done sending: an idle connection closes (our output was flushed before reading).
        closeNow();
    }

    /**
     * Whether responses to earlier pipelined requests wait in the output buffer while the request that begins expects
     * 100 Continue. They go first: the 100 is written on its own when the handler asks for content, possibly on
     * another thread, which must not touch the output buffer, and a 100 written before them would be taken for an
     * interim response to the earlier request.
     */
    private boolean mustFlushBeforeContinue() {
        return buffers.hasPendingOutput() && parser.expectsContinue() && !request.messageComplete;
    }

    private boolean startExchange() {
        request.ready = false;
        if (Http2Handover.isH2cUpgrade(context, request) && handover().upgradeToH2c()) {
            return false; // the 101 is being written; HTTP/2 takes over
        }
        context.statistics().onHttp1Request();
        persistent = parser.isPersistent() && !shutdown;
        if (bodyRate != null) {
            bodyRate.reset();
        }
        String authority = request.fields.get(HttpHeader.HOST).orElse("");
        // Taken when the request began: the parser filled its request fields.
        Exchange started = recycled;
        try {
            started.start(
                    context,
                    this,
                    endPoint(),
                    request.method,
                    request.target,
                    request.version,
                    endPoint().isSecure() ? "https" : "http",
                    authority,
                    parser.contentLength());
        } catch (BadMessageException x) {
            recycled = null; // half started: dropped with the connection
            persistent = false;
            sendBadMessage(x);
            return false;
        }
        if (parser.expectsContinue() && !request.messageComplete) {
            // Nothing to ask for when there is no content (or it is all here already).
            request.expectContinue();
        }
        exchangeNumber++;
        exchange = started;
        exchangeState = HANDLING;
        started.handle();
        if (EXCHANGE_STATE.compareAndSet(this, HANDLING, ASYNC)) {
            return false; // the handler completes later, on another thread, which resumes processing
        }
        exchangeState = IDLE;
        return finishExchange();
    }

    // --- HttpStream: completion --------------------------------------------------------------------------------

    @Override
    public void succeeded() {
        if (EXCHANGE_STATE.compareAndSet(this, HANDLING, COMPLETED)) {
            return; // completed inside handle(): the processing thread carries on
        }
        if (!EXCHANGE_STATE.compareAndSet(this, ASYNC, IDLE)) {
            LOG.log(Level.WARNING, "exchange completed in state " + exchangeState + " on " + this);
            return;
        }
        // Finished by whoever processes next, this thread or one still inside (a wake-up, or the thread that started
        // the exchange on its way out): finishing here would reset the parser and recycle the exchange under a thread
        // that a wake-up let in meanwhile.
        finishPending = true;
        resume();
    }

    @Override
    public void failed(Throwable failure) {
        LOG.log(Level.DEBUG, () -> "exchange failed on " + this + ": " + failure);
        persistent = false;
        closed = true;
        endPoint().close(failure);
        // Only an exchange left asynchronous has no thread processing the connection; then this thread owns the
        // buffers. In IDLE, HANDLING or COMPLETED a processing thread may be using them: it releases them when it sees
        // the connection closed (and an idle connection's failed fill interest does).
        if ((int) EXCHANGE_STATE.getAndSet(this, IDLE) == ASYNC) {
            exchange = null;
            buffers.releaseAll();
        }
    }

    /**
     * Resumes processing on the thread that completed an exchange asynchronously. The next pipelined request's handler
     * goes through the dispatch point like any other, which reads this thread's mark: a selector thread completing a
     * write (marked) dispatches a blocking handler; a handler's own thread (a virtual thread) may run it in place.
     */
    private void resume() {
        process();
    }

    /**
     * The fields of the request that begins: those of the connection's recycled exchange, taken from the server's pool
     * if the connection holds none.
     */
    HttpFields nextRequestFields() {
        Exchange next = recycled;
        if (next == null) {
            next = context.exchanges().acquire();
            recycled = next;
        }
        return next.request().headers();
    }

    /** @return whether processing may continue with the next request */
    private boolean finishExchange() {
        Exchange finished = exchange;
        exchange = null;
        cancelBodyRateCheck();
        if (request.contentFailure != null || writer.mustClose()) {
            persistent = false; // a content failure also means the end of the request cannot be found
        }
        request.clear();
        writer.reset();
        if (!persistent || closed || !endPoint().isOpen()) {
            recycled = null; // the connection ends: its exchange, possibly failed, is left to the garbage collector
            closeAfterOutput();
            return false;
        }
        // Completed normally (the stream's succeeded()), and the handler has no more claim on it: the next request
        // reuses it.
        finished.recycle();
        if (!request.messageComplete) {
            // The handler left part of the body unread: process() reads and discards it before the next request.
            discarding = true;
            discarded = 0;
            return true;
        }
        request.messageComplete = false;
        parser.reset();
        return true;
    }

    /**
     * Reads and discards the rest of a body the handler did not read, up to the configured limit, from the input
     * buffer and then from the network as it arrives; beyond the limit the connection closes.
     *
     * @return true once the body is complete and the next request may be parsed; false if processing must wait for
     *     more bytes (fill interest or a pending flush resumes it) or the connection is closing
     */
    private boolean discardUnreadContent() throws IOException {
        long limit = context.config().maxUnconsumedContent();
        while (true) {
            if (request.content != null) {
                discarded += request.content.remaining();
                request.content.release();
                request.content = null;
            }
            if (request.messageComplete) {
                discarding = false;
                request.messageComplete = false;
                parser.reset();
                return true;
            }
            if (request.contentFailure != null || discarded > limit || parser.isClosed()) {
                // Too much to be worth reading, or the end of the request cannot be found: close.
                discarding = false;
                persistent = false;
                closeAfterOutput();
                return false;
            }
            if (request.parseBufferedContent()) {
                continue;
            }
            if (!fill()) {
                return false;
            }
        }
    }

    // --- HttpStream: content -------------------------------------------------------------------------------------

    @Override
    public Content.Chunk read() {
        return request.read();
    }

    @Override
    public void demand() {
        if (closed || request.isReadable()) {
            // A concurrent failed() may have ended the exchange: then there is no reader left to call back.
            Exchange current = exchange;
            if (current != null) {
                current.onContentAvailable();
            }
            return;
        }
        if (bodyRate != null) {
            bodyRate.onWaiting();
            armBodyRateCheck();
        }
        ContinueGate owed = request.expectation;
        if (owed != null && owed.onDemand()) {
            // RFC 9110 10.1.1: the client is told to send the body; the 100's write asks for it once written.
            return;
        }
        fillInterested();
    }

    /** The 100 Continue was written: the client sends the content now. */
    void onContinueWritten() {
        fillInterested();
    }

    // --- late request bodies ------------------------------------------------------------------------------------

    /**
     * The idle timeout expired. A handler waiting for request content that the client stopped sending gets a 408 (its
     * reads fail; the exchange answers it unless the response was committed, then the connection closes), instead of
     * the connection closing under it and the failure counting as the server's. Anything else closes, as does a
     * second expiry.
     */
    @Override
    public boolean onIdleExpired() {
        Exchange current = exchange;
        long number = exchangeNumber;
        if (current == null || !endPoint().isFillInterested() || lateBodyOf(number) != null) {
            return true;
        }
        failLateBody(
                number,
                new HttpException(
                        HttpStatus.REQUEST_TIMEOUT_408,
                        "no request content for " + endPoint().idleTimeout() + " ms"));
        return false;
    }

    /** On the handler's thread, when it must wait for content: makes sure the rate of this body is being checked. */
    private void armBodyRateCheck() {
        long number = exchangeNumber;
        if (exchange != null && bodyRateChecked != number) {
            bodyRateChecked = number;
            scheduleBodyRateCheck(number);
        }
    }

    private void scheduleBodyRateCheck(long number) {
        bodyRateCheck = context.timer()
                .schedule(
                        Invocable.task(InvocationType.NON_BLOCKING, () -> checkBodyRate(number)),
                        BodyDataRate.CHECK_PERIOD_MILLIS,
                        TimeUnit.MILLISECONDS);
    }

    /** On the timer, while the exchange reads its body: fails a body slower than the minimum rate. */
    private void checkBodyRate(long checked) {
        if (exchange == null
                || exchangeNumber != checked
                || closed
                || request.messageComplete
                || lateBodyOf(checked) != null) {
            return; // finished, or failed already: nothing more to check for this exchange
        }
        if (bodyRate.isTooSlow()) {
            failLateBody(checked, bodyRate.failure());
            return;
        }
        scheduleBodyRateCheck(checked);
    }

    private void cancelBodyRateCheck() {
        Timeout check = bodyRateCheck;
        if (check != null) {
            check.cancel(); // a check rescheduled meanwhile finds its exchange gone and stops
        }
    }

    /** From the timer: the exchange's reads fail from now on, and a waiting reader is woken to find out. */
    private void failLateBody(long number, HttpException failure) {
        lateBody = new LateBody(number, failure);
        endPoint().wakeFill();
    }

    /** @return the failure of a late body of the exchange of that number, or null */
    private HttpException lateBodyOf(long number) {
        LateBody late = lateBody;
        return late != null && late.exchangeNumber() == number ? late.failure() : null;
    }

    /** @return the failure of a late body of the exchange in progress, or null; one volatile read when there is none */
    HttpException lateBody() {
        LateBody late = lateBody;
        return late != null && exchange != null && late.exchangeNumber() == exchangeNumber ? late.failure() : null;
    }

    /**
     * A request body that came too late (idle timeout, or too slow), for one exchange (by number): its reads fail with
     * 408.
     */
    private record LateBody(long exchangeNumber, HttpException failure) {}

    // --- HttpStream: sending -------------------------------------------------------------------------------------

    @Override
    public void send(
            ResponseHead head, ByteBuffer content, boolean last, Supplier<HttpFields> trailers, Callback callback) {
        writer.send(head, content, last, trailers, callback);
    }

    @Override
    public boolean canSendFile(ResponseHead head) {
        return writer.canSendFile(head);
    }

    @Override
    public void sendFile(
            ResponseHead head, FileChannel file, long position, long count, boolean last, Callback callback) {
        writer.sendFile(head, file, position, count, last, callback);
    }

    /**
     * Whether the caller is the handler of the current exchange, still inside {@code handle()} on the processing
     * thread: a response it completes may wait in the output buffer for the responses to the requests that follow.
     */
    boolean isHandlingInPlace() {
        return processingThread == Thread.currentThread() && exchangeState == HANDLING;
    }

    @Override
    public boolean isBroken() {
        return closed || !endPoint().isOpen();
    }

    /** @return whether an exchange is in progress */
    boolean hasExchange() {
        return exchange != null;
    }

    /** Aggregated responses were written: processing goes on where it stopped. */
    void onFlushed() {
        process();
    }

    void onWriteFailed(Throwable failure) {
        closed = true;
        endPoint().close(failure);
        if (exchange == null) {
            buffers.releaseAll();
        }
    }

    // --- errors and closing ----------------------------------------------------------------------------------------

    private void sendBadMessage(BadMessageException failure) {
        cancelHeaderTimeout();
        request.badMessage = null;
        persistent = false;
        parser.close();
        LOG.log(Level.DEBUG, () -> "bad request on " + this + ": " + failure.status() + " " + failure.reason());
        context.statistics().onResponse(failure.status());
        buffers.ensureOutput();
        try {
            if (request.version == null) {
                request.version = HttpVersion.HTTP_1_1;
            }
            if (request.method == null) {
                request.method = "GET";
            }
            writer.writeError(failure, request.version, request.method);
        } catch (RuntimeException x) {
            LOG.log(Level.DEBUG, "could not write the error response on " + this, x);
        }
        closeAfterOutput();
    }

    /** Flushes what is pending, then closes: output first (FIN), so the client reads the whole response. */
    private void closeAfterOutput() {
        closed = true;
        if (buffers.hasPendingOutput() && endPoint().isOpen()) {
            writer.writeLastThenClose();
            return;
        }
        closeNow();
    }

    void closeNow() {
        closed = true;
        // Lingering: the client may still be sending, and unread bytes at close would turn our FIN into RST.
        endPoint().closeLingering(EndPoint.DEFAULT_LINGER_MILLIS);
        // Called from other threads too (the callback of the closing write): the activity, not processingThread (a
        // plain field for its own thread), says whether a thread is processing and will release the buffers itself.
        if (exchange == null && !activity.isProcessing()) {
            buffers.releaseAll();
        }
    }

    @Override
    public void onClose(Throwable cause) {
        closed = true;
        Timeout timer = headerTimer; // a racy read is fine: cancelling is idempotent, and a late expiry finds nothing
        if (timer != null) {
            timer.cancel();
        }
        cancelBodyRateCheck();
        // Buffers are not released here: another thread may be using them. Their owner releases them.
    }

    @Override
    public void shutdown() {
        shutdown = true;
        // An idle connection may hold a request in its socket buffer that its selector has not reported yet: the
        // client sent it before the signal and must get its answer (with Connection: close), not a closed socket.
        // Complete the fill interest as if the socket were readable: processing answers what is there, or finds
        // nothing and closes (waitForRequest). Off the caller's thread, which shuts down every connection in turn.
        closeOrReadOnceMore();
        // Otherwise the exchange in progress completes with Connection: close, or processing closes the connection
        // once it waits for a request.
    }

    /**
     * Stopping: a connection waiting between requests reads once more (off this thread) before it closes. One waiting
     * for the rest of a head is left to its fill interest: the head completes, or the shutdown timeout cuts it.
     */
    private void closeOrReadOnceMore() {
        // Fill interest is registered at the end of processing: nobody processes now, and the parser is not changing.
        if (endPoint().isFillInterested() && parser.isStart()) {
            context.threads().execute(Invocable.task(InvocationType.NON_BLOCKING, this::wakeForShutdown));
            return;
        }
        closeIfIdle();
    }

    private void wakeForShutdown() {
        if (!endPoint().wakeFill()) {
            closeIfIdle(); // the selector got there first, or the connection is busy: processing closes it later
        }
    }

    /**
     * Closes the connection for a graceful shutdown, from any thread, if it is idle: no thread processing, no request
     * read (even partly) and not answered, nothing left to write. A request whose bytes were read is always answered:
     * the close wins only if no processing started or ended since the idle state was observed (the generation in
     * {@link #activity} changes at every entry and exit), and then no processing can start any more.
     */
    private void closeIfIdle() {
        long state = activity.quiescent();
        if (state == ProcessingActivity.CLOSED_IDLE) {
            return; // closed already, or a thread is processing: it calls here when it leaves
        }
        // Nobody processes, so these were last written before the exit that this read of the activity follows.
        boolean idle = exchange == null
                && !discarding
                && !writer.flushPending
                && parser.isStart()
                && !buffers.hasInput()
                && !buffers.hasPendingOutput();
        if (!idle || !activity.closeIfUnchanged(state)) {
            return; // busy, or processing started meanwhile: the exchange or the processing closes later
        }
        closed = true;
        endPoint().close();
        buffers.releaseAll();
    }

    @Override
    public boolean isIdle() {
        return exchange == null && parser.isIdle();
    }

    private Http2Handover handover() {
        return new Http2Handover(this, request, context, connector, endPoint(), buffers);
    }

    @Override
    public String toString() {
        return "Http1Connection@" + Integer.toHexString(hashCode()) + "{" + parser.state() + ", exchange=" + exchange
                + (discarding ? ", discarding" : "") + (shutdown ? ", shutting down" : "") + ", " + endPoint() + "}";
    }
}
