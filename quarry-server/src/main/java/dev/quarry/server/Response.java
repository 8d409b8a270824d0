package dev.quarry.server;

import dev.quarry.core.Callback;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.SetCookie;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.function.Supplier;

/**
 * An HTTP response, the same for HTTP/1.1 and HTTP/2. Status and headers may change until the response is
 * committed (its head written), which happens at the first write.
 *
 * <p>Writing is asynchronous with {@link #write(boolean, ByteBuffer, Callback)} (one write pending at a time), or
 * blocking with {@link #outputStream()} and the {@code send} methods, which are meant for blocking handlers.
 *
 * <p>Thread-safety: one writer at a time; the handler may write from any thread.
 *
 * <p>Lifetime: like its {@link Request}, a response must not be used after its handler completed: the server recycles
 * it, with its {@link #headers()}, for a later request. What was made for it ({@link ResponseWrapper}s, the
 * {@link #outputStream()}) notices, and fails with an {@link IllegalStateException} ("response already completed")
 * rather than write into that later request's response; this object itself cannot tell.
 */
public interface Response {

    /** @return the status code, 200 unless set */
    int status();

    /**
     * @param status the status code, 100-599
     * @return this
     * @throws IllegalStateException if the response is committed
     */
    Response status(int status);

    /** @return the header fields; modifiable until committed */
    HttpFields headers();

    /**
     * Sets (replaces) a header field.
     *
     * @param name the field name
     * @param value the value
     * @return this
     */
    default Response header(String name, String value) {
        headers().put(name, value);
        return this;
    }

    /**
     * Adds a Set-Cookie field (one per cookie: Set-Cookie values are never combined).
     *
     * @param cookie the cookie, validated when it was built
     * @return this
     * @throws IllegalStateException if the response is committed
     */
    default Response addCookie(SetCookie cookie) {
        if (isCommitted()) {
            throw new IllegalStateException("response committed, cannot add cookie '" + cookie.name() + "'");
        }
        headers().add(HttpHeader.SET_COOKIE, cookie.toString());
        return this;
    }

    /** @return whether the head was written: status and headers can no longer change */
    boolean isCommitted();

    /**
     * Writes content asynchronously; the first write commits the response. With {@code last} the response is
     * complete (for HTTP/1.1 with unknown length, the final chunk is sent).
     *
     * @param last whether this is the last content
     * @param content the bytes, in drain mode; owned by the response until the callback completes
     * @param callback completed when the bytes were written (or failed); at most one write pending
     */
    void write(boolean last, ByteBuffer content, Callback callback);

    /**
     * Writes a region of a file asynchronously. Where the connection allows it (HTTP/1.1 in cleartext, a known
     * Content-Length, no wrapper that transforms the content) the bytes go from the file to the socket without being
     * copied through the JVM ({@link FileChannel#transferTo}); otherwise they are read in chunks into buffers and written
     * like {@link #write(boolean, ByteBuffer, Callback)}. The channel is not closed.
     *
     * @param file the file, open for reading
     * @param position where the region starts
     * @param count how many bytes
     * @param last whether this completes the response
     * @param callback completed when the region was written (or failed)
     */
    default void write(FileChannel file, long position, long count, boolean last, Callback callback) {
        FileRegionWriter.write(this, file, position, count, last, callback);
    }

    /**
     * @return a blocking, buffered stream over the body; closing it completes the response
     */
    OutputStream outputStream();

    /**
     * Sends a whole text body, blocking until written: {@code text/plain; charset=utf-8} unless a Content-Type was set,
     * with a Content-Length.
     *
     * @param text the body
     * @throws IOException if writing fails
     */
    void send(String text) throws IOException;

    /**
     * Sends a whole body with a status and content type, blocking until written.
     *
     * @param status the status code
     * @param contentType the Content-Type, or null for none
     * @param body the bytes
     * @throws IOException if writing fails
     */
    void send(int status, String contentType, ByteBuffer body) throws IOException;

    /**
     * Sends an error response (status and a short text body) unless the response is committed, blocking.
     *
     * @param status the status code
     * @param message a short explanation for the client
     * @throws IOException if writing fails
     */
    void sendError(int status, String message) throws IOException;

    /**
     * Supplies trailer fields, sent after the content when the protocol allows (HTTP/1.1 chunked, HTTP/2).
     *
     * @param trailers called once when the last content is written
     */
    void trailers(Supplier<HttpFields> trailers);
}
