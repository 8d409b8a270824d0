package dev.quarry.bench.peers;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The client of the idle-connections scenario: opens many keep-alive connections, sends one
 * {@code GET /plaintext} on each and reads the whole response, then keeps them all open and idle.
 *
 * <p>{@code java -cp quarry-peers.jar dev.quarry.bench.peers.IdleClient --port N [--host H] [--connections 10000]
 * [--window 200] [--open-seconds 120] [--hold-seconds 600] [--protocol h1|h2c]}
 *
 * <p>With {@code --protocol h2c} each connection speaks HTTP/2 with prior knowledge ({@link IdleH2cExchange}): the
 * preface and SETTINGS, the server's SETTINGS acknowledged, the request on stream 1; it counts as established once
 * the server acknowledged our SETTINGS and the response is complete.
 *
 * <p>At most {@code window} connections are being opened at once, so that the server's accept queue never
 * overflows (a dropped SYN costs a second). When all are established, or {@code open-seconds} passed, it prints
 * {@code READY established=N failed=F pending=P elapsed-ms=T}; it then holds the connections, reporting a
 * {@code CLOSED-BY-SERVER n} line whenever the server closed some, until {@code hold-seconds} passed or it is
 * killed, and ends with {@code DONE ...}. Exits 1 if no connection could be established.
 *
 * <p>One thread and one selector; not thread-safe, not meant to be shared.
 */
public final class IdleClient {
    private final InetSocketAddress address;
    private final int connections;
    private final int window;
    private final long openNanos;
    private final long holdNanos;
    private final byte[] request;
    private final boolean h2c;
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(16 * 1024);
    private final PrintStream out;

    private int established;
    private int failed;
    private int pending;
    private int closedByServer;

    IdleClient(
            InetSocketAddress address,
            int connections,
            int window,
            long openSeconds,
            long holdSeconds,
            PrintStream out) {
        this(address, connections, window, openSeconds, holdSeconds, false, out);
    }

