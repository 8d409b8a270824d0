package dev.quarry.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.thread.TryExecutor;
import dev.quarry.core.timer.HashedWheelTimer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ServerConnectorTest {
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final BlockingQueue<EchoConnection> connections =
            new LinkedTransferQueue<>(); // lock-free: filled on selector threads
    private ServerConnector connector;
    private boolean pauseNewConnections;

    @TempDir
    Path tempDir;

    @AfterEach
    void stop() throws Exception {
        if (connector != null) {
            connector.stop();
        }
        pool.shutdownNow();
    }

    private ConnectionFactory echoFactory() {
        return new ConnectionFactory() {
            @Override
            public String protocol() {
                return "echo";
            }

            @Override
            public Connection newConnection(ServerConnector connector, EndPoint endPoint) {
                EchoConnection connection = new EchoConnection(endPoint);
                connection.paused.set(pauseNewConnections);
                connections.add(connection);
                return connection;
            }
        };
    }

    private ServerConnector start(String transport, int maxConnections) throws IOException {
        return start(transport, maxConnections, Duration.ofSeconds(30), IdleTimeouts.none());
    }

    private ServerConnector start(
            String transport, int maxConnections, Duration idleTimeout, EndPointIdleTimeout.Factory idleTimeouts)
            throws IOException {
        boolean unix = transport.equals("unix");
        ServerConnector.Config config = new ServerConnector.Config(
                "test",
                unix ? Optional.empty() : Optional.of("127.0.0.1"),
                0,
                unix ? Optional.of(tempDir.resolve("quarry.sock")) : Optional.empty(),
                128,
                1,
                1,
                maxConnections,
                idleTimeout,
                List.of(echoFactory()));
        connector = ServerConnector.create(config, TryExecutor.noReserved(pool), idleTimeouts);
        connector.start();
        return connector;
    }

    private ServerConnector create(String host, int port) {
        ServerConnector.Config config = new ServerConnector.Config(
                "test",
                Optional.of(host),
                port,
                Optional.empty(),
                128,
                1,
                1,
                0,
                Duration.ofSeconds(30),
                List.of(echoFactory()));
        connector = ServerConnector.create(config, TryExecutor.noReserved(pool), IdleTimeouts.none());
        return connector;
    }

    private SocketChannel connect() throws IOException {
        SocketAddress address = connector.boundAddress().orElseThrow();
        SocketChannel client = address instanceof UnixDomainSocketAddress
                ? SocketChannel.open(StandardProtocolFamily.UNIX)
                : SocketChannel.open();
        client.connect(address);
        return client;
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
            Thread.sleep(5); // polling interval of a condition wait
        }
    }

    private static byte[] readExactly(SocketChannel client, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        while (buffer.hasRemaining()) {
            if (client.read(buffer) < 0) {
                throw new IOException("EOF after " + buffer.position() + " of " + length + " bytes");
            }
        }
        return buffer.array();
    }

    @Test
    void anUnresolvableHostIsNamedInsteadOfAnExceptionClass() {
        // .invalid never resolves (RFC 6761 6.4).
        ServerConnector connector = create("no-such-host.invalid", 0);

        UnknownHostException x = assertThrows(UnknownHostException.class, connector::start);
        assertEquals("cannot resolve host 'no-such-host.invalid'", x.getMessage());
    }

    @Test
    void aBindFailureThatNamesTheAddressItselfIsNotDoubled() {
        InetSocketAddress wildcard = new InetSocketAddress(8080);

        assertEquals(
                "Address already in use",
                ServerConnector.withoutAddress("Address already in use: " + wildcard, wildcard));
        assertEquals(
                "Address already in use",
                ServerConnector.withoutAddress("Address already in use (0.0.0.0:8080)", wildcard));
        assertEquals("Permission denied", ServerConnector.withoutAddress("Permission denied", wildcard));
        assertEquals("failed", ServerConnector.withoutAddress(null, wildcard));
    }

    @Test
    void aBusyPortNamesTheAddressOnce() throws IOException {
        try (ServerSocketChannel busy = ServerSocketChannel.open()) {
            busy.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = ((InetSocketAddress) busy.getLocalAddress()).getPort();
            ServerConnector connector = create("127.0.0.1", port);

            IOException x = assertThrows(IOException.class, connector::start);
            assertTrue(x.getMessage().startsWith("cannot bind 127.0.0.1:" + port + ": "), x.getMessage());
        }
    }

    @Test
    void addressesAreDescribedTheWayPeopleWriteThem() throws IOException {
        assertEquals("0.0.0.0:8080", ServerConnector.describe(new InetSocketAddress(8080)));
        assertEquals("127.0.0.1:80", ServerConnector.describe(new InetSocketAddress("127.0.0.1", 80)));
        assertEquals(
                "[0:0:0:0:0:0:0:1]:80",
                ServerConnector.describe(new InetSocketAddress(InetAddress.getByName("::1"), 80)));
        InetSocketAddress byName = new InetSocketAddress("localhost", 80);
        assertEquals(
                "localhost (" + byName.getAddress().getHostAddress().replaceAll("(.*:.*)", "[$1]") + ":80)",
                ServerConnector.describe(byName));
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "unix"})
    void echoesBytesOverEachTransport(String transport) throws Exception {
        start(transport, 0);
        try (SocketChannel client = connect()) {
            byte[] message = "hello quarry".getBytes();
            client.write(ByteBuffer.wrap(message));
            assertArrayEquals(message, readExactly(client, message.length));
        }
    }

    @Test
    void bindsAnEphemeralPortAndDescribesItself() throws Exception {
        start("tcp", 0);
        assertTrue(connector.localPort() > 0);
        assertEquals("echo on 127.0.0.1:" + connector.localPort(), connector.describe());
    }

    @Test
    void unixSocketFileIsRemovedWhenTheConnectorStops() throws Exception {
        start("unix", 0);
        Path socket = tempDir.resolve("quarry.sock");
        assertTrue(Files.exists(socket));
        connector.stop();
        assertFalse(Files.exists(socket));
        connector = null;
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "unix"})
    void largeTransfersCompleteThroughPendingWrites(String transport) throws Exception {
        start(transport, 0);
        byte[] data = new byte[4 * 1024 * 1024];
        new Random(42).nextBytes(data);
        try (SocketChannel client = connect()) {
            // Write on another thread: the server echoes while we write, so both sides must progress at once.
            var writer = pool.submit(() -> {
                client.write(ByteBuffer.wrap(data));
                return null;
            });
            assertArrayEquals(data, readExactly(client, data.length));
            writer.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void connectionThatDoesNotDemandPushesBackOnTheClient() throws Exception {
        pauseNewConnections = true;
        start("tcp", 0);
        try (SocketChannel client = connect()) {
            EchoConnection connection = connections.poll(10, TimeUnit.SECONDS);
            client.configureBlocking(false);
            ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
            long written = 0;
            // Without demand the server reads nothing: the kernel buffers fill and then refuse more.
            for (int zeroWrites = 0; zeroWrites < 100 && written < 64L * 1024 * 1024; ) {
                chunk.clear();
                int n = client.write(chunk);
                written += n;
                zeroWrites = n == 0 ? zeroWrites + 1 : 0;
            }
            assertTrue(written < 64L * 1024 * 1024, "the client was never pushed back");
            assertEquals(0, connection.echoed.get(), "nothing was read without demand");

            connection.resume();
            client.configureBlocking(true);
            long received = 0;
            ByteBuffer in = ByteBuffer.allocate(64 * 1024);
            while (received < written) {
                in.clear();
                int n = client.read(in);
                if (n < 0) {
                    connection.closed.await(5, TimeUnit.SECONDS);
                    throw new AssertionError(
                            "server closed after echoing " + received + " of " + written + ": " + connection);
                }
                received += n;
            }
            assertEquals(written, received);
        }
    }

    @Test
    void capOnOpenConnectionsDefersAcceptingUntilOneCloses() throws Exception {
        start("tcp", 2);
        SocketChannel first = connect();
        SocketChannel second = connect();
        await(() -> connector.openConnections() == 2, "two connections are open");
        try (SocketChannel third = connect()) { // completes in the kernel's accept queue
            third.write(ByteBuffer.wrap(new byte[] {1}));
            assertEquals(2, connector.openConnections());

            first.close();
            assertArrayEquals(new byte[] {1}, readExactly(third, 1), "served once a slot freed");
            assertEquals(2, connector.maxOpenConnections());
        } finally {
            second.close();
        }
    }

    @Test
    void idleConnectionIsClosedAfterItsIdleTimeoutButAnActiveOneIsNot() throws Exception {
        HashedWheelTimer timer = HashedWheelTimer.builder().name("test-timer").build();
        timer.start();
        try {
            start("tcp", 0, Duration.ofMillis(300), IdleTimeouts.of(timer));
            try (SocketChannel idle = connect();
                    SocketChannel active = connect()) {
                long start = System.nanoTime();
                // Keep one connection busy for longer than the timeout while the other stays silent.
                while (idle.isOpen() && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10)) {
                    active.write(ByteBuffer.wrap(new byte[] {7}));
                    assertArrayEquals(new byte[] {7}, readExactly(active, 1));
                    idle.configureBlocking(false);
                    int n = idle.read(ByteBuffer.allocate(1));
                    if (n < 0) {
                        break;
                    }
                }
                long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(elapsed >= 300, "closed early, after " + elapsed + " ms");
                assertTrue(elapsed < 10_000, "idle connection never closed");
                active.write(ByteBuffer.wrap(new byte[] {8}));
                assertArrayEquals(new byte[] {8}, readExactly(active, 1), "the active one survived");
            }
        } finally {
            connector.stop();
            connector = null;
            timer.stop();
        }
    }

    @Test
    void halfCloseFromTheClientIsAnsweredWithEndOfStream() throws Exception {
        start("tcp", 0);
        try (SocketChannel client = connect()) {
            client.write(ByteBuffer.wrap("last words".getBytes()));
            client.shutdownOutput();
            assertArrayEquals("last words".getBytes(), readExactly(client, 10));
            assertEquals(-1, client.read(ByteBuffer.allocate(1)), "server shut its output down");
            EchoConnection connection = connections.poll(10, TimeUnit.SECONDS);
            assertTrue(connection.closed.await(10, TimeUnit.SECONDS), "closed once both directions ended");
        }
    }

    @Test
    void abortResetsTheConnection() throws Exception {
        start("tcp", 0);
        try (SocketChannel client = connect()) {
            EchoConnection connection = connections.poll(10, TimeUnit.SECONDS);
            connection.endPoint().abort();
            assertThrows(IOException.class, () -> {
                ByteBuffer buffer = ByteBuffer.allocate(1);
                int n = client.read(buffer);
                if (n < 0) {
                    throw new AssertionError("orderly EOF instead of a reset");
                }
            });
        }
    }

    @Test
    void gracefulShutdownRefusesNewConnectionsAndClosesIdleOnes() throws Exception {
        start("tcp", 0);
        SocketAddress address = connector.boundAddress().orElseThrow();
        try (SocketChannel client = connect()) {
            await(() -> connector.openConnections() == 1, "connected");
            assertEquals(0, connector.shutdown(Duration.ofSeconds(5)));
            assertEquals(0, connector.openConnections());
            assertEquals(-1, client.read(ByteBuffer.allocate(1)));
            // Once closed, the port may be handed to another process on a busy machine, so "connection refused" is
            // not something this test can rely on; what it can: this connector accepts nothing more.
            long accepted = connector.acceptedConnections();
            try (SocketChannel late = SocketChannel.open()) {
                late.connect(address);
                late.write(ByteBuffer.wrap(new byte[] {1}));
            } catch (IOException expected) {
                // refused: the usual outcome
            }
            assertEquals(accepted, connector.acceptedConnections(), "accepted a connection after shutdown");
            assertTrue(connector.boundAddress().isPresent());
        }
    }
}
