package dev.quarry.io;

import dev.quarry.core.Callback;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Optional;

/**
 * One end of a byte stream (a TCP or Unix-domain socket), used without blocking.
 *
 * <p>Reading is on <em>demand</em>: nothing is read until the connection calls {@link #fillInterested(Callback)},
 * and then only when it calls {@link #fill(ByteBuffer)}. A connection that does not ask stops reading, the kernel's
 * receive buffer fills, and TCP flow control pushes back on the peer: that is how back pressure reaches a slow or
 * abusive client without any buffering in the server.
 *
 * <p>Buffers are in NIO fill mode for {@link #fill} (bytes are appended at the position) and in drain mode for
 * {@link #flush} and {@link #write} (bytes from position to limit are written).
 *
 * <p>Thread-safety: all methods may be called from any thread; at most one fill interest and one write may be pending
 * at a time ({@link java.nio.channels.ReadPendingException}, {@link java.nio.channels.WritePendingException}).
 */
public interface EndPoint {

    /** @return the local address: an {@link java.net.InetSocketAddress} or a {@link java.net.UnixDomainSocketAddress} */
    SocketAddress localAddress();

    /** @return the remote address; for Unix-domain sockets usually an unnamed address */
    SocketAddress remoteAddress();

    /** @return whether the endpoint is open (it may still be shut down for input or output) */
    boolean isOpen();

    /**
     * @return whether the bytes are encrypted on the wire (TLS): requests received over this endpoint are
     *     {@code https}; false for plain TCP and Unix-domain sockets
     */
    default boolean isSecure() {
        return false;
    }

    /**
     * @return the PROXY protocol header that a proxy in front sent on this connection, empty when it sent none (or
     *     the connector does not accept one); when present, {@link #remoteAddress()} and {@link #localAddress()} are
     *     the ones it carried
     */
    default Optional<ProxyHeader> proxyHeader() {
        return Optional.empty();
    }

    /**
     * Reads what is available now, without blocking.
     *
     * @param buffer where to append the bytes, in fill mode
     * @return the number of bytes read, 0 if none are available, -1 at end of stream
     * @throws IOException if the read fails
     */
    int fill(ByteBuffer buffer) throws IOException;

    /**
     * Writes what the socket accepts now, without blocking (a gathering write).
     *
     * @param buffers the bytes to write, in drain mode; their positions advance
     * @return true if every buffer was written completely
     * @throws IOException if the write fails
     */
    boolean flush(ByteBuffer... buffers) throws IOException;

    /**
     * Asks to be called back once when bytes can be read (or the stream ended, or it failed). The callback's
     * invocation type decides how the selector runs it.
     *
     * @param callback succeeded when readable; failed if the endpoint closes or times out first
     * @throws java.nio.channels.ReadPendingException if a fill interest is already pending
     */
    void fillInterested(Callback callback);

    /** @return whether a fill interest is pending */
    boolean isFillInterested();

    /**
     * Completes the pending fill interest now, on the calling thread, as if the endpoint had become readable: the
     * reader then reads what is there, or finds nothing. Used by a graceful shutdown, so that an idle connection reads a
     * request already in its socket buffer (that its selector has not reported yet) before it closes, instead of losing
     * it.
     *
     * @return whether a fill interest was pending (and is now completed); false if there was none
     */
    default boolean wakeFill() {
        return false;
    }

    /**
     * Writes all the buffers, asynchronously: as much as possible now, the rest when the socket can take it.
     *
     * @param callback succeeded once everything is written, failed if the write fails or the endpoint closes
     * @param buffers the bytes to write, in drain mode; owned by the endpoint until the callback completes
     * @throws java.nio.channels.WritePendingException if a write is already pending
     */
    void write(Callback callback, ByteBuffer... buffers);

    /**
     * @return whether {@link #transfer} sends file bytes to the peer without copying them through the JVM; false for
     *     endpoints that must transform the bytes (TLS), which then do not support {@link #transfer} at all
     */
    default boolean canTransferFiles() {
        return false;
    }

    /**
     * Transfers a region of a file to the peer without copying it through the JVM ({@link FileChannel#transferTo},
     * {@code sendfile} on Linux), asynchronously: as much as the socket takes now, the rest when it can take more. It
     * counts as the one pending write: no {@link #write} may start before the callback completes.
     *
     * @param callback succeeded once the whole region was sent; failed if the transfer fails, the file ends before
     *     the region does, or the endpoint closes
     * @param file the file, open for reading; not closed, and owned by the endpoint until the callback completes
     * @param position where the region starts in the file
     * @param count how many bytes to send
     * @throws java.nio.channels.WritePendingException if a write or transfer is already pending
     * @throws UnsupportedOperationException if {@link #canTransferFiles()} is false
     */
    default void transfer(Callback callback, FileChannel file, long position, long count) {
        throw new UnsupportedOperationException("file transfer is not supported by " + this);
    }

    /** Shuts the output down (sends FIN) once pending writes are done; the endpoint closes when input is done too. */
    void shutdownOutput();

    /**
     * How long {@link #closeLingering} waits by default: long enough for a client on a slow link to read a response
     * and close, short enough that a peer ignoring our FIN holds a descriptor only briefly.
     */
    long DEFAULT_LINGER_MILLIS = 2_000;

    /**
     * Ends the connection when the peer may still be sending: shuts the output down (FIN after what was written), then
     * reads and discards what still arrives until the peer closes, {@code lingerMillis} pass or a bounded number of
     * bytes was discarded, and only then closes. Why: closing a socket whose receive buffer holds unread bytes makes
     * the kernel answer with RST, and a client that receives RST may throw away the response it has not read yet,
     * which is the one that explains the close (a 400, a GOAWAY).
     *
     * <p>From this call on the connection is done reading: {@link #fill} returns -1, and a fill interest it had
     * pending or asks for is never served but failed when the endpoint finally closes (so a reader waiting for input
     * learns within the linger time that none will come); it is told {@link Connection#onClose} then too. The default
     * closes at once, after shutting the output down.
     *
     * @param lingerMillis the most time to wait for the peer to close; {@link #DEFAULT_LINGER_MILLIS} unless the
     *     protocol knows better
     */
    default void closeLingering(long lingerMillis) {
        shutdownOutput();
        close();
    }

    /** @return whether the output was shut down */
    boolean isOutputShutdown();

    /** @return whether the end of the input stream was read */
    boolean isInputShutdown();

    /** Closes the endpoint: pending callbacks fail, the connection is told. Idempotent. */
    void close();

    /**
     * Closes the endpoint because of a failure, which pending callbacks receive.
     *
     * @param cause why; may be null
     */
    void close(Throwable cause);

    /** Closes abortively: the peer sees a reset (RST) rather than an orderly end of stream. */
    void abort();

    /** @return the connection reading and writing this endpoint */
    Connection connection();

    /**
     * Replaces the connection, for protocol upgrades (HTTP/1.1 to HTTP/2). The old connection must have no pending
     * fill interest; the new one is opened by the caller.
     *
     * @param connection the new connection
     */
    void setConnection(Connection connection);

    /** @return the idle timeout in milliseconds; 0 or less means none */
    long idleTimeout();

    /**
     * Changes the idle timeout; takes effect at the next check.
     *
     * @param millis the new timeout in milliseconds; 0 or less for none
     */
    void setIdleTimeout(long millis);

    /** @return bytes read so far */
    long bytesIn();

    /** @return bytes written so far */
    long bytesOut();

    /** @return when the endpoint was created, from {@link System#nanoTime()} */
    long createdNanos();
}
