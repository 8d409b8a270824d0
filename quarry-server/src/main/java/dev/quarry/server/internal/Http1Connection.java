package dev.quarry.server.internal;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.buffer.RetainableByteBuffer;
import dev.quarry.http.BadMessageException;
import dev.quarry.http.HttpField;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.h1.Framing;
import dev.quarry.http.h1.HttpGenerator;
import dev.quarry.http.h1.HttpParser;
import dev.quarry.http.h1.HttpRequestListener;
import dev.quarry.io.AbstractConnection;
import dev.quarry.io.Connection;
import dev.quarry.io.EndPoint;
import dev.quarry.io.ServerConnector;
import dev.quarry.server.Content;
import java.io.EOFException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * An HTTP/1.1 server connection: parses requests, runs one exchange at a time (pipelined requests wait in the input
 * buffer and are answered in order), and writes responses.
 *
 * <p>Hot path, one request per read: the selector runs the read task in place; the request is parsed from a pooled
 * direct buffer with no allocation beyond the request's fields; a non-blocking handler runs in place; the response
 * head and a small body are copied into one pooled direct buffer and written with one system call; the next read is
 * skipped when the last one did not fill the buffer (the socket is drained), so a request costs one read and one
 * write. Pipelined requests: responses completed in place while more requests are buffered are aggregated and written
 * together when the input runs dry. File content of a response with a Content-Length goes zero-copy: the head is
 * flushed, then the region is transferred from the file to the socket ({@link EndPoint#transfer}).
 *
 * <p>Threading: {@link #process()} runs on one thread at a time (the read callback is one-shot, and an exchange in
 * progress stops processing until it completes). An exchange's handler may read, write and complete from any thread;
 * completion resumes processing on the completing thread, in non-blocking mode unless every blocking handler is
 * dispatched anyway. Buffers are released only by the activity that owns them (never from {@code onClose}, which may
 * run on any thread while they are in use).
 */
public final class Http1Connection extends AbstractConnection implements HttpRequestListener, HttpStream {
    private static final System.Logger LOG = System.getLogger(Http1Connection.class.getName());
    private static final int IDLE = 0;
    private static final int HANDLING = 1;
    private static final int ASYNC = 2;
    private static final int COMPLETED = 3;
    private static final HttpFields NO_TRAILERS = new HttpFields(0).asImmutable();
    private static final byte[] CONTINUE = HttpGenerator.continueBytes();
    private static final byte[] SWITCHING_TO_H2C =
            "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII);
    private static final long ACTIVE = 0xFFFF;
    private static final long GENERATIONS = (1L << 46) - 1;
    private static final long CLOSED_IDLE = -1;
    private static final VarHandle INPUT;
    private static final VarHandle OUTPUT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            INPUT = lookup.findVarHandle(Http1Connection.class, "input", RetainableByteBuffer.class);
            OUTPUT = lookup.findVarHandle(Http1Connection.class, "output", RetainableByteBuffer.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final ServerContext context;
    private final ServerConnector connector;
    private final ByteBufferPool buffers;
    private final HttpParser parser;
    private final HttpGenerator generator = new HttpGenerator();
    private final AtomicInteger exchangeState = new AtomicInteger(IDLE);
    private final SendCallback sendCallback = new SendCallback();
    private final FileSend fileSend = new FileSend();
    private final Callback flushed = Callback.from(InvocationType.NON_BLOCKING, this::onFlushed, this::onWriteFailed);
    private final Runnable resumeProcessing = this::process;
    // Plain fields, confined to the processing or writing thread; the final release swaps them atomically.
    private RetainableByteBuffer input;
    private RetainableByteBuffer output;
    private boolean drained;
    private Thread processingThread;
    // Threads inside process() (low 16 bits) and a generation changed by every entry and exit (above), or
    // CLOSED_IDLE once a graceful shutdown closed the connection while it was idle.
    private final AtomicLong activity = new AtomicLong();
    // Aggregated responses are being written; processing resumes when they are (plain: see closeIfIdle()).
    private boolean flushPending;
    private volatile boolean shutdown;
    private volatile boolean closed;
    // The request being parsed.
    private String method;
    private String target;
    private HttpVersion version;
    private HttpFields requestFields;
    private boolean requestReady;
    private boolean preface;
    private BadMessageException badMessage;
    // The exchange in progress.
    private volatile Exchange exchange;
    private Content.Chunk content;
    private Throwable contentFailure;
    private boolean messageComplete;
    private boolean persistent;
    private boolean continuePending;
    private Framing framing;
    // A completed exchange left part of its body unread: discarded before the next request is parsed.
    private boolean discarding;
    private long discarded;

    /**
     * @param context the server's shared state
     * @param connector the connector that accepted the endpoint
     * @param endPoint the endpoint
     */
    public Http1Connection(ServerContext context, ServerConnector connector, EndPoint endPoint) {
        super(endPoint);
        this.context = context;
        this.connector = connector;
        this.buffers = context.buffers();
        this.parser = new HttpParser(this, context.config().parser());
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
            ensureInput(buffered.remaining());
            ByteBuffer in = input.byteBuffer();
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
            current.onContentAvailable();
            return;
        }
        process();
    }

    @Override
    protected void onFillInterestedFailed(Throwable cause) {
        Exchange current = exchange;
        if (current != null) {
            contentFailure = cause;
            current.onContentAvailable();
            return;
        }
        // Idle (waiting for a request): nothing else uses the buffers.
        releaseBuffers();
        endPoint().close(cause);
    }

    // --- processing of requests ----------------------------------------------------------------------------------

    /** Parses and handles buffered requests, reading more as needed, until it must wait. */
    private void process() {
        if (!enterProcessing()) {
            return; // a graceful shutdown closed the idle connection: nothing may be read any more
        }
        processingThread = Thread.currentThread();
        try {
            while (!closed && exchange == null) {
                if (discarding) {
                    if (!discardUnreadContent()) {
                        return;
                    }
                    continue;
                }
                if (parseRequest()) {
                    if (preface) {
                        upgradeToHttp2();
                        return;
                    }
                    if (badMessage != null) {
                        sendBadMessage(badMessage);
                        return;
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
        } catch (Throwable x) {
            LOG.log(Level.WARNING, "processing failed on " + this, x);
            endPoint().close(x);
        } finally {
            processingThread = null;
            if (closed && exchange == null) {
                releaseBuffers();
            }
            exitProcessing();
        }
    }

    private boolean enterProcessing() {
        while (true) {
            long state = activity.get();
            if (state == CLOSED_IDLE) {
                return false;
            }
            if (activity.compareAndSet(state, nextGeneration(state) | ((state & ACTIVE) + 1))) {
                return true;
            }
        }
    }

    private void exitProcessing() {
        while (true) {
            long state = activity.get();
            if (activity.compareAndSet(state, nextGeneration(state) | ((state & ACTIVE) - 1))) {
                break;
            }
        }
        if (shutdown) {
            // The shutdown may have found this thread processing and left the closing to it (Dekker: the flag is
            // written before the shutdown reads the activity, and read here after it changed).
            closeIfIdle();
        }
    }

    private static long nextGeneration(long state) {
        return ((state >>> 16) + 1 & GENERATIONS) << 16;
    }

    /** @return whether a request head (or the h2 preface, or a bad message) is ready */
    private boolean parseRequest() {
        if (input != null && input.byteBuffer().hasRemaining()) {
            parser.parse(input.byteBuffer());
        }
        return requestReady || preface || badMessage != null;
    }

    /**
     * Reads more bytes.
     *
     * @return whether bytes were read and processing may go on; false if it must wait (fill interest, or a pending
     *     write whose completion resumes it) or the connection is done
     */
    private boolean fill() throws IOException {
        if (hasPendingOutput()) {
            return flushOutputThenResume();
        }
        if (drained) {
            // The last read did not fill the buffer: the socket had nothing more, so reading again now would only
            // return 0. Let the selector say when there is more.
            drained = false;
            waitForRequest();
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
            waitForRequest();
            return false;
        }
        onEndOfInput();
        return false;
    }

    private void waitForRequest() {
        if (shutdown && parser.isStart()) {
            closeNow();
            return;
        }
        if (input != null && !input.byteBuffer().hasRemaining()) {
            releaseInput();
        }
        releaseOutputIfEmpty();
        fillInterested();
    }

    private void onEndOfInput() {
        parser.atEOF();
        if (input != null) {
            parser.parse(input.byteBuffer());
        } else {
            parser.parse(ServerResponse.EMPTY.duplicate());
        }
        if (badMessage != null) {
            sendBadMessage(badMessage);
            return;
        }
        // The client is done sending: an idle connection closes (our output was flushed before reading).
        closeNow();
    }

    private boolean startExchange() {
        requestReady = false;
        if (isH2cUpgrade() && upgradeToH2c()) {
            return false; // the 101 is being written; HTTP/2 takes over
        }
        context.statistics().onHttp1Request();
        persistent = parser.isPersistent() && !shutdown;
        // Nothing to ask for when there is no content (or it is all here already).
        continuePending = parser.expectsContinue() && !messageComplete;
        String authority = requestFields.get(HttpHeader.HOST).orElse("");
        Exchange started;
        try {
            started = new Exchange(
                    context,
                    this,
                    endPoint(),
                    method,
                    target,
                    version,
                    requestFields,
                    "http",
                    authority,
                    parser.contentLength());
        } catch (BadMessageException x) {
            persistent = false;
            sendBadMessage(x);
            return false;
        }
        exchange = started;
        exchangeState.set(HANDLING);
        started.handle();
        if (exchangeState.compareAndSet(HANDLING, ASYNC)) {
            return false; // the handler completes later, on another thread, which resumes processing
        }
        exchangeState.set(IDLE);
        return finishExchange();
    }

    // --- HttpStream: completion --------------------------------------------------------------------------------

    @Override
    public void succeeded() {
        if (exchangeState.compareAndSet(HANDLING, COMPLETED)) {
            return; // completed inside handle(): the processing thread carries on
        }
        if (!exchangeState.compareAndSet(ASYNC, IDLE)) {
            LOG.log(Level.WARNING, "exchange completed in state " + exchangeState.get() + " on " + this);
            return;
        }
        if (finishExchange()) {
            resume();
        }
    }

    @Override
    public void failed(Throwable failure) {
        LOG.log(Level.DEBUG, () -> "exchange failed on " + this + ": " + failure);
        persistent = false;
        closed = true;
        endPoint().close(failure);
        int state = exchangeState.getAndSet(IDLE);
        if (state != HANDLING) {
            exchange = null;
            releaseBuffers();
        }
    }

    /** Resumes processing on the thread that completed an exchange asynchronously. */
    private void resume() {
        if (context.readInvocationType() == InvocationType.NON_BLOCKING) {
            process();
        } else {
            // This thread may be an I/O thread completing a write: run blocking handlers elsewhere.
            Invocable.invokeNonBlocking(resumeProcessing);
        }
    }

    /** @return whether processing may continue with the next request */
    private boolean finishExchange() {
        exchange = null;
        if (content != null) {
            content.release();
            content = null;
        }
        if (contentFailure != null || generator.mustClose()) {
            persistent = false; // a content failure also means the end of the request cannot be found
        }
        // A request line that fails to parse must not be answered as if it had the previous request's method (a
        // HEAD would suppress the error's body) or version.
        method = null;
        target = null;
        version = null;
        requestFields = null;
        contentFailure = null;
        continuePending = false;
        framing = null;
        generator.reset();
        if (!persistent || closed || !endPoint().isOpen()) {
            closeAfterOutput();
            return false;
        }
        if (!messageComplete) {
            // The handler left part of the body unread: process() reads and discards it before the next request.
            discarding = true;
            discarded = 0;
            return true;
        }
        messageComplete = false;
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
            if (content != null) {
                discarded += content.remaining();
                content.release();
                content = null;
            }
            if (messageComplete) {
                discarding = false;
                messageComplete = false;
                parser.reset();
                return true;
            }
            if (contentFailure != null || discarded > limit || parser.isClosed()) {
                // Too much to be worth reading, or the end of the request cannot be found: close.
                discarding = false;
                persistent = false;
                closeAfterOutput();
                return false;
            }
            if (parseBufferedContent()) {
                continue;
            }
            if (!fill()) {
                return false;
            }
        }
    }

    /**
     * Parses buffered content, or lets the parser report the end of the content when all of it was already consumed
     * (the parser emits contentComplete and messageComplete on a later call, even with no bytes).
     *
     * @return whether the parser was called
     */
    private boolean parseBufferedContent() {
        if (input != null && input.byteBuffer().hasRemaining()) {
            parser.parse(input.byteBuffer());
            return true;
        }
        HttpParser.State state = parser.state();
        if (state == HttpParser.State.CONTENT_END || state == HttpParser.State.MESSAGE_END) {
            parser.parse(input != null ? input.byteBuffer() : ServerResponse.EMPTY.duplicate());
            return true;
        }
        return false;
    }

    // --- HttpRequestListener -------------------------------------------------------------------------------------

    @Override
    public void startRequest(String method, String target, HttpVersion version) {
        this.method = method;
        this.target = target;
        this.version = version;
        this.requestFields = new HttpFields(16);
    }

    @Override
    public void header(HttpField field) {
        requestFields.add(field);
    }

    @Override
    public boolean headerComplete() {
        requestReady = true;
        // Without content, let the parser also complete the message now; with content, stop so that the body is
        // parsed only when the handler asks for it.
        return parser.contentLength() != 0;
    }

    @Override
    public boolean content(ByteBuffer chunk) {
        // The client sends the content without waiting for 100 Continue, as it may (RFC 9110 §10.1.1): no interim
        // response is due any more, and once it is all read the connection stays reusable.
        continuePending = false;
        RetainableByteBuffer owner = input;
        owner.retain();
        content = new InputChunk(chunk.slice(), owner);
        chunk.position(chunk.limit());
        return true;
    }

    @Override
    public boolean contentComplete() {
        return false;
    }

    @Override
    public void trailer(HttpField field) {
        // Trailers are parsed and validated; exposing them to handlers is not part of the request API yet.
    }

    @Override
    public boolean messageComplete() {
        messageComplete = true;
        return true;
    }

    @Override
    public void badMessage(BadMessageException failure) {
        if (exchange != null) {
            contentFailure = failure;
            // The rest of the stream cannot be framed: whatever the response, it is the last one (Connection: close).
            persistent = false;
        } else {
            badMessage = failure;
        }
    }

    @Override
    public void earlyEOF() {
        if (exchange != null) {
            contentFailure = new EOFException("the client closed the connection before sending the whole request");
        }
    }

    @Override
    public void http2Preface() {
        if (context.http2().isEmpty()) {
            HttpRequestListener.super.http2Preface();
        }
        preface = true;
    }

    // --- HttpStream: content -------------------------------------------------------------------------------------

    @Override
    public Content.Chunk read() {
        while (true) {
            if (content != null) {
                Content.Chunk chunk = content;
                content = null;
                return chunk;
            }
            if (contentFailure != null) {
                return Content.Chunk.failed(contentFailure);
            }
            if (messageComplete) {
                return Content.Chunk.EOF;
            }
            if (closed || !endPoint().isOpen()) {
                contentFailure = new EOFException("connection closed while reading the request content");
                continue;
            }
            if (parseBufferedContent()) {
                continue;
            }
            if (continuePending) {
                return null; // the 100 Continue goes out with the demand
            }
            if (!fillContent()) {
                return null;
            }
        }
    }

    /** Reads content from the network without blocking; false if none is available now. */
    private boolean fillContent() {
        ensureInput(0);
        ByteBuffer in = input.byteBuffer();
        in.compact();
        int read;
        try {
            read = endPoint().fill(in);
        } catch (IOException x) {
            contentFailure = x;
            return true;
        } finally {
            in.flip();
        }
        if (read < 0) {
            parser.atEOF();
            parser.parse(in);
            if (!messageComplete && contentFailure == null) {
                contentFailure = new EOFException("the client closed the connection before sending the whole request");
            }
            return true;
        }
        return read > 0;
    }

    @Override
    public void demand() {
        if (content != null || contentFailure != null || messageComplete || closed || parseBufferedContentPending()) {
            exchange.onContentAvailable();
            return;
        }
        if (continuePending) {
            continuePending = false;
            // RFC 9110 10.1.1: tell the client to send the body, then wait for it.
            endPoint()
                    .write(
                            Callback.from(InvocationType.NON_BLOCKING, this::fillInterested, this::onWriteFailed),
                            ByteBuffer.wrap(CONTINUE));
            return;
        }
        fillInterested();
    }

    private boolean parseBufferedContentPending() {
        HttpParser.State state = parser.state();
        return (input != null && input.byteBuffer().hasRemaining())
                || state == HttpParser.State.CONTENT_END
                || state == HttpParser.State.MESSAGE_END;
    }

    // --- HttpStream: sending -------------------------------------------------------------------------------------

    @Override
    public void send(
            ResponseHead head, ByteBuffer content, boolean last, Supplier<HttpFields> trailers, Callback callback) {
        if (head != null) {
            // Throws, having written nothing, if a field cannot be encoded: the exchange then answers 500 instead.
            commit(head);
        }
        try {
            ensureOutput(context.config().outputBufferSize());
            ByteBuffer out = output.byteBuffer();
            boolean body = framing != Framing.NONE;
            int length = body ? content.remaining() : 0;
            if (!body) {
                content.position(content.limit());
            }
            boolean chunked = framing == Framing.CHUNKED;
            HttpFields trailerFields = NO_TRAILERS;
            if (last && chunked && trailers != null) {
                HttpFields supplied = trailers.get();
                if (supplied != null) {
                    trailerFields = supplied;
                }
            }
            // The generator owns chunk framing: a chunk header starts with the CRLF that closes the previous chunk,
            // and the last chunk closes the open one.
            int framingBytes = chunked ? 20 + (last ? 8 : 0) : 0;
            if (trailerFields.isEmpty() && length + framingBytes <= out.remaining()) {
                if (chunked && length > 0) {
                    generator.writeChunkHeader(out, length);
                }
                out.put(content);
                if (last) {
                    if (chunked) {
                        generator.writeLastChunk(out, NO_TRAILERS);
                    }
                    generator.completeContent();
                    if (mayDeferFlush()) {
                        callback.succeeded(); // aggregated with the responses to the requests that follow
                        return;
                    }
                }
                flush(callback, null, null);
                return;
            }
            // Large content: gather-write it without copying, with the head and chunk framing around it.
            if (chunked && length > 0) {
                generator.writeChunkHeader(out, length);
            }
            ByteBuffer tail = null;
            if (last) {
                if (chunked) {
                    ByteBuffer lastChunk = ByteBuffer.allocate(64 + 128 * trailerFields.size());
                    while (true) {
                        try {
                            generator.writeLastChunk(lastChunk, trailerFields);
                            break;
                        } catch (BufferOverflowException x) {
                            lastChunk = ByteBuffer.allocate(lastChunk.capacity() * 4);
                        }
                    }
                    lastChunk.flip();
                    tail = lastChunk;
                }
                generator.completeContent();
            }
            flush(callback, length > 0 ? content : null, tail);
        } catch (Throwable x) {
            callback.failed(x);
        }
    }

    /** Writes the response head into the output buffer; throws, having written nothing, if it cannot be encoded. */
    private void commit(ResponseHead head) {
        ensureOutput(context.config().outputBufferSize());
        if (continuePending) {
            // The response is committed before the body was asked for: the body will not be read, so the connection
            // cannot be reused (the client may still send it).
            continuePending = false;
            persistent = false;
        }
        if (shutdown) {
            // The server is stopping: an exchange that began before is answered, and told it is the last one.
            persistent = false;
        }
        framing = writeHead(head);
    }

    /** Zero-copy needs a transport that sends file bytes as they are and Content-Length framing (not chunked, not HEAD). */
    @Override
    public boolean canSendFile(ResponseHead head) {
        if (!endPoint().canTransferFiles()) {
            return false;
        }
        Framing next =
                head != null ? HttpGenerator.framing(version, method, head.status(), head.contentLength()) : framing;
        return next == Framing.CONTENT_LENGTH;
    }

    @Override
    public void sendFile(
            ResponseHead head, FileChannel file, long position, long count, boolean last, Callback callback) {
        if (head != null) {
            commit(head); // throws, having written nothing, if the head cannot be encoded
        }
        try {
            if (framing != Framing.CONTENT_LENGTH) {
                throw new IllegalStateException("cannot send a file zero-copy with framing " + framing);
            }
            if (last) {
                generator.completeContent();
            }
            sendCallback.callback = callback;
        } catch (Throwable x) {
            callback.failed(x);
            return;
        }
        fileSend.start(file, position, count);
    }

    private Framing writeHead(ResponseHead head) {
        ensureOutput(context.config().outputBufferSize());
        while (true) {
            ByteBuffer out = output.byteBuffer();
            try {
                return generator.writeResponseHead(
                        out, version, method, head.status(), head.fields(), head.contentLength(), persistent);
            } catch (BufferOverflowException x) {
                if (out.capacity() >= 1024 * 1024) {
                    throw new IllegalStateException("response head larger than 1 MiB", x);
                }
                // Nothing was written: move what is pending to a bigger buffer and try again.
                RetainableByteBuffer bigger = buffers.acquire(out.capacity() * 4, true);
                out.flip();
                bigger.byteBuffer().put(out);
                output.release();
                output = bigger;
            }
        }
    }

    /**
     * Whether a completed response may stay in the output buffer: only on the processing thread, while the handler
     * that produced it is still inside {@code handle()}, when more requests are already buffered (so their responses
     * will join it and the whole batch is written when the input runs dry).
     */
    private boolean mayDeferFlush() {
        return processingThread == Thread.currentThread()
                && exchangeState.get() == HANDLING
                && persistent
                && input != null
                && input.byteBuffer().hasRemaining()
                && output.byteBuffer().remaining() > 1024;
    }

    private void flush(Callback callback, ByteBuffer content, ByteBuffer tail) {
        ByteBuffer out = output.byteBuffer();
        out.flip();
        sendCallback.callback = callback;
        if (content == null && tail == null) {
            endPoint().write(sendCallback, out);
        } else if (tail == null) {
            endPoint().write(sendCallback, out, content);
        } else if (content == null) {
            endPoint().write(sendCallback, out, tail);
        } else {
            endPoint().write(sendCallback, out, content, tail);
        }
    }

    private boolean hasPendingOutput() {
        return output != null && output.byteBuffer().position() > 0;
    }

    /** Writes aggregated responses; true if done at once, else processing resumes when the write completes. */
    private boolean flushOutputThenResume() throws IOException {
        ByteBuffer out = output.byteBuffer();
        out.flip();
        if (endPoint().flush(out)) {
            out.clear();
            return true;
        }
        flushPending = true;
        endPoint().write(flushed, out);
        return false;
    }

    private void onFlushed() {
        output.byteBuffer().clear();
        flushPending = false;
        process();
    }

    private void onWriteFailed(Throwable failure) {
        closed = true;
        endPoint().close(failure);
        if (exchange == null) {
            releaseBuffers();
        }
    }

    // --- errors and closing ----------------------------------------------------------------------------------------

    private void sendBadMessage(BadMessageException failure) {
        badMessage = null;
        persistent = false;
        parser.close();
        LOG.log(Level.DEBUG, () -> "bad request on " + this + ": " + failure.status() + " " + failure.reason());
        context.statistics().onResponse(failure.status());
        HttpFields fields = new HttpFields(4);
        context.serverField().ifPresent(fields::add);
        if (context.config().sendDateHeader()) {
            fields.add(context.dateField().field());
        }
        fields.put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        byte[] body = (failure.status() + " " + HttpStatus.reason(failure.status()) + ": " + failure.reason() + "\n")
                .getBytes(StandardCharsets.UTF_8);
        ensureOutput(context.config().outputBufferSize());
        try {
            if (version == null) {
                version = HttpVersion.HTTP_1_1;
            }
            if (method == null) {
                method = "GET";
            }
            generator.reset();
            Framing framing = generator.writeResponseHead(
                    output.byteBuffer(), version, method, failure.status(), fields, body.length, false);
            if (framing != Framing.NONE) { // a response to HEAD has no body, even when it is an error
                output.byteBuffer().put(body);
            }
        } catch (RuntimeException x) {
            LOG.log(Level.DEBUG, "could not write the error response on " + this, x);
        }
        closeAfterOutput();
    }

    /** Flushes what is pending, then closes: output first (FIN), so the client reads the whole response. */
    private void closeAfterOutput() {
        closed = true;
        if (hasPendingOutput() && endPoint().isOpen()) {
            // The last write owns the output buffer until it completes: processing may end (and release the
            // connection's buffers) long before a slow client has read it, and a buffer back in the pool while the
            // socket still sends from it would send another connection's bytes.
            RetainableByteBuffer last = output;
            output = null;
            ByteBuffer out = last.byteBuffer();
            out.flip();
            endPoint()
                    .write(
                            Callback.from(
                                    InvocationType.NON_BLOCKING,
                                    () -> {
                                        last.release();
                                        closeNow();
                                    },
                                    failure -> {
                                        last.release();
                                        onWriteFailed(failure);
                                    }),
                            out);
            return;
        }
        closeNow();
    }

    private void closeNow() {
        closed = true;
        endPoint().shutdownOutput();
        endPoint().close();
        if (exchange == null && processingThread == null) {
            releaseBuffers();
        }
    }

    @Override
    public void onClose(Throwable cause) {
        closed = true;
        // Buffers are not released here: another thread may be using them. Their owner releases them.
    }

    @Override
    public void shutdown() {
        shutdown = true;
        closeIfIdle();
        // Otherwise the exchange in progress completes with Connection: close, or processing closes the connection
        // once it waits for a request.
    }

    /**
     * Closes the connection for a graceful shutdown, from any thread, if it is idle: no thread processing, no request
     * read (even partly) and not answered, nothing left to write. A request whose bytes were read is always answered:
     * the close wins only if no processing started or ended since the idle state was observed (the generation in
     * {@link #activity} changes at every entry and exit), and then no processing can start any more.
     */
    private void closeIfIdle() {
        long state = activity.get();
        if (state == CLOSED_IDLE || (state & ACTIVE) != 0) {
            return; // closed already, or a thread is processing: it calls here when it leaves
        }
        // Nobody processes, so these were last written before the exit that this read of the activity follows.
        boolean idle = exchange == null
                && !discarding
                && !flushPending
                && parser.isStart()
                && (input == null || !input.byteBuffer().hasRemaining())
                && !hasPendingOutput();
        if (!idle || !activity.compareAndSet(state, CLOSED_IDLE)) {
            return; // busy, or processing started meanwhile: the exchange or the processing closes later
        }
        closed = true;
        endPoint().close();
        releaseBuffers();
    }

    @Override
    public boolean isIdle() {
        return exchange == null && parser.isIdle();
    }

    // --- HTTP/2 ----------------------------------------------------------------------------------------------------

    private void upgradeToHttp2() {
        ByteBuffer remaining = input == null ? ServerResponse.EMPTY.duplicate() : input.byteBuffer();
        Connection http2 = context.http2().orElseThrow().prior(connector, endPoint(), remaining);
        switchTo(http2);
    }

    private void switchTo(Connection http2) {
        closed = true; // this connection is done: nothing of it may run again
        releaseBuffers();
        endPoint().setConnection(http2);
        http2.onOpen();
    }

    /**
     * Whether the request asks to upgrade to h2c and may (RFC 7540 3.2): {@code Upgrade: h2c}, exactly one
     * {@code HTTP2-Settings}, both named in {@code Connection}, HTTP/1.1, and no content (the body of an upgraded
     * request would have to be carried over; clients upgrade with bodiless requests).
     */
    private boolean isH2cUpgrade() {
        if (context.http2().isEmpty() || version != HttpVersion.HTTP_1_1 || parser.contentLength() != 0) {
            return false;
        }
        if (!requestFields.containsToken(HttpHeader.UPGRADE, "h2c")) {
            return false;
        }
        if (requestFields.getAll("HTTP2-Settings").size() != 1) {
            return false;
        }
        return requestFields.containsToken(HttpHeader.CONNECTION, "upgrade")
                && requestFields.containsToken(HttpHeader.CONNECTION, "http2-settings");
    }

    /** Answers 101 and hands the connection to HTTP/2, with the request as stream 1. */
    private boolean upgradeToH2c() {
        byte[] settings;
        try {
            settings = dev.quarry.server.internal.h2.Http2ConnectionFactory.decodeSettingsField(
                    requestFields.get("HTTP2-Settings").orElseThrow());
        } catch (IllegalArgumentException x) {
            return false; // a malformed HTTP2-Settings: answer the request over HTTP/1.1 instead
        }
        HttpFields fields = new HttpFields(requestFields.size());
        for (HttpField field : requestFields) {
            if (!field.is(HttpHeader.CONNECTION)
                    && !field.is(HttpHeader.UPGRADE)
                    && !field.is("HTTP2-Settings")
                    && !field.is(HttpHeader.KEEP_ALIVE)) {
                fields.add(field);
            }
        }
        Http2Upgrade.UpgradedRequest request =
                new Http2Upgrade.UpgradedRequest(method, target, fields, settings, new byte[0]);
        messageComplete = false;
        ensureOutput(context.config().outputBufferSize());
        ByteBuffer out = output.byteBuffer();
        out.put(SWITCHING_TO_H2C);
        out.flip();
        flushPending = true; // not idle: a graceful shutdown must not close the connection under the 101
        endPoint()
                .write(
                        Callback.from(
                                InvocationType.NON_BLOCKING,
                                () -> {
                                    ByteBuffer remaining =
                                            input == null ? ServerResponse.EMPTY.duplicate() : input.byteBuffer();
                                    switchTo(context.http2()
                                            .orElseThrow()
                                            .upgraded(connector, endPoint(), request, remaining));
                                },
                                this::onWriteFailed),
                        out);
        return true;
    }

    // --- buffers ---------------------------------------------------------------------------------------------------

    private void ensureInput(int minimum) {
        int size = Math.max(minimum, context.config().inputBufferSize());
        if (input == null) {
            input = buffers.acquire(size, true);
            input.byteBuffer().flip(); // drain mode, empty
            return;
        }
        if (input.isRetained()) {
            // A content chunk still uses this buffer: move the unparsed bytes to a fresh one.
            RetainableByteBuffer fresh =
                    buffers.acquire(Math.max(size, input.byteBuffer().remaining()), true);
            fresh.byteBuffer().put(input.byteBuffer());
            fresh.byteBuffer().flip();
            input.release();
            input = fresh;
        }
    }

    private void ensureOutput(int size) {
        if (output == null) {
            output = buffers.acquire(size, true);
        }
    }

    private void releaseInput() {
        if (input != null) {
            input.release();
            input = null;
        }
    }

    private void releaseOutputIfEmpty() {
        if (output != null && output.byteBuffer().position() == 0) {
            output.release();
            output = null;
        }
    }

    /**
     * The final release, when the connection closes. Two threads may get here at once (the callback of the closing
     * write runs closeNow() while the processing thread leaves process()): each buffer is taken by one atomic swap,
     * so it goes back to the pool once, never twice.
     */
    private void releaseBuffers() {
        RetainableByteBuffer in = (RetainableByteBuffer) INPUT.getAndSet(this, (RetainableByteBuffer) null);
        if (in != null) {
            in.release();
        }
        RetainableByteBuffer out = (RetainableByteBuffer) OUTPUT.getAndSet(this, (RetainableByteBuffer) null);
        if (out != null) {
            out.release();
        }
    }

    @Override
    public String toString() {
        return "Http1Connection@" + Integer.toHexString(hashCode()) + "{" + parser.state() + ", exchange=" + exchange
                + (discarding ? ", discarding" : "") + (shutdown ? ", shutting down" : "") + ", " + endPoint() + "}";
    }

    /** Completes the handler's write and clears the output buffer for the next one. */
    private final class SendCallback implements Callback {
        private Callback callback;

        @Override
        public void succeeded() {
            output.byteBuffer().clear();
            Callback current = callback;
            callback = null;
            current.succeeded();
        }

        @Override
        public void failed(Throwable failure) {
            Callback current = callback;
            callback = null;
            closed = true;
            if (current != null) {
                current.failed(failure);
            }
        }

        @Override
        public InvocationType invocationType() {
            Callback current = callback;
            return current == null ? InvocationType.NON_BLOCKING : current.invocationType();
        }
    }

    /**
     * Sends a file region after what the output buffer holds (the head, and responses aggregated before it): first
     * flushes the buffer, then transfers the region, then completes {@link #sendCallback}. One instance per
     * connection, since one send is pending at a time.
     */
    private final class FileSend implements Callback {
        private FileChannel file;
        private long position;
        private long count;
        private boolean transferring;

        void start(FileChannel file, long position, long count) {
            this.file = file;
            this.position = position;
            this.count = count;
            ByteBuffer out = output.byteBuffer();
            if (out.position() == 0) {
                transfer();
                return;
            }
            out.flip();
            transferring = false;
            endPoint().write(this, out);
        }

        private void transfer() {
            transferring = true;
            endPoint().transfer(this, file, position, count);
        }

        @Override
        public void succeeded() {
            if (!transferring) {
                output.byteBuffer().clear();
                transfer();
                return;
            }
            transferring = false;
            file = null;
            context.statistics().onFileTransfer(count);
            sendCallback.succeeded();
        }

        @Override
        public void failed(Throwable failure) {
            transferring = false;
            file = null;
            sendCallback.failed(failure);
        }

        @Override
        public InvocationType invocationType() {
            // Flushing the head only starts the transfer; the transfer's end runs the handler's callback.
            return sendCallback.invocationType();
        }

        @Override
        public String toString() {
            return "FileSend{" + (transferring ? "transferring " : "head, then ") + count + " bytes at " + position
                    + "}";
        }
    }

    /** Request content that shares the input buffer; releasing it releases the buffer's extra reference. */
    private static final class InputChunk extends Content.Chunk {
        private RetainableByteBuffer owner;

        InputChunk(ByteBuffer slice, RetainableByteBuffer owner) {
            super(slice, false);
            this.owner = owner;
        }

        @Override
        public void release() {
            RetainableByteBuffer current = owner;
            if (current != null) {
                owner = null;
                current.release();
            }
        }
    }
}
