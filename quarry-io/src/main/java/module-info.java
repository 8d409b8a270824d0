/**
 * Quarry's non-blocking I/O: selector managers whose selected keys are produced into the adaptive execution strategy,
 * endpoints over {@link java.nio.channels.SocketChannel} for TCP and Unix-domain sockets, connections that read only
 * on demand (which is how back pressure reaches a slow client), and connectors that accept, cap and drain
 * connections.
 */
module dev.quarry.io {
    requires transitive dev.quarry.core;

    exports dev.quarry.io;
}
