package dev.quarry.client;

import dev.quarry.core.Callback;
import dev.quarry.core.FutureCallback;
import dev.quarry.core.InvocationType;
import dev.quarry.core.buffer.RetainableByteBuffer;
import dev.quarry.core.pool.Pool;
import dev.quarry.core.timer.Timeout;
import dev.quarry.http.BadMessageException;
import dev.quarry.http.HttpField;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.h1.HttpResponseListener;
import dev.quarry.http.h1.HttpResponseParser;
import dev.quarry.io.AbstractConnection;
import dev.quarry.io.EndPoint;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.lang.System.Logger.Level;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One HTTP/1.1 connection of a destination's pool: carries one exchange at a time.
 *
 * <p><b>Reading.</b> While the connection is idle in the pool it keeps a fill interest, so that a server closing it
 * (or sending bytes nobody asked for) is noticed and the connection leaves the pool. While it carries an exchange, the
 * response is parsed where the bytes arrive: on a selector thread ({@link #onFillable()}, non-blocking: it parses,
 * hands content over and wakes the reader) or on the reader's thread when it asks for more ({@link #demand()}). The
 * parser stops at each content chunk until the reader consumed it: that is the back pressure.
 *
 * <p><b>Writing.</b> The request is written by the client's executor (a virtual thread) that blocks on each write, so
 * that a file or stream body is read there, never on a selector thread, in one pooled buffer at a time.
 *
 * <p><b>Ending.</b> An exchange ends when its request was written and its response read ({@link #completion} bits),
 * or when it fails; then the connection goes back to the pool if it persists, or is closed and removed. Parsing is
 * serialised: only one thread parses at a time, because a new fill interest or demand only follows the end of the
 * previous parse; the network buffer is released by whichever of parsing or closing happens last ({@link #io}).
 *
 * <p><b>Idle timeout.</b> The endpoint's idle timeout is the client's, or, while the connection carries an exchange
 * whose request has an {@linkplain HttpRequest.Builder#idleTimeout idle timeout} of its own, that one: one exchange
 * at a time, so the connection's silence is the exchange's. An exchange that idles out closes the connection (its
 * state is unknown) and is not retried.
 */
final class HttpConnection extends AbstractConnection
        implements HttpResponseListener, ClientConnection, ResponseContent.Source {
    private static final System.Logger LOG = System.getLogger(HttpConnection.class.getName());
    private static final int REQUEST = 1;
    private static final int RESPONSE = 2;
    private static final int FAILED = 4;
    // io bits: a thread parses (BUSY), a fill or demand waits for it to leave, the connection closed meanwhile
    // (CLOSING: the leaving thread releases the buffer) or closed.
    private static final int IO_IDLE = 0;
    private static final int IO_BUSY = 1;
    private static final int IO_PENDING_FILL = 2;
    private static final int IO_PENDING_DEMAND = 4;
    private static final int IO_CLOSING = 8;
    private static final int IO_CLOSED = 16;

    private final Destination destination;
    private final HttpClient client;
    private final Pool.Entry<ClientConnection> entry;
    private final long createdNanos = System.nanoTime();
    private volatile Timeout expiry;
    private final HttpResponseParser parser;
    private final RetainableByteBuffer buffer;
    private final AtomicInteger completion = new AtomicInteger();
    private final AtomicInteger io = new AtomicInteger();
    private volatile Exchange exchange;
    // Per exchange; written by assign() before the volatile write of 'exchange', then confined to the parsing thread.
    private HttpFields headers;
    private HttpFields trailers;
    private ResponseContent content;
    private HttpVersion version;
    private int status;
    private String reason;
    private boolean interim;
    private volatile boolean persistent;
    private volatile boolean reused;
    private volatile long responseBytes;
    // Set before the first byte of the request is handed to the socket: a failure seen after it may have reached
    // the server (the endpoint's byte count is written by the writing thread only, and may not be visible yet).
    private volatile boolean requestWriteStarted;
    // Set when the response head was delivered, so that an idle timeout names the phase it expired in.
    private volatile boolean delivered;
    // When the exchange was assigned: a request's own idle timeout counts from there, not from the connection's last
    // activity in the pool (see onIdleExpired).
    private volatile long assignedNanos;
    private volatile boolean lastWriteIssued;
    // h2c upgrade (RFC 7540 3.2): offered on the first exchange only, if it has no body.
    private boolean offerH2c;
    // Expect: 100-continue (RFC 9110 10.1.1): completed true by a 100, false by a final response or a failure; the
    // writer waits on it between the head and the body. Null when the exchange expects nothing.
    private volatile CompletableFuture<Boolean> continued;
    private volatile boolean upgrading;
    private volatile boolean switching;

    /**
     * @param offerH2c whether the first exchange offers {@code Upgrade: h2c} (if it has no body)
     */
    HttpConnection(
            EndPoint endPoint,
            Destination destination,
            HttpClient client,
            Pool.Entry<ClientConnection> entry,
            boolean offerH2c) {
        super(endPoint);
        this.offerH2c = offerH2c;
        this.destination = destination;
        this.client = client;
        // One exchange at a time, even in a pool that HTTP/2 connections made multiplexed (h2c upgrade, ALPN): the
        // pool's maxMultiplex is the streams of an HTTP/2 connection, never this connection's.
        this.entry = entry.maxHolders(1);
        this.parser = new HttpResponseParser(this, client.parserConfig());
        ByteBuffer initial;
        this.buffer = client.bufferPool().acquire(client.networkBufferSize(), true);
        initial = buffer.byteBuffer();
        initial.flip(); // drain mode: nothing to parse yet
        endPoint.setIdleTimeout(client.idleTimeoutMillis());
    }

    @Override
    public String protocol() {
        return "http/1.1";
    }

    @Override
    protected InvocationType readInvocationType() {
        // Parsing hands content over and wakes a reader; completing the application's future is dispatched.
        return InvocationType.NON_BLOCKING;
    }

    @Override
    public void onOpen() {
        super.onOpen(); // the idle fill interest
        destination.onOpened(this);
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
    public boolean isUsable() {
        EndPoint endPoint = endPoint();
        return endPoint.isOpen() && !endPoint.isInputShutdown() && !endPoint.isOutputShutdown();
    }

    @Override
    public void assign(Exchange next, boolean reusedFromPool) {
        headers = new HttpFields();
        trailers = new HttpFields();
        content = new ResponseContent(this, next);
        interim = false;
        status = 0;
        persistent = !next.request.closesConnection();
        reused = reusedFromPool;
        responseBytes = 0;
        requestWriteStarted = false;
        delivered = false;
        completion.set(0);
        lastWriteIssued = false;
        upgrading = offerH2c && isBodyless(next.request);
        offerH2c = false;
        switching = false;
        continued = next.request.expectsContinue() ? new CompletableFuture<>() : null;
        parser.reset();
        parser.requestMethod(next.request.method());
        next.connection(this);
        long idleMillis = next.request.idleTimeoutMillis();
        if (idleMillis > 0) {
            assignedNanos = System.nanoTime();
        }
        exchange = next;
        if (idleMillis > 0) {
            // After the exchange is published: the shorter timeout can expire at once (it counts from the last
            // activity in the pool), and its check must find the exchange and its assignment time, not an idle
            // connection to close.
            endPoint().setIdleTimeout(idleMillis);
        }
        Throwable aborted = next.abortCause();
        if (aborted != null) {
            abort(next, aborted);
            return;
        }
        client.executor().execute(() -> writeRequest(next));
    }

    private static boolean isBodyless(HttpRequest request) {
        byte[] bytes = request.body().bytes();
        return bytes != null && bytes.length == 0;
    }

    // --- writing -----------------------------------------------------------------------------------------------------

    private void writeRequest(Exchange current) {
        try {
            RequestBody body = current.request.body();
            OptionalLong length = body.length();
            byte[] head = RequestHead.encode(
                    current.request,
                    length,
                    client.userAgent(),
                    ContentDecoding.offersGzip(client, current.request),
                    upgrading ? Http2Connection.upgradeSettings(client) : null,
                    current.cookie(),
                    destination.forwardsThroughProxy() ? destination.proxy() : null);
            byte[] bytes = body.bytes();
            CompletableFuture<Boolean> expecting = continued;
            if (expecting != null && !(length.isPresent() && length.getAsLong() == 0)) {
                write(ByteBuffer.wrap(head));
                if (!awaitContinue(expecting)) {
                    // A final response (or a failure) came first: the body is never sent, and the server may wait for
                    // it or not, so the connection cannot carry another exchange.
                    persistent = false;
                    lastWriteIssued = true;
                    requestWritten();
                    return;
                }
                if (bytes != null) {
                    writeLast(ByteBuffer.wrap(bytes));
                } else {
                    try (InputStream in = body.open()) {
                        writeBody(current, in, length);
                    }
                }
            } else if (bytes != null) {
                writeLast(ByteBuffer.wrap(head), ByteBuffer.wrap(bytes));
            } else {
                write(ByteBuffer.wrap(head));
                try (InputStream in = body.open()) {
                    writeBody(current, in, length);
                }
            }
        } catch (Throwable x) {
            failExchange(current, x);
        }
    }

    /**
     * @return true to send the body: the server answered 100, or said nothing within the continue timeout (it may not
     *     know the expectation, RFC 9110 10.1.1); false if its final response or a failure came first
     */
    private boolean awaitContinue(CompletableFuture<Boolean> expecting) throws IOException {
        try {
            return expecting.get(client.continueTimeoutMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException x) {
            return true;
        } catch (ExecutionException x) {
            return false;
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for 100 Continue");
        }
    }

    private void writeBody(Exchange current, InputStream in, OptionalLong length) throws IOException {
        boolean chunked = length.isEmpty();
        long expected = chunked ? -1 : length.getAsLong();
        long sent = 0;
        RetainableByteBuffer out = client.bufferPool().acquire(client.networkBufferSize(), false);
        try {
            ByteBuffer bytes = out.byteBuffer();
            byte[] array = bytes.array();
            int offset = bytes.arrayOffset();
            int room = bytes.capacity() - (chunked ? 16 : 0);
            while (true) {
                if ((completion.get() & RESPONSE) != 0) {
                    // The server answered before reading everything: stop sending (persistent is false already).
                    lastWriteIssued = true;
                    requestWritten();
                    return;
                }
                int want = chunked ? room : (int) Math.min(room, expected - sent);
                if (want == 0) {
                    break;
                }
                int n = in.read(array, offset, want);
                if (n < 0) {
                    break;
                }
                if (n == 0) {
                    continue;
                }
                sent += n;
                if (chunked) {
                    byte[] size = (Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII);
                    write(ByteBuffer.wrap(size), ByteBuffer.wrap(array, offset, n), ByteBuffer.wrap(CRLF));
                } else if (sent == expected) {
                    writeLast(ByteBuffer.wrap(array, offset, n));
                } else {
                    write(ByteBuffer.wrap(array, offset, n));
                }
            }
        } finally {
            out.release();
        }
        if (chunked) {
            writeLast(ByteBuffer.wrap(LAST_CHUNK));
        } else if (sent < expected) {
            throw new IOException("request body ended after " + sent + " of its " + expected + " bytes");
        } else if (expected == 0) {
            lastWriteIssued = true;
            requestWritten();
        }
    }

    /**
     * Writes the last bytes of the request and marks it written from the write's completion, not after this thread
     * wakes up: the response may be read meanwhile, and the connection must be back in the pool by the time the
     * application, having read the response, sends its next request.
     */
    private void writeLast(ByteBuffer... buffers) throws IOException {
        requestWriteStarted = true;
        lastWriteIssued = true;
        FutureCallback written = new FutureCallback();
        endPoint()
                .write(
                        Callback.from(
                                InvocationType.NON_BLOCKING,
                                () -> {
                                    requestWritten();
                                    written.succeeded();
                                },
                                written::failed),
                        buffers);
        written.block();
    }

    private void requestWritten() {
        if (mark(REQUEST)) {
            exchangeDone();
        }
    }

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] LAST_CHUNK = {'0', '\r', '\n', '\r', '\n'};

    private void write(ByteBuffer... buffers) throws IOException {
        requestWriteStarted = true;
        FutureCallback written = new FutureCallback();
        endPoint().write(written, buffers);
        written.block();
    }

    // --- reading -----------------------------------------------------------------------------------------------------

    @Override
    protected void onFillable() {
        if (enterIo(IO_PENDING_FILL)) {
            run(IO_PENDING_FILL);
            leaveIo();
        }
    }

    /** The reader consumed a chunk: parse on, on its thread (or on the thread still leaving the last parse). */
    @Override
    public void demand() {
        if (enterIo(IO_PENDING_DEMAND)) {
            run(IO_PENDING_DEMAND);
            leaveIo();
        }
    }

    /**
     * @param kind what the caller wants to run
     * @return true if the caller owns the I/O now; false if the connection is closed or another thread owns it, which
     *     then runs {@code kind} when it leaves (so that a fill or a demand that races with the end of a parse is never
     *     lost)
     */
    private boolean enterIo(int kind) {
        while (true) {
            int state = io.get();
            if ((state & (IO_CLOSING | IO_CLOSED)) != 0) {
                return false;
            }
            if ((state & IO_BUSY) != 0) {
                if (io.compareAndSet(state, state | kind)) {
                    return false;
                }
            } else if (io.compareAndSet(state, IO_BUSY)) {
                return true;
            }
        }
    }

    private void leaveIo() {
        while (true) {
            int state = io.get();
            if ((state & IO_CLOSING) != 0) {
                // Closed while we parsed: the release of the buffer was left to us.
                if (io.compareAndSet(state, IO_CLOSED)) {
                    buffer.release();
                    return;
                }
            } else if ((state & (IO_PENDING_FILL | IO_PENDING_DEMAND)) != 0) {
                if (io.compareAndSet(state, IO_BUSY)) {
                    run(state);
                }
            } else if (io.compareAndSet(state, IO_IDLE)) {
                return;
            }
        }
    }

    private void run(int kinds) {
        try {
            if (exchange != null) {
                parseAndFill();
            } else if ((kinds & IO_PENDING_FILL) != 0) {
                onIdleFillable();
            }
            // else: a demand after the exchange ended (failed): nothing to parse
        } catch (Throwable x) {
            LOG.log(Level.WARNING, "reading failed on " + this, x);
            endPoint().close(x);
        }
    }

    private void onIdleFillable() {
        int n;
        try {
            n = fill();
        } catch (IOException x) {
            endPoint().close(x);
            return;
        }
        if (n == 0) {
            fillInterested();
        } else if (n < 0) {
            endPoint().close(); // the server closed an idle connection: it leaves the pool
        } else if (exchange != null) {
            parseAndFill(); // the exchange was assigned meanwhile, and its response already arrives
        } else {
            endPoint().close(new BadResponseException("the server sent " + n + " bytes on an idle connection"));
        }
    }

    private int fill() throws IOException {
        ByteBuffer bytes = buffer.byteBuffer();
        bytes.compact();
        int n;
        try {
            n = endPoint().fill(bytes);
        } finally {
            bytes.flip();
        }
        if (n > 0 && exchange != null) {
            responseBytes += n;
        }
        return n;
    }

    private void parseAndFill() {
        ByteBuffer bytes = buffer.byteBuffer();
        try {
            while (true) {
                boolean stop = parser.parse(bytes);
                if (switching) {
                    if (mark(RESPONSE)) {
                        switchToHttp2();
                    }
                    return; // else the writer switches once the request was written
                }
                if (interim) {
                    interim = false;
                    continue;
                }
                if (stop || parser.isComplete()) {
                    return; // content handed over, response complete, or failed
                }
                if (parser.isClosed()) {
                    // The server closed the connection cleanly before the response started.
                    failExchange(exchange, new EOFException("the server closed the connection before responding"));
                    return;
                }
                int n = fill();
                if (n == 0) {
                    fillInterested();
                    return;
                }
                if (n < 0) {
                    parser.atEOF();
                }
            }
        } catch (IOException x) {
            failExchange(exchange, x);
        } catch (Throwable x) {
            LOG.log(Level.WARNING, "parsing the response failed on " + this, x);
            failExchange(exchange, x);
        }
    }

    @Override
    public void startResponse(HttpVersion version, int status, String reason) {
        this.version = version;
        this.status = status;
        this.reason = reason;
    }

    @Override
    public void header(HttpField field) {
        headers.add(field);
    }

    @Override
    public boolean headerComplete() {
        if (status < 200) {
            return false; // interim: the final response follows
        }
        CompletableFuture<Boolean> expecting = continued;
        if (expecting != null) {
            expecting.complete(false);
        }
        Exchange current = exchange;
        HttpResponse response =
                ContentDecoding.response(client, current.request, version, status, reason, headers, trailers, content);
        if (!current.deliver(response)) {
            abort(current, new IOException("exchange already failed"));
            return true;
        }
        delivered = true;
        return false;
    }

    @Override
    public boolean content(ByteBuffer chunk) {
        buffer.retain();
        content.offer(chunk, buffer);
        return true; // parse on when the reader demands
    }

    @Override
    public boolean contentComplete() {
        return false;
    }

    @Override
    public void trailer(HttpField field) {
        trailers.add(field);
    }

    @Override
    public boolean messageComplete() {
        if (status < 200) {
            if (status == 101) {
                if (upgrading && headers.get(HttpHeader.UPGRADE).orElse("").equalsIgnoreCase("h2c")) {
                    switching = true; // switched once the parse stopped, and the request was written
                    return true;
                }
                badMessage(new BadMessageException("101 Switching Protocols, but no upgrade was asked for"));
                return true;
            }
            CompletableFuture<Boolean> expecting = continued;
            if (status == 100 && expecting != null) {
                expecting.complete(true);
            }
            headers = new HttpFields();
            parser.reset();
            parser.requestMethod(exchange.request.method());
            interim = true;
            return true;
        }
        if (!parser.isPersistent() || buffer.byteBuffer().hasRemaining()) {
            persistent = false;
        }
        // The connection goes back to the pool before the reader learns that the content ended, so that its next
        // request finds it there: if the writer has not marked the request written yet (its thread may not have run
        // since its last write), the content completes when it does.
        ResponseContent done = content;
        if (!lastWriteIssued) {
            persistent = false; // the server answered before the request was sent: the writer stops
        }
        if (mark(RESPONSE)) {
            exchangeDone();
        } else if (!lastWriteIssued) {
            done.complete();
        }
        return true;
    }

    @Override
    public void badMessage(BadMessageException failure) {
        IOException cause =
                new BadResponseException("invalid response from " + destination.origin() + ": " + failure.reason());
        failExchange(exchange, cause);
    }

    @Override
    public void earlyEOF() {
        failExchange(exchange, new EOFException("the server closed the connection before the response was complete"));
    }

    // --- ending ------------------------------------------------------------------------------------------------------

    /** @return true if this call completed the exchange (both directions done) or failed it first */
    private boolean mark(int bit) {
        while (true) {
            int current = completion.get();
            if ((current & FAILED) != 0 || current == (REQUEST | RESPONSE)) {
                return false;
            }
            int next = current | bit;
            if (completion.compareAndSet(current, next)) {
                return bit == FAILED || next == (REQUEST | RESPONSE);
            }
        }
    }

    private void exchangeDone() {
        if (switching) {
            switchToHttp2();
            return;
        }
        Exchange done = exchange;
        ResponseContent doneContent = content;
        exchange = null;
        done.connection(null);
        done.ended();
        if (persistent && isUsable()) {
            if (done.request.idleTimeoutMillis() > 0) {
                endPoint().setIdleTimeout(client.idleTimeoutMillis()); // the pool's again
            }
            parser.reset();
            fillInterested(); // idle: notice when the server closes
            destination.release(this);
        } else {
            destination.remove(this);
        }
        doneContent.complete();
    }

    /**
     * The server accepted the h2c upgrade and the request was written: an {@link Http2Connection} takes over the
     * endpoint, the exchange becomes its stream 1 (RFC 7540 3.2), and the bytes after the 101 are its first frames.
     */
    private void switchToHttp2() {
        Exchange current = exchange;
        exchange = null;
        current.connection(null);
        Pool.Entry<ClientConnection> next = destination.replaceEntry(entry);
        if (next == null) {
            endPoint().close();
            current.ended();
            current.fail(new IOException("cannot switch " + destination.origin() + " to HTTP/2: its pool is full"));
            return;
        }
        Http2Connection http2 = new Http2Connection(endPoint(), destination, client, next);
        http2.adoptUpgraded(current, buffer.byteBuffer());
        closeIo(); // the network buffer goes back now (or when the parsing thread leaves)
        endPoint().setConnection(http2);
        if (!next.enable(http2, true)) {
            endPoint().close(new IOException("the client is closed"));
            return;
        }
        http2.onOpen();
        http2.onFillable(); // the frames that came with the 101, then a fill interest
    }

    /** Fails the exchange this connection carries (if it is still {@code current}) and closes the connection. */
    private void failExchange(Exchange current, Throwable cause) {
        if (current == null || exchange != current || !mark(FAILED)) {
            return;
        }
        CompletableFuture<Boolean> expecting = continued;
        if (expecting != null) {
            expecting.complete(false); // the writer stops waiting
        }
        if (cause instanceof TimeoutException timeout) {
            cause = new SocketTimeoutException(timeout.getMessage());
        } else if (cause instanceof ClosedChannelException) {
            cause = new EOFException("the connection to " + destination.origin() + " was closed");
        }
        boolean responseStarted = responseBytes > 0;
        boolean requestSent = requestWriteStarted;
        // Close first: the connection stops counting as open before its pool entry is removed.
        endPoint().close(cause);
        exchange = null;
        current.connection(null);
        // An idle timeout is the server's silence, not a stale pooled connection: retrying would double the wait.
        boolean timedOut = cause instanceof SocketTimeoutException;
        if (!timedOut && current.retryable(reused, responseStarted, requestSent)) {
            LOG.log(Level.DEBUG, "retrying {0} on a new connection after: {1}", current, cause);
            destination.remove(this);
            destination.retry(current);
            return;
        }
        current.ended();
        if (!current.fail(cause)) {
            content.fail(cause);
        }
        destination.remove(this);
    }

    /** Aborts {@code current} if this connection still carries it: closes the connection with {@code cause}. */
    @Override
    public void abort(Exchange current, Throwable cause) {
        if (exchange == current) {
            failExchange(current, cause);
        }
    }

    @Override
    protected void onFillInterestedFailed(Throwable cause) {
        endPoint().close(cause);
    }

    @Override
    public boolean onIdleExpired() {
        Exchange current = exchange;
        if (current != null) {
            long idleMillis = current.request.idleTimeoutMillis();
            if (idleMillis > 0 && System.nanoTime() - assignedNanos < TimeUnit.MILLISECONDS.toNanos(idleMillis)) {
                // Setting the request's shorter timeout counted it from the connection's last activity in the pool,
                // not from the assignment: not the exchange's idleness. The timeout checks again a period from now.
                return false;
            }
            // Failed with the timeout before the endpoint closes: closing the channel wakes the selector, whose read of
            // the closed socket would otherwise fail the exchange first, as if the server had closed the connection.
            failExchange(
                    current,
                    IdleTimeoutFailure.of(
                            current.request, endPoint().idleTimeout(), (completion.get() & REQUEST) != 0, delivered));
        }
        return true;
    }

    @Override
    public void onClose(Throwable cause) {
        destination.onClosed(this);
        Exchange current = exchange;
        if (current != null) {
            failExchange(current, cause != null ? cause : new ClosedChannelException());
        } else {
            destination.removeIdle(this);
        }
        closeIo();
    }

    /** Releases the network buffer now, or leaves that to the thread parsing, when it leaves. */
    private void closeIo() {
        while (true) {
            int state = io.get();
            if ((state & (IO_CLOSING | IO_CLOSED)) != 0) {
                return;
            }
            if ((state & IO_BUSY) != 0) {
                if (io.compareAndSet(state, state | IO_CLOSING)) {
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
        return exchange == null;
    }

    @Override
    public String toString() {
        return "HttpConnection@" + Integer.toHexString(hashCode()) + "{" + destination.origin() + ", "
                + (exchange == null ? "idle" : exchange) + ", " + endPoint() + "}";
    }
}
