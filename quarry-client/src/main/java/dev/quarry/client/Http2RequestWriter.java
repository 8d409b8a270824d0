package dev.quarry.client;

import dev.quarry.core.FutureCallback;
import dev.quarry.core.buffer.RetainableByteBuffer;
import dev.quarry.http.HttpFields;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.FrameGenerator;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * Writes the requests of one {@link Http2Connection}: the HEADERS frame (its stream id given when it is generated, so
 * that ids follow wire order), then the body in DATA frames as the server's windows allow. Runs on a virtual thread of
 * the client's executor per request, which waits there for send-window credit and for each DATA frame to be written
 * before it reads more of a streamed body (so a file or stream body costs one pooled buffer at a time, and is never
 * read on a selector thread).
 *
 * <p>Thread-safety: stateless; each {@link #write} call owns its stream's sending side.
 */
final class Http2RequestWriter {
    private final Http2Connection connection;
    private final HttpClient client;
    private final Http2Flusher flusher;
    private final FrameGenerator generator;

    Http2RequestWriter(Http2Connection connection, HttpClient client, Http2Flusher flusher, FrameGenerator generator) {
        this.connection = connection;
        this.client = client;
        this.flusher = flusher;
        this.generator = generator;
    }

    /** Thrown to the writer when its stream failed, or its response ended, meanwhile: the writer stops. */
    static final class StreamGone extends IOException {
        StreamGone() {
            super("stream gone");
        }

        @Override
        public Throwable fillInStackTrace() {
            return this; // control flow, not an error: no stack trace to fill
        }
    }

    /** Writes the request of {@code stream}; any failure fails the stream. */
    void write(Http2Stream stream) {
        try {
            HttpRequest request = stream.exchange.request;
            RequestBody body = request.body();
            OptionalLong length = body.length();
            byte[] bytes = body.bytes();
            boolean noBody = bytes != null ? bytes.length == 0 : length.isPresent() && length.getAsLong() == 0;
            if (!noBody && request.expectsContinue()) {
                stream.continued = new CompletableFuture<>();
            }
            flusher.offer(headers(stream, request, length, noBody));
            if (noBody) {
                return;
            }
            CompletableFuture<Boolean> expecting = stream.continued;
            if (expecting != null && !awaitContinue(expecting)) {
                if (stream.failure == null) {
                    connection.withholdBody(stream);
                }
                return;
            }
            if (bytes != null) {
                sendData(stream, ByteBuffer.wrap(bytes), true);
            } else {
                try (InputStream in = body.open()) {
                    sendStream(stream, in, length);
                }
            }
            connection.requestEnded(stream);
        } catch (StreamGone gone) {
            stopSending(stream);
        } catch (Throwable x) {
            connection.sendingFailed(stream, x, ErrorCode.CANCEL, false);
        }
    }

    /**
     * @return true to send the body: the server answered 100, or said nothing within the continue timeout; false if
     *     its final response or a failure came first
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

    private Http2Flusher.Frame headers(Http2Stream stream, HttpRequest request, OptionalLong length, boolean noBody) {
        HttpFields fields = Http2RequestFields.of(
                request,
                length,
                client.userAgent(),
                ContentDecoding.offersGzip(client, request),
                stream.exchange.cookie());
        String scheme = request.origin().isSecure() ? "https" : "http";
        String authority = request.origin().authority();
        String path = request.target();
        return new Http2Flusher.Frame() {
            private Throwable refused;

            @Override
            void generate(ByteBuffer out) {
                if (stream.failure != null) {
                    return;
                }
                if (!connection.openStream(stream)) {
                    refused = new IOException("the HTTP/2 connection closed before the request was sent");
                    return;
                }
                try {
                    generator.requestHeaders(out, stream.id, request.method(), scheme, authority, path, fields, noBody);
                } catch (IllegalArgumentException bad) {
                    refused = bad; // checked before anything was encoded: the HPACK state is unchanged
                    return;
                }
                stream.headersSent = true;
            }

            @Override
            void written() {
                Throwable cause = refused;
                if (cause instanceof IllegalArgumentException) {
                    connection.failStream(
                            stream,
                            new IOException("cannot send " + request + ": " + cause.getMessage()),
                            ErrorCode.CANCEL,
                            false);
                } else if (cause != null) {
                    connection.failStream(stream, cause, null, true); // never sent: may go to another connection
                } else if (noBody) {
                    connection.requestEnded(stream);
                }
            }

            @Override
            void failed(Throwable cause) {
                connection.sendingFailed(stream, cause, null, !stream.headersSent);
            }
        };
    }

    /**
     * The writer stopped before the end of the request. If the stream failed, whoever failed it completed the
     * exchange. If the server sent its whole response first, the request is cut short with RST_STREAM CANCEL (RFC
     * 9113 8.1: the response stands) and the stream ends normally.
     */
    private void stopSending(Http2Stream stream) {
        int id = connection.answeredEarly(stream);
        if (id != 0) {
            connection.offerControl(out -> generator.rstStream(out, id, ErrorCode.CANCEL));
            connection.requestEnded(stream);
        }
    }

    private void sendStream(Http2Stream stream, InputStream in, OptionalLong length) throws IOException {
        long expected = length.orElse(-1);
        long sent = 0;
        RetainableByteBuffer chunk = client.bufferPool().acquire(flusher.maxDataPayload(), false);
        try {
            ByteBuffer bytes = chunk.byteBuffer();
            byte[] array = bytes.array();
            int offset = bytes.arrayOffset();
            int room = Math.min(connection.maxPayload(), chunk.capacity());
            while (true) {
                int want = expected < 0 ? room : (int) Math.min(room, expected - sent);
                if (want == 0) {
                    break;
                }
                int n = in.read(array, offset, want);
                if (n < 0) {
                    break;
                }
                sent += n;
                sendData(stream, ByteBuffer.wrap(array, offset, n), sent == expected);
            }
        } finally {
            chunk.release();
        }
        if (expected >= 0 && sent < expected) {
            throw new IOException("request body ended after " + sent + " of its " + expected + " bytes");
        }
        if (expected < 0 || expected == 0) {
            sendData(stream, ByteBuffer.allocate(0), true); // END_STREAM on an empty DATA frame
        }
    }

    /** Sends {@code data} in DATA frames as the send windows allow, waiting for each frame to be written. */
    private void sendData(Http2Stream stream, ByteBuffer data, boolean last) throws IOException {
        do {
            int n = data.hasRemaining() ? credit(stream, Math.min(data.remaining(), connection.maxPayload())) : 0;
            ByteBuffer part = data.slice(data.position(), n);
            data.position(data.position() + n);
            boolean end = last && !data.hasRemaining();
            FutureCallback written = new FutureCallback();
            flusher.offer(new Http2Flusher.Frame() {
                @Override
                void generate(ByteBuffer out) {
                    if (stream.failure != null || stream.closed) {
                        // Failed, or reset by the server once it had answered: nothing more goes on the stream.
                        connection.returnCredit(n);
                        return;
                    }
                    if (out.remaining() < 9 + n) {
                        throw new BufferOverflowException();
                    }
                    generator.dataHeader(out, stream.id, n, end);
                    out.put(part.duplicate());
                }

                @Override
                void written() {
                    stream.notIdle(); // the connection accepted request bytes: progress for the stream's idle timeout
                    written.succeeded();
                }

                @Override
                void failed(Throwable cause) {
                    written.failed(cause);
                }
            });
            written.block();
            if (stream.failure != null || stream.closed) {
                throw new StreamGone();
            }
        } while (data.hasRemaining());
    }

    /**
     * Takes send-window credit for up to {@code want} bytes, waiting (on this virtual thread) until both the
     * stream's and the connection's windows are open.
     */
    private int credit(Http2Stream stream, int want) throws IOException {
        while (true) {
            int n = connection.takeCredit(stream, want);
            if (n > 0) {
                return n;
            }
            LockSupport.park(this);
            if (Thread.interrupted()) {
                InterruptedIOException interrupted = new InterruptedIOException("interrupted sending the request");
                connection.abortStream(stream, interrupted);
                Thread.currentThread().interrupt();
                throw interrupted;
            }
        }
    }
}
