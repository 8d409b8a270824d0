package dev.quarry.server.internal.h1;

import dev.quarry.core.buffer.RetainableByteBuffer;
import dev.quarry.http.BadMessageException;
import dev.quarry.http.HttpException;
import dev.quarry.http.HttpField;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.h1.HttpParser;
import dev.quarry.http.h1.HttpRequestListener;
import dev.quarry.io.EndPoint;
import dev.quarry.server.Content;
import dev.quarry.server.internal.ServerContext;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The request side of an HTTP/1.1 connection: owns the {@link HttpParser} and is its listener, collects the head of
 * the request being parsed, and reads its content on demand from the input buffer and then from the network, as
 * {@link InputChunk}s that share the input buffer (no copy).
 *
 * <p>The head is parsed alone: the parser stops after it when there is content, so that the body is parsed only when
 * the handler asks for it (and a handler that never reads it lets the connection discard it later, or close).
 *
 * <p>Thread-safety: not thread-safe. Used by the connection's processing thread, and by the exchange's reader while
 * an exchange is in progress (the two never overlap: processing stops until the exchange completes). One instance per
 * connection, reused for every request; the per-request cost is the request's fields and content chunks.
 */
final class Http1Request implements HttpRequestListener {
    private final Http1Connection connection;
    private final ServerContext context;
    private final EndPoint endPoint;
    private final Http1Buffers buffers;
    final HttpParser parser;
    // The request being parsed; cleared when its exchange finishes.
    String method;
    String target;
    HttpVersion version;
    HttpFields fields;
    /** The head is complete: an exchange may start. */
    boolean ready;
    /** The client sent the HTTP/2 connection preface instead of a request. */
    boolean preface;
    /** The head could not be parsed: to be answered with an error, then the connection closes. */
    BadMessageException badMessage;
    // The content of the exchange in progress.
    Content.Chunk content;
    Throwable contentFailure;
    boolean messageComplete;
    /**
     * The 100 Continue owed to the exchange in progress, if its request carries {@code Expect: 100-continue}; null
     * otherwise (so that a request without the expectation costs one plain field check). Set and cleared by the
     * processing thread between exchanges.
     */
    ContinueGate expectation;
    // Made by the connection's first request with the expectation, and kept for the next ones.
    private ContinueGate continueGate;

    Http1Request(Http1Connection connection, ServerContext context, EndPoint endPoint, Http1Buffers buffers) {
        this.connection = connection;
        this.context = context;
        this.endPoint = endPoint;
        this.buffers = buffers;
        this.parser = new HttpParser(this, context.config().parser());
    }

    /** @return whether a request head (or the h2 preface, or a bad message) is ready */
    boolean parseHead() {
        if (ready) {
            // Parsed already, and the exchange waited for a flush: parsing on would read into its content.
            return true;
        }
        if (buffers.hasInput()) {
            parser.parse(buffers.input.byteBuffer());
        }
        return ready || preface || badMessage != null;
    }

    /**
     * Forgets the request whose exchange finished (keeping {@link #messageComplete}, which says whether its content
     * must still be discarded). A request line that fails to parse must not be answered as if it had the previous
     * request's method (a HEAD would suppress the error's body) or version.
     */
    void clear() {
        if (content != null) {
            content.release();
            content = null;
        }
        method = null;
        target = null;
        version = null;
        fields = null;
        contentFailure = null;
        if (expectation != null) {
            expectation.clear();
            expectation = null;
        }
    }

    /** The exchange that starts waits for 100 Continue before its client sends the content; processing thread only. */
    void expectContinue() {
        if (continueGate == null) {
            continueGate = new ContinueGate(connection, endPoint, context.threads());
        }
        continueGate.expect();
        expectation = continueGate;
    }

    // --- reading the content ---------------------------------------------------------------------------------------

    /** @see dev.quarry.server.internal.HttpStream#read() */
    Content.Chunk read() {
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
            HttpException late = connection.lateBody();
            if (late != null) {
                // The client sent too slowly, or stopped: the 408 ends the exchange, and the connection (the rest of
                // the body is not worth waiting for).
                connection.persistent = false;
                contentFailure = late;
                continue;
            }
            if (connection.closed || !endPoint.isOpen()) {
                contentFailure = new EOFException("connection closed while reading the request content");
                continue;
            }
            if (parseBufferedContent()) {
                continue;
            }
            ContinueGate owed = expectation;
            if (owed != null && owed.isOwed()) {
                return null; // the 100 Continue goes out with the demand
            }
            if (!fillContent()) {
                return null;
            }
        }
    }

    /** Reads content from the network without blocking; false if none is available now. */
    private boolean fillContent() {
        buffers.ensureInput(0);
        ByteBuffer in = buffers.input.byteBuffer();
        in.compact();
        int read;
        try {
            read = endPoint.fill(in);
        } catch (IOException x) {
            // The client's doing (a reset in the middle of the body): counted, and the exchange logs it at DEBUG.
            context.statistics().onPeerIoFailure();
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

    /**
     * Parses buffered content, or lets the parser report the end of the content when all of it was already consumed
     * (the parser emits contentComplete and messageComplete on a later call, even with no bytes).
     *
     * @return whether the parser was called
     */
    boolean parseBufferedContent() {
        if (buffers.hasInput()) {
            parser.parse(buffers.input.byteBuffer());
            return true;
        }
        HttpParser.State state = parser.state();
        if (state == HttpParser.State.CONTENT_END || state == HttpParser.State.MESSAGE_END) {
            parser.parse(buffers.inputOrEmpty());
            return true;
        }
        return false;
    }

    /** @return whether {@link #read()} would return something without reading from the network */
    boolean isReadable() {
        if (content != null || contentFailure != null || messageComplete) {
            return true;
        }
        HttpParser.State state = parser.state();
        return buffers.hasInput() || state == HttpParser.State.CONTENT_END || state == HttpParser.State.MESSAGE_END;
    }

    // --- HttpRequestListener -------------------------------------------------------------------------------------

    @Override
    public void startRequest(String method, String target, HttpVersion version) {
        this.method = method;
        this.target = target;
        this.version = version;
        // Those of the connection's recycled exchange: a request allocates no fields.
        this.fields = connection.nextRequestFields();
    }

    @Override
    public void header(HttpField field) {
        fields.add(field);
    }

    @Override
    public boolean headerComplete() {
        ready = true;
        // Without content, let the parser also complete the message now; with content, stop so that the body is
        // parsed only when the handler asks for it.
        return parser.contentLength() != 0;
    }

    @Override
    public boolean content(ByteBuffer chunk) {
        // The client sends the content without waiting for 100 Continue, as it may (RFC 9110 §10.1.1): no interim
        // response is due any more, and once it is all read the connection stays reusable.
        ContinueGate owed = expectation;
        if (owed != null) {
            owed.onContent();
        }
        if (connection.bodyRate != null) {
            connection.bodyRate.onBytes(chunk.remaining());
        }
        RetainableByteBuffer owner = buffers.input;
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
        if (connection.hasExchange()) {
            contentFailure = failure;
            // The rest of the stream cannot be framed: whatever the response, it is the last one (Connection: close).
            connection.persistent = false;
        } else {
            badMessage = failure;
        }
    }

    @Override
    public void earlyEOF() {
        if (connection.hasExchange()) {
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

    @Override
    public String toString() {
        return "Http1Request{" + parser.state() + ", " + method + " " + target + " " + version
                + (contentFailure != null ? ", failed: " + contentFailure : "")
                + (messageComplete ? ", complete" : "") + (expectation != null ? ", " + expectation : "") + "}";
    }
}
