package dev.quarry.server.internal.h2;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.BadMessageException;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.HeaderBlock;
import dev.quarry.http.h2.Http2Exception;
import dev.quarry.http.h2.Http2Messages;
import dev.quarry.http.h2.RequestHead;
import dev.quarry.io.EndPoint;
import dev.quarry.server.Http2Config;
import dev.quarry.server.internal.BodyDataRate;
import dev.quarry.server.internal.Exchange;
import dev.quarry.server.internal.Http2Upgrade;
import dev.quarry.server.internal.ServerContext;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Opens the streams of one HTTP/2 connection for new requests: from HEADERS on a new stream id, or from the request
 * of an {@code Upgrade: h2c} (stream 1). It enforces the stream id order, the concurrency limit and the race with our
 * GOAWAY, registers the stream, builds its {@link Exchange}, and answers a request it cannot hand to a handler itself
 * (431, a bad target). The connection dispatches the streams it returns.
 *
 * <p>Threading: the producer only (the upgraded stream on the opening thread, before production starts); stream
 * state is changed under the connection's lock. O(1) per stream: the stream, its exchange and its task are the only
 * allocations, as before.
 */
final class Http2StreamOpener {
    private final ServerContext context;
    private final Http2Config config;
    private final ReentrantLock lock;
    private final EndPoint endPoint;
    private final Http2StreamTable streams;
    private final Http2Closer closer;
    private final Http2ControlFrames control;
    private final Http2StreamIdleChecker idleChecker;
    private final Http2ServerConnection connection;

    Http2StreamOpener(
            ServerContext context,
            ReentrantLock lock,
            EndPoint endPoint,
            Http2StreamTable streams,
            Http2Closer closer,
            Http2ControlFrames control,
            Http2StreamIdleChecker idleChecker,
            Http2ServerConnection connection) {
        this.context = context;
        this.config = context.http2Config();
        this.lock = lock;
        this.endPoint = endPoint;
        this.streams = streams;
        this.closer = closer;
        this.control = control;
        this.idleChecker = idleChecker;
        this.connection = connection;
    }

    /**
     * Opens stream 1 for the request of an {@code Upgrade: h2c}, with the client's settings from that request.
     *
     * @return the stream to dispatch to a handler, or null if the session answered the request itself
     */
    Http2Stream openUpgraded(Http2Upgrade.UpgradedRequest request) {
        control.onSettingsFromUpgrade(Http2UpgradeSettings.decode(request.settings()));
        streams.lastStreamId(1);
        Http2Stream stream = new Http2Stream(1, connection, control.peerInitialWindow());
        stream.initReceiveWindow(config.initialStreamWindow());
        long length = request.body().length;
        try {
            Exchange exchange = new Exchange(
                    context,
                    stream,
                    endPoint,
                    request.method(),
                    request.target(),
                    HttpVersion.HTTP_2,
                    request.fields(),
                    endPoint.isSecure() ? "https" : "http",
                    request.fields().get(HttpHeader.HOST).orElse(""),
                    length);
            stream.exchange(exchange, length);
        } catch (BadMessageException x) {
            register(stream);
            stream.onTrailers(null);
            sendError(stream, x.status(), x.reason());
            return null;
        }
        lock.lock();
        try {
            if (length > 0) {
                stream.onData(ByteBuffer.wrap(request.body()), null, 0, 0, true);
            } else {
                stream.onTrailers(null);
            }
        } finally {
            lock.unlock();
        }
        register(stream);
        context.statistics().onHttp2Request();
        return stream;
    }

