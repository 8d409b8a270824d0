package dev.quarry.io;

/**
 * A protocol spoken over an {@link EndPoint}: it decides when to read (demand) and what to do with the bytes.
 *
 * <p>Thread-safety: defined by each implementation; the endpoint calls {@link #onOpen()} once before any other
 * method and {@link #onClose(Throwable)} once at the end.
 */
public interface Connection {

    /** @return the endpoint this connection reads and writes */
    EndPoint endPoint();

    /** @return the protocol name, e.g. {@code http/1.1} or {@code h2c} */
    String protocol();

    /** Called once when the connection is opened; usually asks for fill interest. */
    void onOpen();

    /**
     * Called once when the endpoint closed.
     *
     * @param cause why, or null for an orderly close
     */
    void onClose(Throwable cause);

    /**
     * Called when the endpoint was idle for longer than its idle timeout.
     *
     * @return true to close the endpoint now; false if the connection handles it (for example by sending a GOAWAY
     *     and closing later)
     */
    default boolean onIdleExpired() {
        return true;
    }

    /**
     * Asks the connection to finish gracefully: stop accepting new requests, let in-flight ones complete, then
     * close. Idempotent.
     */
    default void shutdown() {
        endPoint().close();
    }

    /** @return whether the connection has no exchange in progress, so that closing it now loses nothing */
    default boolean isIdle() {
        return true;
    }
}
