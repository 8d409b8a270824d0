package dev.quarry.server.internal.h1;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.core.buffer.RetainableByteBuffer;
import dev.quarry.http.BadMessageException;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.h1.Framing;
import dev.quarry.http.h1.HttpGenerator;
import dev.quarry.io.EndPoint;
import dev.quarry.server.internal.ResponseHead;
import dev.quarry.server.internal.ServerContext;
import java.io.IOException;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * The output side of an HTTP/1.1 connection: encodes response heads and chunk framing with the connection's
 * {@link HttpGenerator}, copies small content into the pooled output buffer (aggregating pipelined responses),
 * gather-writes large content without copying, sends file regions zero-copy, and writes what is pending before the
 * connection reads again or closes.
 *
 * <p>Thread-safety: one send is pending at a time ({@link dev.quarry.server.internal.HttpStream}'s contract), from
 * whichever thread the handler writes on; the connection's processing uses the writer only while no send is pending
 * (between exchanges, or for the error response of an unparsable request). The write callbacks ({@link SendCallback},
 * {@link FileSend}, {@link #flushed}) are one instance each per connection: a send costs no allocation. The last two
 * are made on first use, since most connections never send a file nor aggregate pipelined responses (every idle
 * connection keeps what was made).
 */
final class Http1ResponseWriter {
    private static final HttpFields NO_TRAILERS = new HttpFields(0).asImmutable();

    private final Http1Connection connection;
    private final Http1Request request;
    private final ServerContext context;
    private final EndPoint endPoint;
    private final Http1Buffers buffers;
    private final HttpGenerator generator = new HttpGenerator();
    private final SendCallback sendCallback = new SendCallback();
    // Created by the first file sent: most connections never send one.
    private FileSend fileSend;
    // Created by the first aggregated flush (pipelining clients only).
    private Callback flushed;
    /** How the current response's content is framed; null before its head is written. */
    private Framing framing;
    /** Aggregated responses are being written; processing resumes when they are (plain: see closeIfIdle()). */
    boolean flushPending;

    Http1ResponseWriter(
            Http1Connection connection,
            Http1Request request,
            ServerContext context,
            EndPoint endPoint,
            Http1Buffers buffers) {
        this.connection = connection;
        this.request = request;
        this.context = context;
        this.endPoint = endPoint;
        this.buffers = buffers;
    }

    /** @see dev.quarry.server.internal.HttpStream#send */
    void send(ResponseHead head, ByteBuffer content, boolean last, Supplier<HttpFields> trailers, Callback callback) {
        if (head != null) {
            // Throws, having written nothing, if a field cannot be encoded: the exchange then answers 500 instead.
            commit(head);
        }
        try {
            buffers.ensureOutput();
            ByteBuffer out = buffers.output.byteBuffer();
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

    /** Zero-copy needs a transport that sends file bytes as they are and Content-Length framing (not chunked, not HEAD). */
    boolean canSendFile(ResponseHead head) {
        if (!endPoint.canTransferFiles()) {
            return false;
        }
        Framing next = head != null
                ? HttpGenerator.framing(request.version, request.method, head.status(), head.contentLength())
                : framing;
        return next == Framing.CONTENT_LENGTH;
    }

    /** @see dev.quarry.server.internal.HttpStream#sendFile */
    void sendFile(ResponseHead head, FileChannel file, long position, long count, boolean last, Callback callback) {
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
        if (fileSend == null) {
            fileSend = new FileSend();
        }
        fileSend.start(file, position, count);
    }

    /** Writes the response head into the output buffer; throws, having written nothing, if it cannot be encoded. */
    private void commit(ResponseHead head) {
        buffers.ensureOutput();
        ContinueGate expectation = request.expectation;
        if (expectation != null && expectation.onCommit()) {
            // The response is committed before the body was asked for: no 100 will be sent and the body will not be
            // read, so the connection cannot be reused (the client may still send it; RFC 9110 10.1.1).
            connection.persistent = false;
        }
        if (connection.shutdown) {
            // The server is stopping: an exchange that began before is answered, and told it is the last one.
            connection.persistent = false;
        }
        framing = writeHead(head);
    }

    private Framing writeHead(ResponseHead head) {
        buffers.ensureOutput();
        ByteBuffer out = buffers.output.byteBuffer();
        while (true) {
            try {
                return generator.writeResponseHead(
                        out,
                        request.version,
                        request.method,
                        head.status(),
                        head.fields(),
                        head.contentLength(),
                        connection.persistent);
            } catch (BufferOverflowException x) {
                if (out.capacity() >= 1024 * 1024) {
                    throw new IllegalStateException("response head larger than 1 MiB", x);
                }
                // Nothing was written: move what is pending to a bigger buffer and try again.
                out = buffers.growOutput();
            }
        }
    }

    /**
     * Whether a completed response may stay in the output buffer: only on the processing thread, while the handler
     * that produced it is still inside {@code handle()}, when more requests are already buffered (so their responses
     * will join it and the whole batch is written when the input runs dry). Not while a 100 Continue is being
     * written: the later flush would not wait for it.
     */
    private boolean mayDeferFlush() {
        return connection.isHandlingInPlace()
                && connection.persistent
                && buffers.hasInput()
                && buffers.output.byteBuffer().remaining() > 1024
                && (request.expectation == null || request.expectation.isSettled());
    }

    private void flush(Callback callback, ByteBuffer content, ByteBuffer tail) {
        ByteBuffer out = buffers.output.byteBuffer();
        out.flip();
        sendCallback.callback = callback;
        if (content == null && tail == null) {
            write(sendCallback, out);
        } else if (tail == null) {
            write(sendCallback, out, content);
        } else if (content == null) {
            write(sendCallback, out, tail);
        } else {
            write(sendCallback, out, content, tail);
        }
    }

    /**
     * Writes response bytes, after the 100 Continue if one is being written (the head must not overlap it nor come
     * before it). A request without the expectation costs one plain field check here.
     */
    private void write(Callback callback, ByteBuffer... bytes) {
        ContinueGate expectation = request.expectation;
        if (expectation != null && expectation.deferWrite(callback, bytes)) {
            return;
        }
        endPoint.write(callback, bytes);
    }

    /**
     * Writes aggregated responses; true if done at once, else processing resumes when the write completes.
     *
     * @throws IOException if the write fails at once
     */
    boolean flushThenResume() throws IOException {
        ByteBuffer out = buffers.output.byteBuffer();
        out.flip();
        if (endPoint.flush(out)) {
            out.clear();
            return true;
        }
        flushPending = true;
        if (flushed == null) {
            flushed = Callback.from(InvocationType.NON_BLOCKING, this::onFlushed, connection::onWriteFailed);
        }
        endPoint.write(flushed, out);
        return false;
    }

    private void onFlushed() {
        buffers.output.byteBuffer().clear();
        flushPending = false;
        connection.onFlushed();
    }

    /**
     * Writes what the output buffer holds, then closes the connection. The write owns the output buffer until it
     * completes: processing may end (and release the connection's buffers) long before a slow client has read it,
     * and a buffer back in the pool while the socket still sends from it would send another connection's bytes.
     */
    void writeLastThenClose() {
        RetainableByteBuffer last = buffers.takeOutput();
        ByteBuffer out = last.byteBuffer();
        out.flip();
        endPoint.write(
                Callback.from(
                        InvocationType.NON_BLOCKING,
                        () -> {
                            last.release();
                            connection.closeNow();
                        },
                        failure -> {
                            last.release();
                            connection.onWriteFailed(failure);
                        }),
                out);
    }

    /**
     * Writes an error response to a request that could not be parsed (or handled) into the output buffer; it is the
     * last response of the connection.
     *
     * @throws RuntimeException if the response cannot be encoded (the caller logs it and closes anyway)
     */
    void writeError(BadMessageException failure, HttpVersion version, String method) {
        HttpFields fields = new HttpFields(4);
        context.serverField().ifPresent(fields::add);
        if (context.config().sendDateHeader()) {
            fields.add(context.dateField().field());
        }
        fields.put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        byte[] body = (failure.status() + " " + HttpStatus.reason(failure.status()) + ": " + failure.reason() + "\n")
                .getBytes(StandardCharsets.UTF_8);
        buffers.ensureOutput();
        generator.reset();
        ByteBuffer out = buffers.output.byteBuffer();
        Framing errorFraming =
                generator.writeResponseHead(out, version, method, failure.status(), fields, body.length, false);
        if (errorFraming != Framing.NONE) { // a response to HEAD has no body, even when it is an error
            out.put(body);
        }
    }

    /** @return whether the response just completed requires closing the connection */
    boolean mustClose() {
        return generator.mustClose();
    }

    /** Forgets the completed response: the next one starts with its head. */
    void reset() {
        framing = null;
        generator.reset();
    }

    @Override
    public String toString() {
        return "Http1ResponseWriter{framing=" + framing + (flushPending ? ", flushing" : "") + ", " + buffers + "}";
    }

    /** Completes the handler's write and clears the output buffer for the next one. */
    private final class SendCallback implements Callback {
        private Callback callback;

        @Override
        public void succeeded() {
            buffers.output.byteBuffer().clear();
            Callback current = callback;
            callback = null;
            current.succeeded();
        }

        @Override
        public void failed(Throwable failure) {
            Callback current = callback;
            callback = null;
            connection.closed = true;
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
            ByteBuffer out = buffers.output.byteBuffer();
            if (out.position() == 0) {
                transfer();
                return;
            }
            out.flip();
            transferring = false;
            write(this, out);
        }

        private void transfer() {
            transferring = true;
            endPoint.transfer(this, file, position, count);
        }

        @Override
        public void succeeded() {
            if (!transferring) {
                buffers.output.byteBuffer().clear();
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
}