    /**
     * HEADERS on a stream id that is not open: a new request.
     *
     * @return the stream to dispatch to a handler, or null if it was ignored (after our GOAWAY), refused, or answered
     *     by the session
     * @throws Http2Exception for a stream id that was already used, or a malformed request
     */
    Http2Stream open(int streamId, HeaderBlock block, boolean endStream) {
        int lastStreamId = streams.lastStreamId();
        if (streamId <= lastStreamId) {
            throw Http2Exception.connection(
                    ErrorCode.STREAM_CLOSED, "HEADERS on closed stream " + streamId + " (last " + lastStreamId + ")");
        }
        Http2Stream stream = new Http2Stream(streamId, connection, control.peerInitialWindow());
        stream.initReceiveWindow(config.initialStreamWindow());
        // The server may already hold as much unread request content as its budget allows: a new body would only add to
        // it. Such a stream is refused before any processing, so that the client may retry it; requests without a
        // body are still served.
        boolean overBudget = !endStream && context.http2Budget().isSpent();
        boolean ignore;
        boolean refuse;
        lock.lock();
        try {
            // One critical section with Http2Closer.goAway(), which may run on another thread (stop, timer): either the
            // GOAWAY
            // comes first and this stream is ignored (RFC 9113 6.8), or its last-stream-id covers this stream, which
            // is then already registered, so that the GOAWAY's completion does not close under it.
            streams.lastStreamId(streamId);
            ignore = closer.goAwaySent();
            // The limit counts the streams open on the wire (RFC 9113 5.1.2): a stream whose response ended is closed
            // for the client, which may open the next one before the handler's thread has returned and the stream has
            // left the table. Those still count toward a second bound, so that handlers lingering after their
            // responses cannot pile up without limit on one connection.
            int max = config.maxConcurrentStreams();
            refuse = !ignore && (overBudget || streams.activeCount() >= max || streams.size() >= 2L * max);
            if (!ignore && !refuse) {
                streams.put(stream);
            }
        } finally {
            lock.unlock();
        }
        if (ignore) {
            return null;
        }
        if (refuse) {
            if (overBudget) {
                context.http2Budget().onStreamRefused();
            }
            connection.sendReset(streamId, ErrorCode.REFUSED_STREAM);
            return null;
        }
        idleChecker.schedule();
        if (block.tooLarge()) {
            answerWithError(
                    stream,
                    endStream,
                    HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE_431,
                    "request header fields too large");
            return null;
        }
        // A stream error from here on (a malformed request) resets the registered stream and removes it.
        RequestHead head = Http2Messages.request(streamId, block);
        Exchange exchange;
        try {
            exchange = new Exchange(
                    context,
                    stream,
                    endPoint,
                    head.method(),
                    head.path() != null ? head.path() : head.authority(),
                    HttpVersion.HTTP_2,
                    head.fields(),
                    head.scheme() != null ? head.scheme() : endPoint.isSecure() ? "https" : "http",
                    head.authority(),
                    head.contentLength());
        } catch (BadMessageException x) {
            answerWithError(stream, endStream, x.status(), x.reason());
            return null;
        }
        if (endStream && head.contentLength() > 0) {
            throw Http2Exception.stream(
                    streamId, ErrorCode.PROTOCOL_ERROR, "content-length " + head.contentLength() + " but no DATA");
        }
        long minRate = context.config().minRequestBodyRate();
        BodyDataRate bodyRate = minRate > 0 && !endStream ? new BodyDataRate(minRate) : null;
        lock.lock();
        try {
            if (bodyRate != null) {
                stream.bodyRate(bodyRate); // only a request with a body can be too slow to send it
            }
            stream.exchange(exchange, head.contentLength());
            if (endStream) {
                stream.onTrailers(null);
            } else if (head.fields().containsToken(HttpHeader.EXPECT, "100-continue")) {
                stream.expectContinue(); // RFC 9110 10.1.1: the client holds its DATA until the handler reads
            }
        } finally {
            lock.unlock();
        }
        context.statistics().onHttp2Request();
        return stream;
    }

    private void register(Http2Stream stream) {
        streams.register(stream);
        idleChecker.schedule();
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
        connection.send(new Http2Flusher.ResponseEntry(
                stream,
                status,
                fields,
                ByteBuffer.wrap(body),
                true,
                null,
                Callback.from(InvocationType.NON_BLOCKING, () -> connection.onStreamCompleted(stream), x -> {})));
    }

    @Override
    public String toString() {
        return "Http2StreamOpener{last=" + streams.lastStreamId() + ", max=" + config.maxConcurrentStreams() + "}";
    }
}
