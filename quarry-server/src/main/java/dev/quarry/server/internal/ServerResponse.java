package dev.quarry.server.internal;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpField;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpMethod;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.PreEncodedHttpField;
import dev.quarry.server.Response;
import dev.quarry.server.ResponseOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritePendingException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * The response of one exchange. Commits at the first write: a single last write of a known size is sent with a
 * Content-Length, everything else as the protocol frames unknown lengths (chunked on HTTP/1.1). A file region goes
 * from the file to the socket without a copy when the protocol can ({@link HttpStream#canSendFile}), else it is read
 * in chunks. The content written must match a declared Content-Length, except for responses that have no content on
 * the wire (HEAD, 1xx, 204, 304), which declare the length a GET would have had.
 *
 * <p>Thread-safety: one write at a time (enforced), from any thread; the write callback object and the head are
 * reused, so a write allocates nothing, and a blocking write reuses its {@link BlockingSend} (callback and, for
 * {@code send(String)} on a recycled response, the text's bytes). An HTTP/1.1 response is recycled with its
 * {@link Exchange} for the next request ({@link #recycle()}).
 */
public final class ServerResponse implements Response {
    static final ByteBuffer EMPTY = ByteBuffer.allocate(0).asReadOnlyBuffer();
    // One immutable field for every send(String): putting it allocates nothing, and HTTP/1.1 copies its bytes.
    private static final HttpField TEXT_PLAIN_UTF8 =
            new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");

    // The write state: a write is pending; the exchange's completion waits for it (the handler completed while its
    // last write was still pending). One word, so that completing never reads the state after publishing its wait: the
    // write's end may recycle this response at once for the next request.
    private static final int WRITING = 1;
    private static final int COMPLETE_AFTER_WRITE = 2;
    private static final VarHandle WRITE_STATE;
    private static final VarHandle BLOCKING_SEND;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            WRITE_STATE = lookup.findVarHandle(ServerResponse.class, "writeState", int.class);
            BLOCKING_SEND = lookup.findVarHandle(ServerResponse.class, "blockingSend", BlockingSend.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final Exchange exchange;
    private final HttpFields fields;
    // Recycled with its exchange (HTTP/1.1): worth keeping a send(String)'s text bytes for the next request.
    private final boolean recyclable;
    private final WriteCallback writeCallback = new WriteCallback();
    // Refilled at each commit: the stream reads it during the send only.
    private final ResponseHead commitHead = new ResponseHead(HttpStatus.OK_200, null, -1);

    @SuppressWarnings("unused") // through WRITE_STATE
    private volatile int writeState;

    // The blocking writes' callback and text bytes, made by the first one: taken by each blocking write, given back
    // when the write completed (see BlockingSend). Kept across recycling.
    @SuppressWarnings("unused") // through BLOCKING_SEND
    private volatile BlockingSend blockingSend;

    // The exchange's completion while COMPLETE_AFTER_WRITE is set: written before the CAS that sets it, read after the
    // one that clears it.
    private Callback completeAfterWrite;
    private int status = HttpStatus.OK_200;
    private volatile boolean committed;
    private volatile boolean completed;
    private long declaredLength = -1;
    private boolean bodyless;
    // The head of the write in progress, set by begin() on the first write only; read right after it by the writer.
    private ResponseHead head;
    private long written;
    private Supplier<HttpFields> trailers;
    private ResponseOutputStream outputStream;

    ServerResponse(Exchange exchange, HttpFields fields, boolean recyclable) {
        this.exchange = exchange;
        this.fields = fields;
        this.recyclable = recyclable;
    }

    @Override
    public int status() {
        return status;
    }

    @Override
    public Response status(int status) {
        if (committed) {
            throw new IllegalStateException("response committed, cannot set status " + status);
        }
        if (!HttpStatus.isValid(status)) {
            throw new IllegalArgumentException("invalid status code " + status);
        }
        this.status = status;
        return this;
    }

    @Override
    public HttpFields headers() {
        return fields;
    }

    @Override
    public boolean isCommitted() {
        return committed;
    }

    /** @return whether the last content was written */
    boolean isCompleted() {
        return completed;
    }

    @Override
    public void write(boolean last, ByteBuffer content, Callback callback) {
        write(last, content, false, callback);
    }

    /**
     * Writes like {@link #write(boolean, ByteBuffer, Callback)} a region of a file mapping: a file truncated while it is
     * sent makes a read of it fault, which the transport then turns into a failure of this response alone (see
     * {@link HttpStream#sendFileMapping}).
     *
     * @param last whether this completes the response
     * @param mapped the region of a mapped file
     * @param callback completed when written (or failed)
     */
    public void writeFileMapping(boolean last, ByteBuffer mapped, Callback callback) {
        write(last, mapped, true, callback);
    }

    private void write(boolean last, ByteBuffer content, boolean fileMapping, Callback callback) {
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(callback, "callback");
        if (!begin(content.remaining(), last, callback)) {
            return;
        }
        ResponseHead committing = head;
        Supplier<HttpFields> trailers = last ? this.trailers : null;
        try {
            if (fileMapping) {
                exchange.stream().sendFileMapping(committing, content, last, trailers, writeCallback);
            } else {
                exchange.stream().send(committing, content, last, trailers, writeCallback);
            }
        } catch (RuntimeException x) {
            withdraw(committing, callback, x);
        }
    }

    /**
     * Sends the region zero-copy when the stream can, with nothing between the handler and this response; otherwise
     * (HTTP/2, TLS, chunked or HEAD framing) reads it in chunks through {@link #write(boolean, ByteBuffer, Callback)}.
     */
    @Override
    public void write(FileChannel file, long position, long count, boolean last, Callback callback) {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(callback, "callback");
        if (count > 0 && position >= 0 && !completed && (writeState & WRITING) == 0) {
            HttpStream stream = exchange.stream();
            OptionalLong declared = committed ? OptionalLong.empty() : declaredContentLength();
            if (declared != null) {
                ResponseHead next = null;
                if (!committed) {
                    // Only asked about here; begin() refills it to commit.
                    commitHead.set(status, fields, lengthToDeclare(declared, count, last));
                    next = commitHead;
                }
                if (stream.canSendFile(next)) {
                    if (begin(count, last, callback)) {
                        ResponseHead committing = head;
                        try {
                            stream.sendFile(committing, file, position, count, last, writeCallback);
                        } catch (RuntimeException x) {
                            withdraw(committing, callback, x);
                        }
                    }
                    return;
                }
            }
            // An invalid declared Content-Length falls through, to be reported by the buffered write.
        }
        Response.super.write(file, position, count, last, callback);
    }

    /**
     * Starts a write: claims the single pending write, commits on the first one (setting {@link #head}, else null),
     * checks the length against a declared Content-Length and arms the write callback.
     *
     * @return whether to send; false if the callback was already failed
     */
    private boolean begin(long length, boolean last, Callback callback) {
        if (completed) {
            callback.failed(new IllegalStateException("response already completed"));
            return false;
        }
        if (!WRITE_STATE.compareAndSet(this, 0, WRITING)) {
            throw new WritePendingException();
        }
        head = null;
        if (!committed) {
            OptionalLong declared = declaredContentLength();
            if (declared == null) {
                writeState = 0;
                callback.failed(new IllegalArgumentException("invalid Content-Length in the response fields: "
                        + fields.get(HttpHeader.CONTENT_LENGTH).orElse("")));
                return false;
            }
            declaredLength = lengthToDeclare(declared, length, last);
            commitHead.set(status, fields, declaredLength);
            head = commitHead;
            bodyless = HttpStatus.hasNoBody(status)
                    || HttpMethod.HEAD.is(exchange.request().method());
            committed = true;
            // Counted before the bytes go out, so that a client that has the response finds it in the statistics.
            exchange.onCommit(status);
        }
        written += length;
        if (declaredLength >= 0 && !bodyless && (written > declaredLength || (last && written < declaredLength))) {
            writeState = 0;
            IllegalStateException x = new IllegalStateException(
                    "Content-Length is " + declaredLength + " but " + written + " bytes were written");
            completed = true;
            callback.failed(x);
            exchange.abort(x);
            return false;
        }
        if (last) {
            completed = true;
        }
        writeCallback.callback = callback;
        return true;
    }

    /** @return the Content-Length the handler set, empty if none, or null if it is not a valid number */
    private OptionalLong declaredContentLength() {
        try {
            return fields.getLong(HttpHeader.CONTENT_LENGTH);
        } catch (RuntimeException x) {
            return null;
        }
    }

    /** @return the Content-Length to commit with: the declared one, else the size of a single last write, else -1 */
    private static long lengthToDeclare(OptionalLong declared, long length, boolean last) {
        return declared.isPresent() ? declared.getAsLong() : last ? length : -1;
    }

    /**
     * Undoes the commit of a write whose stream threw: by contract it could not encode the head (a field value with
     * CR or LF, say) and wrote nothing, so the handler's failure can still be answered with a 500. A stream that
     * throws on a later write breaks that contract, and the failure propagates.
     */
    private void withdraw(ResponseHead committing, Callback callback, RuntimeException failure) {
        if (committing == null) {
            writeCallback.callback = null;
            writeState = 0;
            throw failure;
        }
        committed = false;
        completed = false;
        written = 0;
        declaredLength = -1;
        writeCallback.callback = null;
        writeState = 0;
        exchange.onCommitWithdrawn(committing.status());
        callback.failed(failure);
    }

    /** Completes the response after the handler succeeded: flushes a stream, or sends an empty last write. */
    void complete(Callback callback) {
        if (outputStream != null && !outputStream.isClosed()) {
            outputStream.closeAsync(callback);
            return;
        }
        if (completed) {
            // The handler may complete before its last write did (write(true, ..., NOOP), then succeeded()): the
            // exchange then ends when the write does, or the next response would be written over this one.
            completeAfterWrite = callback;
            int state;
            do {
                state = writeState;
                if ((state & WRITING) == 0) {
                    completeAfterWrite = null;
                    callback.succeeded();
                    return;
                }
            } while (!WRITE_STATE.compareAndSet(this, state, state | COMPLETE_AFTER_WRITE));
            // Published: the write's end runs it, and may recycle this response right away. Nothing more here.
            return;
        }
        try {
            write(true, EMPTY, callback);
        } catch (WritePendingException x) {
            callback.failed(new IllegalStateException("handler completed while a write was pending", x));
        }
    }

    /**
     * Forgets status and fields, to send an error response instead, keeping the fields every response carries (Date,
     * Server); only before commit.
     */
    void resetForError() {
        if (committed) {
            throw new IllegalStateException("committed");
        }
        status = HttpStatus.OK_200;
        fields.clear();
        exchange.addStandardFields(fields);
        outputStream = null;
        trailers = null;
    }

    /**
     * Forgets the completed response, for the next request of a recycled exchange: status 200, no fields (the
     * standard ones are added again when the next exchange starts), nothing written.
     */
    void recycle() {
        fields.clear();
        status = HttpStatus.OK_200;
        committed = false;
        completed = false;
        declaredLength = -1;
        bodyless = false;
        head = null;
        written = 0;
        trailers = null;
        outputStream = null;
        completeAfterWrite = null;
        writeCallback.callback = null;
        commitHead.set(HttpStatus.OK_200, null, -1);
    }

    /** @return the exchange of this response */
    Exchange exchange() {
        return exchange;
    }

    @Override
    public OutputStream outputStream() {
        if (outputStream == null) {
            outputStream = new ResponseOutputStream(this, exchange.outputAggregationSize());
        }
        return outputStream;
    }

    @Override
    public void send(String text) throws IOException {
        if (!fields.contains(HttpHeader.CONTENT_TYPE)) {
            fields.put(TEXT_PLAIN_UTF8);
        }
        BlockingSend blocking = takeBlockingSend();
        // A recycled response keeps the bytes for the next request; a response used once (HTTP/2) would only add a
        // copy to what the JDK's encoder allocates anyway.
        ByteBuffer content = recyclable ? blocking.encodeAscii(text) : null;
        if (content == null) {
            content = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
        }
        blockingWrite(true, content, blocking);
    }

    @Override
    public void send(int status, String contentType, ByteBuffer body) throws IOException {
        status(status);
        if (contentType != null) {
            fields.put(HttpHeader.CONTENT_TYPE, contentType);
        }
        blockingWrite(true, body);
    }

    @Override
    public void sendError(int status, String message) throws IOException {
        ErrorResponses.sendError(this, status, message);
    }

    void blockingWrite(boolean last, ByteBuffer content) throws IOException {
        blockingWrite(last, content, takeBlockingSend());
    }

    /** Takes the blocking writes' callback, so that two threads writing at once (a misuse) never share it. */
    private BlockingSend takeBlockingSend() {
        BlockingSend blocking = (BlockingSend) BLOCKING_SEND.getAndSet(this, null);
        return blocking != null ? blocking : new BlockingSend();
    }

    private void blockingWrite(boolean last, ByteBuffer content, BlockingSend blocking) throws IOException {
        blocking.arm();
        try {
            write(last, content, blocking);
            blocking.block();
        } finally {
            // Given back only when its write is over: a waiter interrupted first abandons it to the late completion.
            if (blocking.isCompleted()) {
                blockingSend = blocking;
            }
        }
    }

    @Override
    public void trailers(Supplier<HttpFields> trailers) {
        this.trailers = trailers;
    }

    @Override
    public String toString() {
        return "ServerResponse{" + status + (committed ? ", committed" : "") + (completed ? ", completed" : "") + "}";
    }

    /** Clears the write-pending flag before completing the user's callback, which may write again. */
    private final class WriteCallback implements Callback {
        private Callback callback;

        @Override
        public void succeeded() {
            Callback current = callback;
            callback = null;
            Callback completion = endWrite();
            current.succeeded();
            // The completion ends the exchange, which may recycle this response: it goes last, and nothing follows.
            if (completion != null) {
                completion.succeeded();
            }
        }

        @Override
        public void failed(Throwable failure) {
            Callback current = callback;
            callback = null;
            Callback completion = endWrite();
            if (current != null) {
                current.failed(failure);
            }
            if (completion != null) {
                completion.failed(failure);
            }
        }

        /** Clears the pending write; returns the completion that waited for it, if any, taking it. */
        private Callback endWrite() {
            if (((int) WRITE_STATE.getAndSet(ServerResponse.this, 0) & COMPLETE_AFTER_WRITE) == 0) {
                return null;
            }
            Callback completion = completeAfterWrite;
            completeAfterWrite = null;
            return completion;
        }

        @Override
        public InvocationType invocationType() {
            Callback current = callback;
            return current == null ? InvocationType.NON_BLOCKING : current.invocationType();
        }
    }
}
