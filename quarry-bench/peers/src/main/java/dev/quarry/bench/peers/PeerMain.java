package dev.quarry.bench.peers;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;

/**
 * Starts one peer server: {@code java -jar quarry-peers.jar <jetty|jetty-vt|netty|netty-epoll|vertx|undertow|helidon>
 * [--port N]
 * [--host H] [--idle-timeout SECONDS] [--tls-keystore FILE.p12 [--tls-password PW] [--tls-provider jdk|openssl]]}
 * (TLS: jetty and netty only; openssl: netty only). {@code load-<quarry|jetty|jdk> URL ...} runs a load generator
 * instead (see {@link LoadMain}).
 *
 * <p>Prints one line, {@code <peer> listening on <host>:<port> (<protocols>) pid <pid>}, once the server accepts
 * connections; the benchmark scripts wait for the port to answer rather than for this line, but a person reads it.
 * Stops cleanly on SIGTERM or Ctrl-C (a shutdown hook closes the server). Exits with 2 for bad arguments and 1 when
 * the server cannot start, with a message naming the problem.
 */
public final class PeerMain {
    private PeerMain() {}

    /**
     * @param args the peer's name, then its options
     * @throws InterruptedException if the main thread is interrupted while the server runs
     */
    public static void main(String[] args) throws InterruptedException {
        if (args.length > 0 && args[0].startsWith("load-")) {
            LoadMain.main(args);
            return;
        }
        Peer peer;
        PeerOptions options;
        try {
            if (args.length < 1) {
                throw new IllegalArgumentException("no peer named");
            }
            peer = Peer.of(args[0]);
            options = PeerOptions.parse(Arrays.copyOfRange(args, 1, args.length));
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println(
                    "usage: java -jar quarry-peers.jar <jetty|jetty-vt|netty|netty-epoll|vertx|undertow|helidon>"
                            + " [--port N] [--host H] [--idle-timeout SECONDS]"
                            + " [--tls-keystore FILE.p12 [--tls-password PW] [--tls-provider jdk|openssl]]");
            System.exit(2);
            return;
        }
        PeerServer server;
        try {
            server = peer.start(options);
        } catch (Exception | LinkageError e) {
            StringBuilder message = new StringBuilder("error: could not start ")
                    .append(peer.id())
                    .append(" on ")
                    .append(options)
                    .append(": ")
                    .append(e.getMessage() != null ? e.getMessage() : e.toString());
            for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
                message.append("\n  caused by: ").append(cause);
            }
            System.err.println(message);
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                server.close();
                            } finally {
                                stopped.countDown();
                            }
                        },
                        "peer-shutdown"));
        System.out.printf(
                "%s listening on %s:%d (%s) pid %d, %d processor(s)%n",
                peer.id(),
                options.host(),
                server.port(),
                server.protocols(),
                ProcessHandle.current().pid(),
                Runtime.getRuntime().availableProcessors());
        System.out.flush();
        // Keeps the JVM up whatever the framework's threads are (daemon or not) until the shutdown hook ran.
        stopped.await();
    }
}
