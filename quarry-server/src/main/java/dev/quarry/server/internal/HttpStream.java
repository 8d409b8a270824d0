package dev.quarry.server.internal;

import dev.quarry.core.Callback;
import dev.quarry.http.HttpFields;
import dev.quarry.server.Content;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.function.Supplier;

/**
 * What an {@link Exchange} needs from its protocol: one HTTP/1.1 exchange on a connection, or one HTTP/2 stream.
 *
 * <p>Thread-safety: {@link #read()} and {@link #demand()} by one reader at a time; {@link #send} one at a time.
 */
public interface HttpStream {

    /** @return the next available request content, or null if none is available now */
    Content.Chunk read();

    /** Asks to call {@link Exchange#onContentAvailable()} once when {@link #read()} would return non-null. */
    void demand();

    /**
     * Sends response bytes.
     *
     * @param head the head, on the first send only (null afterwards)
     * @param content the content, in drain mode; may be empty
     * @param last whether this completes the response
     * @param trailers the trailers, asked for when {@code last}; may be null
     * @param callback completed when written (or failed)
     * @throws RuntimeException only when {@code head} cannot be encoded (a field that would inject a line, a head too
     *     large): then nothing was written and the callback is not called, so the response can still be replaced by
     *     an error response
     */
    void send(ResponseHead head, ByteBuffer content, boolean last, Supplier<HttpFields> trailers, Callback callback);

    /**
     * Sends response bytes that are a region of a file mapping, which faults if the file is truncated while it is sent
     * (the JVM turns the fault into an {@link InternalError} on the thread that copies). A transport that copies
     * content in the JVM where such a fault would hurt more than this send (HTTP/2's flusher, shared by every stream of
     * the connection) copies it under a guard and fails only this send; the default sends it as any content, for
     * transports where a fault already fails only this response's connection.
     *
     * @see #send(ResponseHead, ByteBuffer, boolean, Supplier, Callback)
     */
    default void sendFileMapping(
            ResponseHead head, ByteBuffer mapped, boolean last, Supplier<HttpFields> trailers, Callback callback) {
        send(head, mapped, last, trailers, callback);
    }

    /**
     * Whether {@link #sendFile} can send response content straight from a file (zero-copy): the transport allows it
     * and the framing of the response leaves the bytes as they are (a Content-Length, not chunked, not HEAD). Pure: asks,
     * changes nothing.
     *
     * @param head the head the response would commit with its next write, or null if it is committed already
     * @return whether {@link #sendFile} may be called for the next write
     */
    default boolean canSendFile(ResponseHead head) {
        return false;
    }

    /**
     * Sends response content from a file without copying it through the JVM; only after {@link #canSendFile} said
     * yes for the same head.
     *
     * @param head the head, on the first send only (null afterwards)
     * @param file the file; not closed
     * @param position where the region starts
     * @param count how many bytes
     * @param last whether this completes the response
     * @param callback completed when written (or failed)
     */
    default void sendFile(
            ResponseHead head, FileChannel file, long position, long count, boolean last, Callback callback) {
        callback.failed(new UnsupportedOperationException("sendFile is not supported by " + this));
    }

    /**
     * Asks for a permit to open a file for this stream's response: a connection that multiplexes streams (HTTP/2)
     * bounds how many files its responses keep open, so that a client cannot make it hold one per stream. A stream
     * holds at most one permit; asking again while holding it is granted at once.
     *
     * @param onGranted run, on whichever thread frees a permit, once one is granted to this stream; only if this
     *     returns false
     * @return true if the permit is granted now (always, on a connection without the bound)
     */
    default boolean acquireFilePermit(Runnable onGranted) {
        return true;
    }

    /** Gives back this stream's file permit, if it holds one (the file was closed); idempotent. */
    default void releaseFilePermit() {}

    /**
     * The exchange completed: the response was fully sent and the handler is done. The stream may start the next
     * exchange.
     */
    void succeeded();

    /**
     * The exchange failed after the response was committed: the stream aborts (HTTP/1: close the connection; HTTP/2:
     * reset the stream).
     *
     * @param failure why
     */
    void failed(Throwable failure);

    /**
     * @return whether the stream can no longer carry the exchange because of the client or the network: the connection
     *     closed or failed (a reset, an idle timeout), or the stream was reset. A handler failure seen then is the
     *     client's doing, not the server's, and is not worth a warning.
     */
    default boolean isBroken() {
        return false;
    }
}
