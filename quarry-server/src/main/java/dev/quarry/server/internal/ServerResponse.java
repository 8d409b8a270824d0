package dev.quarry.server.internal;

import dev.quarry.core.Callback;
import dev.quarry.core.FutureCallback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpMethod;
import dev.quarry.http.HttpStatus;
import dev.quarry.server.Response;
import dev.quarry.server.ResponseOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritePendingException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The response of one exchange. Commits at the first write: a single last write of a known size is sent with a
 * Content-Length, everything else as the protocol frames unknown lengths (chunked on HTTP/1.1). A file region goes
 * from the file to the socket without a copy when the protocol can ({@link HttpStream#canSendFile}), else it is read
 * in chunks. The content written must match a declared Content-Length, except for responses that have no content on
 * the wire (HEAD, 1xx, 204, 304), which declare the length a GET would have had.
 *
 * <p>Thread-safety: one write at a time (enforced), from any thread; the write callback object is reused, so a
 * write allocates nothing.
 */
public final class ServerResponse implements Response {
    static final ByteBuffer EMPTY = ByteBuffer.allocate(0).asReadOnlyBuffer();
    private static final String TEXT_PLAIN_UTF8 = "text/plain; charset=utf-8";

    private final Exchange exchange;
    private final HttpFields fields;
    private final AtomicBoolean writing = new AtomicBoolean();
    private final WriteCallback writeCallback = new WriteCallback();
    // The exchange's completion, when the handler completed while its last write was still pending.
    private final AtomicReference<Callback> completeAfterWrite = new AtomicReference<>();
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

    ServerResponse(Exchange exchange, HttpFields fields) {
        this.exchange = exchange;
        this.fields = fields;
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
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(callback, "callback");
        if (!begin(content.remaining(), last, callback)) {
            return;
        }
        ResponseHead committing = head;
        try {
            exchange.stream().send(committing, content, last, last ? trailers : null, writeCallback);
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
        if (count > 0 && position >= 0 && !completed && !writing.get()) {
            HttpStream stream = exchange.stream();
            OptionalLong declared = committed ? OptionalLong.empty() : declaredContentLength();
            if (declared != null) {
                ResponseHead next =
                        committed ? null : new ResponseHead(status, fields, lengthToDeclare(declared, count, last));
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
        if (!writing.compareAndSet(false, true)) {
            throw new WritePendingException();
        }
        head = null;
        if (!committed) {
            OptionalLong declared = declaredContentLength();
            if (declared == null) {
                writing.set(false);
                callback.failed(new IllegalArgumentException("invalid Content-Length in the response fields: "
                        + fields.get(HttpHeader.CONTENT_LENGTH).orElse("")));
                return false;
            }
            declaredLength = lengthToDeclare(declared, length, last);
            head = new ResponseHead(status, fields, declaredLength);
            bodyless = HttpStatus.hasNoBody(status)
                    || HttpMethod.HEAD.is(exchange.request().method());
            committed = true;
            // Counted before the bytes go out, so that a client that has the response finds it in the statistics.
            exchange.onCommit(status);
        }
        written += length;
        if (declaredLength >= 0 && !bodyless && (written > declaredLength || (last && written < declaredLength))) {
            writing.set(false);
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
            writing.set(false);
            throw failure;
        }
        committed = false;
        completed = false;
        written = 0;
        declaredLength = -1;
        writeCallback.callback = null;
        writing.set(false);
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
            if (writing.get()) {
                // The handler completed before its last write did (write(true, ..., NOOP), then succeeded()): the
                // exchange ends when the write does, or the next response would be written over this one.
                completeAfterWrite.set(callback);
                if (!writing.get() && completeAfterWrite.compareAndSet(callback, null)) {
                    callback.succeeded(); // the write completed meanwhile and did not see us
                }
                return;
            }
            callback.succeeded();
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
            fields.put(HttpHeader.CONTENT_TYPE, TEXT_PLAIN_UTF8);
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        blockingWrite(true, ByteBuffer.wrap(bytes));
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
        FutureCallback done = new FutureCallback();
        write(last, content, done);
        done.block();
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
            writing.set(false);
            current.succeeded();
            Callback completion = completeAfterWrite.getAndSet(null);
            if (completion != null) {
                completion.succeeded();
            }
        }

        @Override
        public void failed(Throwable failure) {
            Callback current = callback;
            callback = null;
            writing.set(false);
            if (current != null) {
                current.failed(failure);
            }
            Callback completion = completeAfterWrite.getAndSet(null);
            if (completion != null) {
                completion.failed(failure);
            }
        }

        @Override
        public InvocationType invocationType() {
            Callback current = callback;
            return current == null ? InvocationType.NON_BLOCKING : current.invocationType();
        }
    }
}
