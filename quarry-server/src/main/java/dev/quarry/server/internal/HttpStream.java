package dev.quarry.server.internal;

import dev.quarry.core.Callback;
import dev.quarry.http.HttpFields;
import dev.quarry.server.Content;
import java.nio.ByteBuffer;
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

    /** @return whether the stream may send 1xx interim responses, e.g. 100 Continue */
    default boolean isPersistent() {
        return true;
    }
}
