package dev.quarry.bench.peers;

/**
 * A running peer server. {@link #close()} stops it and waits for its threads to end.
 *
 * <p>Implementations are started by {@link Peer#start(PeerOptions)}; {@code close()} may be called from any thread,
 * once (a second call is harmless).
 */
public interface PeerServer extends AutoCloseable {

    /** @return the port the server listens on (the actual one when it was started on port 0) */
    int port();

    /** @return the protocols the port speaks, e.g. {@code http/1.1, h2c (prior knowledge, upgrade)} */
    String protocols();

    /** Stops the server. */
    @Override
    void close();
}
