package dev.quarry.client;

import dev.quarry.core.buffer.RetainableByteBuffer;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.h2.HeaderBlock;
import dev.quarry.http.h2.Http2Exception;
import dev.quarry.http.h2.Http2Messages;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Turns the server's HEADERS and DATA frames into the responses of one {@link Http2Connection}: the head goes to the
 * exchange (whose future completes on the client's executor), DATA payloads are copied into pooled buffers queued on
 * their stream, trailers join the response, and stream and connection receive windows are credited back to the
 * server (the connection's as data arrives, a stream's only as its reader consumes).
 *
 * <p>Threads: {@link #onData} and {@link #onHeaders} run on the connection's parsing thread (a selector thread) and
 * never block but for the connection's short {@link Http2Lock}; {@link #demand} runs on the application's reading
 * thread. Stateless: the state is the connection's and its streams', guarded by the lock.
 */
final class Http2ResponseReader {
    private final Http2Connection connection;
    private final HttpClient client;
    private final FrameGenerator generator;
    private final Http2Lock lock;

    Http2ResponseReader(Http2Connection connection, HttpClient client, FrameGenerator generator) {
        this.connection = connection;
        this.client = client;
        this.generator = generator;
        this.lock = connection.lock();
    }

    /** The reader consumed its chunk: hand it the next one, and credit the server's window for what it read. */
    void demand(Http2Stream stream) {
        int credit = 0;
        int id;
        Http2Stream.Chunk next;
        boolean complete;
        lock.lock();
        try {
            stream.unacknowledged += stream.consumed();
            id = stream.id;
            if (!stream.remoteEnded && !stream.closed && stream.unacknowledged >= Http2Connection.STREAM_WINDOW / 2) {
                credit = stream.unacknowledged;
                stream.unacknowledged = 0;
                stream.receiveWindow += credit;
            }
            next = stream.takeIfDemanded();
            complete = next == null && stream.contentCompleteNow();
        } finally {
            lock.unlock();
        }
        if (credit > 0) {
            int increment = credit;
            connection.offerControl(out -> generator.windowUpdate(out, id, increment));
        }
        if (next != null) {
            Http2Stream.offer(stream, next);
        } else if (complete) {
            stream.content.complete();
        }
    }

    void onData(int streamId, ByteBuffer data, boolean endStream, int flowControlledLength) {
        RetainableByteBuffer copy = null;
        if (data.hasRemaining()) {
            copy = client.bufferPool().acquire(data.remaining(), false);
            copy.byteBuffer().put(data).flip();
        }
        int connectionCredit = 0;
        Http2Stream stream;
        Http2Stream.Chunk handOver = null;
        boolean complete = false;
        boolean done = false;
        String error = null;
        ErrorCode code = null;
        lock.lock();
        try {
            connectionCredit = connection.creditConnectionLocked(flowControlledLength);
            stream = connection.streamLocked(streamId);
            if (stream == null || stream.closed) {
                stream = null; // reset by us, or already failed: the data is dropped (the connection was credited)
            } else if (!stream.responseStarted) {
                error = "DATA before the response head on stream " + streamId;
                code = ErrorCode.PROTOCOL_ERROR;
            } else if (flowControlledLength > stream.receiveWindow) {
                error = "the server sent " + flowControlledLength + " bytes on stream " + streamId
                        + " whose window was " + stream.receiveWindow;
                code = ErrorCode.FLOW_CONTROL_ERROR;
            } else {
                stream.receiveWindow -= flowControlledLength;
                if (copy != null) {
                    handOver = stream.queue(new Http2Stream.Chunk(copy, flowControlledLength));
                    copy = null;
                } else {
                    stream.unacknowledged += flowControlledLength; // only padding: nothing for the reader to consume
                }
                if (endStream) {
                    stream.remoteEnded = true;
                    complete = handOver == null && stream.contentCompleteNow();
                    if (stream.requestEnded) {
                        connection.closeLocked(stream);
                        done = true;
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        if (copy != null) {
            copy.release();
        }
        if (connectionCredit > 0) {
            int increment = connectionCredit;
            connection.offerControl(out -> generator.windowUpdate(out, 0, increment));
        }
        if (error != null) {
            connection.failStream(stream, connection.badResponse(error), code, false);
            return;
        }
        if (stream != null) {
            stream.notIdle();
        }
        if (handOver != null) {
            Http2Stream.offer(stream, handOver);
        } else if (complete) {
            stream.content.complete();
        }
        if (done) {
            connection.streamDone(stream);
        }
        if (endStream && stream != null) {
            connection.wakeWriter(stream); // it stops sending
        }
    }

    void onHeaders(int streamId, HeaderBlock block, boolean endStream) {
        Http2Stream stream;
        int lastOpened;
        lock.lock();
        try {
            stream = connection.streamLocked(streamId);
            lastOpened = connection.lastStreamIdLocked();
        } finally {
            lock.unlock();
        }
        if (stream == null) {
            if ((streamId & 1) == 1 && streamId <= lastOpened) {
                return; // a stream we reset or failed: its block was decoded (HPACK stays in step) and is dropped
            }
            throw Http2Exception.connection(
                    ErrorCode.PROTOCOL_ERROR, "HEADERS on stream " + streamId + ", which the client did not open");
        }
        if (block.tooLarge()) {
            connection.failStream(
                    stream,
                    connection.badResponse(
                            "response header fields larger than " + client.maxResponseHeaderSize() + " bytes"),
                    ErrorCode.CANCEL,
                    false);
            return;
        }
        if (block.malformed().isPresent()) {
            connection.failStream(
                    stream,
                    connection.badResponse(
                            "malformed response head: " + block.malformed().get()),
                    ErrorCode.PROTOCOL_ERROR,
                    false);
            return;
        }
        stream.notIdle();
        boolean trailers;
        lock.lock();
        try {
            trailers = stream.responseStarted;
        } finally {
            lock.unlock();
        }
        if (trailers) {
            onTrailers(stream, block, endStream);
        } else {
            onResponseHead(stream, block, endStream);
        }
    }

    private void onResponseHead(Http2Stream stream, HeaderBlock block, boolean endStream) {
        int status = parseStatus(block.status());
        if (status < 0 || block.method() != null || block.path() != null || block.scheme() != null) {
            connection.failStream(
                    stream,
                    connection.badResponse("invalid response head: :status " + block.status()),
                    ErrorCode.PROTOCOL_ERROR,
                    false);
            return;
        }
        if (status < 200) {
            if (status == 101 || endStream) {
                connection.failStream(
                        stream,
                        connection.badResponse("interim response " + status + " is invalid here"),
                        ErrorCode.PROTOCOL_ERROR,
                        false);
            }
            if (status == 100) {
                stream.continued(true);
            }
            return; // 1xx: the final response follows
        }
        stream.continued(false); // a final response before 100 Continue: the body is not sent
        boolean complete = false;
        boolean done = false;
        lock.lock();
        try {
            stream.responseStarted = true;
            if (endStream) {
                stream.remoteEnded = true;
                complete = stream.contentCompleteNow();
                if (stream.requestEnded && !stream.closed) {
                    connection.closeLocked(stream);
                    done = true;
                }
            }
        } finally {
            lock.unlock();
        }
        HttpRequest request = stream.exchange.request;
        HttpResponse response = ContentDecoding.response(
                client, request, HttpVersion.HTTP_2, status, "", block.fields(), stream.trailers, stream.content);
        if (complete) {
            stream.content.complete();
        }
        if (!stream.exchange.deliver(response)) {
            connection.abortStream(stream, new IOException("exchange already failed"));
        }
        if (done) {
            connection.streamDone(stream);
        }
        if (endStream) {
            connection.wakeWriter(stream);
        }
    }

    private void onTrailers(Http2Stream stream, HeaderBlock block, boolean endStream) {
        if (!endStream) {
            connection.failStream(
                    stream,
                    connection.badResponse("trailers without END_STREAM on stream " + stream.id),
                    ErrorCode.PROTOCOL_ERROR,
                    false);
            return;
        }
        HttpFields fields = Http2Messages.trailers(stream.id, block);
        boolean complete;
        boolean done = false;
        lock.lock();
        try {
            for (int i = 0; i < fields.size(); i++) {
                stream.trailers.add(fields.field(i));
            }
            stream.remoteEnded = true;
            complete = stream.contentCompleteNow();
            if (stream.requestEnded && !stream.closed) {
                connection.closeLocked(stream);
                done = true;
            }
        } finally {
            lock.unlock();
        }
        if (complete) {
            stream.content.complete();
        }
        if (done) {
            connection.streamDone(stream);
        }
        connection.wakeWriter(stream);
    }

    private static int parseStatus(String status) {
        if (status == null || status.length() != 3) {
            return -1;
        }
        int value = 0;
        for (int i = 0; i < 3; i++) {
            char c = status.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + c - '0';
        }
        return value < 100 ? -1 : value;
    }
}