    IdleClient(
            InetSocketAddress address,
            int connections,
            int window,
            long openSeconds,
            long holdSeconds,
            boolean h2c,
            PrintStream out) {
        this.address = address;
        this.connections = connections;
        this.window = window;
        this.openNanos = TimeUnit.SECONDS.toNanos(openSeconds);
        this.holdNanos = TimeUnit.SECONDS.toNanos(holdSeconds);
        this.out = out;
        this.h2c = h2c;
        String authority = address.getHostString() + ":" + address.getPort();
        this.request = h2c
                ? IdleH2cExchange.opening(Plaintext.PATH, authority)
                : ("GET " + Plaintext.PATH + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * @param args the options, see the class comment
     * @throws IOException if the selector cannot be opened
     */
    public static void main(String[] args) throws IOException {
        String host = "127.0.0.1";
        int port = -1;
        int connections = 10_000;
        int window = 200;
        long openSeconds = 120;
        long holdSeconds = 600;
        String protocol = "h1";
        for (int i = 0; i + 1 < args.length; i += 2) {
            String value = args[i + 1];
            switch (args[i]) {
                case "--host" -> host = value;
                case "--port" -> port = Integer.parseInt(value);
                case "--connections" -> connections = Integer.parseInt(value);
                case "--window" -> window = Integer.parseInt(value);
                case "--open-seconds" -> openSeconds = Long.parseLong(value);
                case "--hold-seconds" -> holdSeconds = Long.parseLong(value);
                case "--protocol" -> protocol = value;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (port <= 0 || connections <= 0 || window <= 0) {
            throw new IllegalArgumentException(String.format(
                    Locale.ROOT,
                    "--port, --connections and --window must be positive: port=%d connections=%d window=%d",
                    port,
                    connections,
                    window));
        }
        if (!protocol.equals("h1") && !protocol.equals("h2c")) {
            throw new IllegalArgumentException("--protocol must be h1 or h2c: " + protocol);
        }
        IdleClient client = new IdleClient(
                new InetSocketAddress(host, port),
                connections,
                window,
                openSeconds,
                holdSeconds,
                protocol.equals("h2c"),
                System.out);
        if (client.run() == 0) {
            System.exit(1);
        }
    }

    /**
     * Opens the connections, holds them, and closes them.
     *
     * @return how many connections were established
     * @throws IOException if the selector cannot be opened
     */
    int run() throws IOException {
        try (Selector selector = Selector.open()) {
            long start = System.nanoTime();
            open(selector, start + openNanos);
            out.printf(
                    Locale.ROOT,
                    "READY established=%d failed=%d pending=%d elapsed-ms=%d%n",
                    established,
                    failed,
                    pending,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            out.flush();
            if (established > 0) {
                hold(selector, System.nanoTime() + holdNanos);
            }
            for (SelectionKey key : selector.keys()) {
                key.channel().close();
            }
            out.printf(Locale.ROOT, "DONE established=%d closed-by-server=%d%n", established, closedByServer);
            out.flush();
            return established;
        }
    }

    @Override
    public String toString() {
        return String.format(
                Locale.ROOT,
                "IdleClient[%s %s connections=%d window=%d established=%d failed=%d pending=%d closed-by-server=%d]",
                address,
                h2c ? "h2c" : "h1",
                connections,
                window,
                established,
                failed,
                pending,
                closedByServer);
    }

    private void open(Selector selector, long deadline) throws IOException {
        int started = 0;
        while ((started < connections || pending > 0) && System.nanoTime() - deadline < 0) {
            while (pending < window && started < connections) {
                started++;
                connect(selector);
            }
            selector.select(100);
            for (SelectionKey key : selector.selectedKeys()) {
                Connection connection = (Connection) key.attachment();
                try {
                    if (connection.advance(key)) {
                        pending--;
                        established++;
                    }
                } catch (IOException e) {
                    pending--;
                    failed++;
                    key.channel().close();
                    if (failed <= 3) {
                        out.println("connection failed: " + e);
                    }
                }
            }
            selector.selectedKeys().clear();
        }
    }

    private void connect(Selector selector) {
        SocketChannel channel = null;
        try {
            channel = SocketChannel.open();
            channel.configureBlocking(false);
            Connection connection = new Connection();
            if (channel.connect(address)) {
                channel.register(selector, SelectionKey.OP_WRITE, connection);
                connection.state = State.WRITING;
            } else {
                channel.register(selector, SelectionKey.OP_CONNECT, connection);
            }
            pending++;
        } catch (IOException e) {
            failed++;
            if (failed <= 3) {
                out.println("connect failed: " + e);
            }
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
        }
    }

    private void hold(Selector selector, long deadline) throws IOException {
        int reported = 0;
        while (System.nanoTime() - deadline < 0) {
            selector.select(1000);
            for (SelectionKey key : selector.selectedKeys()) {
                SocketChannel channel = (SocketChannel) key.channel();
                readBuffer.clear();
                int read;
                try {
                    read = channel.read(readBuffer);
                } catch (IOException e) {
                    read = -1;
                }
                if (read < 0) {
                    closedByServer++;
                    channel.close();
                }
            }
            selector.selectedKeys().clear();
            if (closedByServer != reported) {
                reported = closedByServer;
                out.printf(Locale.ROOT, "CLOSED-BY-SERVER %d%n", closedByServer);
                out.flush();
            }
        }
    }

    private enum State {
        CONNECTING,
        WRITING,
        READING,
        IDLE
    }

    /** One connection's progress through connect, request, response. Confined to the client's thread. */
    private final class Connection {
        private State state = State.CONNECTING;
        private int written;
        private byte[] response = new byte[512];
        private int received;
        private final IdleH2cExchange exchange = h2c ? new IdleH2cExchange() : null;

        /** @return whether this step completed the response, so that the connection is now idle */
        boolean advance(SelectionKey key) throws IOException {
            SocketChannel channel = (SocketChannel) key.channel();
            if (state == State.CONNECTING) {
                if (!channel.finishConnect()) {
                    return false;
                }
                state = State.WRITING;
            }
            if (state == State.WRITING) {
                written += channel.write(ByteBuffer.wrap(request, written, request.length - written));
                if (written < request.length) {
                    key.interestOps(SelectionKey.OP_WRITE);
                    return false;
                }
                state = State.READING;
                key.interestOps(SelectionKey.OP_READ);
                return false;
            }
            readBuffer.clear();
            int read = channel.read(readBuffer);
            if (read < 0) {
                throw new IOException("closed by the server before the whole response arrived (" + received + " bytes: "
                        + new String(response, 0, received, StandardCharsets.US_ASCII) + ")");
            }
            if (response.length < received + read) {
                response = Arrays.copyOf(response, Math.max(response.length * 2, received + read));
            }
            readBuffer.flip().get(response, received, read);
            received += read;
            if (exchange != null ? !h2cComplete(channel) : !complete()) {
                return false;
            }
            // Keep reading interest while idle, to notice when the server closes the connection.
            state = State.IDLE;
            response = null;
            return true;
        }

        private boolean h2cComplete(SocketChannel channel) throws IOException {
            if (exchange.read(response, received)) {
                // 9 bytes on a connection that has written only its opening: the socket buffer takes them at once.
                ByteBuffer ack = ByteBuffer.wrap(IdleH2cExchange.SETTINGS_ACK);
                channel.write(ack);
                if (ack.hasRemaining()) {
                    throw new IOException("could not write the SETTINGS acknowledgement at once");
                }
            }
            return exchange.complete();
        }

        private boolean complete() throws IOException {
            String text = new String(response, 0, received, StandardCharsets.ISO_8859_1);
            int headersEnd = text.indexOf("\r\n\r\n");
            if (headersEnd < 0) {
                return false;
            }
            if (!text.startsWith("HTTP/1.1 200")) {
                throw new IOException("unexpected response: "
                        + text.substring(0, text.indexOf('\r')).strip());
            }
            String headers = text.substring(0, headersEnd).toLowerCase(Locale.ROOT);
            int at = headers.indexOf("\r\ncontent-length:");
            if (at < 0) {
                throw new IOException("response without Content-Length: " + headers);
            }
            int lineEnd = headers.indexOf('\r', at + 2);
            int length = Integer.parseInt(
                    headers.substring(at + "\r\ncontent-length:".length(), lineEnd < 0 ? headers.length() : lineEnd)
                            .strip());
            return received >= headersEnd + 4 + length;
        }
    }
}
