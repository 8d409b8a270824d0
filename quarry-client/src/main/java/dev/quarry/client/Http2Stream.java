package dev.quarry.client;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.buffer.RetainableByteBuffer;
import dev.quarry.core.timer.HashedWheelTimer;
import dev.quarry.core.timer.IdleTimeout;
import dev.quarry.http.HttpFields;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One exchange on an {@link Http2Connection}: its stream id (given when its HEADERS frame is generated), its
 * flow-control windows, and the response content the server sent and the application has not read yet.
 *
 * <p><b>Content.</b> Each DATA payload is copied into a pooled buffer and queued here, so that one slow reader never
 * holds up the connection's parser; the queue is bounded by the stream's receive window, which is credited back to
 * the server only as the reader consumes ({@link #demand()}): a reader that stops reading stops its stream's server.
 * Chunks are handed to the {@link ResponseContent} one at a time, the next one when the reader consumed the last.
 *
 * <p><b>Idle timeout.</b> A request with an {@linkplain HttpRequest.Builder#idleTimeout idle timeout} of its own gets
 * an {@link IdleTimeout} for its stream alone, which each HEADERS or DATA frame received for it and each of its DATA
 * frames written marks as progress (a timestamp, nothing rescheduled); on expiry the connection resets the stream.
 * Streams of requests without one cost a null field.
 *
 * <p>Thread-safety: every field is guarded by the connection's {@link Http2Lock}, except the handing over of a chunk
 * to the {@link ResponseContent}, done outside the lock by the one thread that took it from the queue (a taken chunk
 * is the only one outstanding until the reader demands again, so chunks are handed over in order).
 */
final class Http2Stream implements ResponseContent.Source {
    final Http2Connection connection;
    final Exchange exchange;
    final ResponseContent content;
    final HttpFields trailers = new HttpFields();
    /** The request's own idle timeout, or null when only the connection's (the client's) applies. Thread-safe. */
    final IdleTimeout idleTimeout;
    /** 0 until the HEADERS frame is generated. */
    int id;

    long sendWindow;
    int receiveWindow;
    /** Bytes the reader consumed and the server was not credited for yet. */
    int unacknowledged;

    boolean headersSent;
    boolean requestEnded;
    boolean responseStarted;
    boolean remoteEnded;
    /** Both directions ended, or the stream failed: it no longer counts against the server's limit. */
    volatile boolean closed;

    volatile Throwable failure;
    /**
     * {@code Expect: 100-continue} (RFC 9110 10.1.1): completed true by a 100, false by the final response or a
     * failure; the writer waits on it between the HEADERS and the DATA. Null when the request expects nothing.
     */
    volatile CompletableFuture<Boolean> continued;
    /** A final response came before any 100: the body is never sent, and the request ends once the response did. */
    boolean bodyWithheld;
    /** The thread writing the request, while it waits for send-window credit. */
    Thread creditWaiter;

    private final ArrayDeque<Chunk> chunks = new ArrayDeque<>();
    private boolean demanded;
    private boolean contentEnded;
    private int offeredLength;

    /** A copied DATA payload and the flow-controlled length it counts for (its padding included). */
    record Chunk(RetainableByteBuffer buffer, int flowLength) {}

    Http2Stream(
            Http2Connection connection, Exchange exchange, long sendWindow, int receiveWindow, HashedWheelTimer timer) {
        this.connection = connection;
        this.exchange = exchange;
        long idleMillis = exchange.request.idleTimeoutMillis();
        // Expiry only resets the stream and fails its exchange under the connection's short lock: never blocks.
        this.idleTimeout = idleMillis <= 0
                ? null
                : IdleTimeout.of(
                        timer,
                        Duration.ofMillis(idleMillis),
                        Invocable.task(InvocationType.NON_BLOCKING, () -> connection.streamIdleExpired(this)));
        this.content = new ResponseContent(this, exchange);
        this.sendWindow = sendWindow;
        this.receiveWindow = receiveWindow;
        this.demanded = true; // the reader's first read asks before any chunk exists
    }

    /** The stream made progress: a frame of it arrived, or one of its DATA frames was written. O(1), lock-free. */
    void notIdle() {
        IdleTimeout timeout = idleTimeout;
        if (timeout != null) {
            timeout.notIdle();
        }
    }

    // --- under the connection's lock ---------------------------------------------------------------------------------

    /** Ends the wait for {@code 100 Continue}, if the request expects one: the writer sends the body if true. */
    void continued(boolean sendBody) {
        CompletableFuture<Boolean> expecting = continued;
        if (expecting != null) {
            expecting.complete(sendBody);
        }
    }

    /** Queues a chunk. @return the chunk to hand to the reader now (outside the lock), or null */
    Chunk queue(Chunk chunk) {
        chunks.add(chunk);
        return takeIfDemanded();
    }

    /** @return the chunk the reader may take now, or null; ends the content when all of it was read */
    Chunk takeIfDemanded() {
        if (!demanded || failure != null) {
            return null;
        }
        Chunk next = chunks.poll();
        if (next != null) {
            demanded = false;
            offeredLength = next.flowLength();
        }
        return next;
    }

    /** @return whether the content is complete now: the server ended the stream and the reader has taken all of it */
    boolean contentCompleteNow() {
        if (remoteEnded && demanded && chunks.isEmpty() && failure == null && !contentEnded) {
            contentEnded = true;
            return true;
        }
        return false;
    }

    /** @return the queued chunks, which the caller releases outside the lock */
    List<Chunk> drain() {
        List<Chunk> all = new ArrayList<>(chunks);
        chunks.clear();
        return all;
    }

    // --- reader side -------------------------------------------------------------------------------------------------

    @Override
    public void demand() {
        connection.demand(this);
    }

    /** Called by the connection under its lock: the reader consumed the chunk it had. @return its length */
    int consumed() {
        demanded = true;
        int length = offeredLength;
        offeredLength = 0;
        return length;
    }

    static void offer(Http2Stream stream, Chunk chunk) {
        ByteBuffer bytes = chunk.buffer().byteBuffer();
        stream.content.offer(bytes.slice(), chunk.buffer());
    }

    @Override
    public void abort(Exchange exchange, Throwable cause) {
        connection.abortStream(this, cause);
    }

    @Override
    public String toString() {
        return "Http2Stream{id=" + id + ", " + exchange.request + ", sendWindow=" + sendWindow + ", receiveWindow="
                + receiveWindow + (remoteEnded ? ", remote ended" : "") + (requestEnded ? ", request ended" : "")
                + (failure != null ? ", failed: " + failure : "") + ", queued=" + chunks.size() + "}";
    }
}
