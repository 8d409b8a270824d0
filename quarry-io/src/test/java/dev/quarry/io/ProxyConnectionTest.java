package dev.quarry.io;

import static dev.quarry.io.ProxyHeaders.concat;
import static dev.quarry.io.ProxyHeaders.tcp4;
import static dev.quarry.io.ProxyHeaders.tlv;
import static dev.quarry.io.ProxyHeaders.unix;
import static dev.quarry.io.ProxyHeaders.v1;
import static dev.quarry.io.ProxyHeaders.v2;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.thread.TryExecutor;
import dev.quarry.core.timer.HashedWheelTimer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The PROXY protocol on a real connector, over TCP and Unix-domain sockets, with an echo protocol after it. */
class ProxyConnectionTest {
    private static final byte[] HELLO = "hello, after the header".getBytes(StandardCharsets.US_ASCII);

    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final HashedWheelTimer timer = new HashedWheelTimer();
    // Lock-free: filled on selector threads.
    private final BlockingQueue<EndPoint> endPoints = new LinkedTransferQueue<>();
    private ServerConnector connector;
    private ProxyConnectionFactory proxy;

    @TempDir
    Path tempDir;

    @AfterEach
    void stop() throws Exception {
        if (connector != null) {
            connector.stop();
        }
        timer.stop();
        pool.shutdownNow();
    }

    private void start(String transport, Duration headerTimeout) throws IOException {
        timer.start();
        ConnectionFactory echo = new ConnectionFactory() {
            @Override
            public String protocol() {
                return "echo";
            }

            @Override
            public Connection newConnection(ServerConnector connector, EndPoint endPoint) {
                endPoints.add(endPoint);
                return new EchoConnection(endPoint);
            }
        };
        proxy = new ProxyConnectionFactory(echo, timer, pool, headerTimeout, 1024);
        boolean unix = transport.equals("unix");
        ServerConnector.Config config = new ServerConnector.Config(
                "proxy-test",
                unix ? Optional.empty() : Optional.of("127.0.0.1"),
                0,
                unix ? Optional.of(tempDir.resolve("quarry.sock")) : Optional.empty(),
                128,
                1,
                1,
                0,
                Duration.ofSeconds(30),
                List.of(proxy, echo));
        connector = ServerConnector.create(config, TryExecutor.noReserved(pool), IdleTimeouts.none());
        connector.start();
    }

    private SocketChannel connect() throws IOException {
        SocketAddress address = connector.boundAddress().orElseThrow();
        SocketChannel client = address instanceof UnixDomainSocketAddress
                ? SocketChannel.open(StandardProtocolFamily.UNIX)
                : SocketChannel.open();
        client.connect(address);
        if (!(address instanceof UnixDomainSocketAddress)) {
            client.setOption(StandardSocketOptions.TCP_NODELAY, true); // one segment per write
        }
        client.configureBlocking(false); // so that every read waits on a selector, with a deadline
        return client;
    }

    private static void write(SocketChannel client, byte[] bytes) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
            client.write(buffer);
        }
    }

    private static byte[] readExactly(SocketChannel client, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        while (buffer.hasRemaining()) {
            if (readWithin(client, buffer) < 0) {
                throw new IOException("EOF after " + buffer.position() + " of " + length + " bytes");
            }
        }
        return buffer.array();
    }

    /** @return -1 once the server closed the connection; the bytes it sent instead, if it did not */
    private static int readEnd(SocketChannel client) throws IOException {
        try {
            return readWithin(client, ByteBuffer.allocate(64));
        } catch (SocketException x) {
            return -1; // a reset is a close too
        }
    }

    /** One read, once the channel is readable: failing after 10 s rather than hanging the test. */
    private static int readWithin(SocketChannel client, ByteBuffer buffer) throws IOException {
        try (Selector selector = Selector.open()) {
            client.register(selector, SelectionKey.OP_READ);
            if (selector.select(TimeUnit.SECONDS.toMillis(10)) == 0) {
                throw new IOException("nothing to read within 10 s");
            }
            return client.read(buffer);
        }
    }

    private EndPoint nextEndPoint() throws InterruptedException {
        EndPoint endPoint = endPoints.poll(10, TimeUnit.SECONDS);
        assertNotNull(endPoint, "the next protocol's connection was never created");
        return endPoint;
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "unix"})
    void v1HeaderAndDataInOneSegment(String transport) throws Exception {
        start(transport, Duration.ofSeconds(10));
        try (SocketChannel client = connect()) {
            write(client, concat(v1("PROXY TCP4 192.0.2.7 198.51.100.1 56324 443\r\n"), HELLO));
            assertArrayEquals(HELLO, readExactly(client, HELLO.length), "the bytes after the header are echoed");
            EndPoint endPoint = nextEndPoint();
            assertEquals(new InetSocketAddress(InetAddress.getByName("192.0.2.7"), 56324), endPoint.remoteAddress());
            assertEquals(new InetSocketAddress(InetAddress.getByName("198.51.100.1"), 443), endPoint.localAddress());
            assertEquals(1, endPoint.proxyHeader().orElseThrow().version());
            assertEquals(1, proxy.acceptedHeaders());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "unix"})
    void v2HeaderSplitByteByByte(String transport) throws Exception {
        start(transport, Duration.ofSeconds(10));
        byte[] header = v2(
                0x21,
                0x11,
                tcp4(new int[] {203, 0, 113, 9}, new int[] {10, 0, 0, 1}, 40000, 8443),
                tlv(ProxyHeader.TYPE_AUTHORITY, "x".repeat(300)));
        assertTrue(header.length > 256, "longer than the first read buffer");
        try (SocketChannel client = connect()) {
            for (byte b : header) {
                write(client, new byte[] {b});
            }
            write(client, HELLO);
            assertArrayEquals(HELLO, readExactly(client, HELLO.length));
            EndPoint endPoint = nextEndPoint();
            assertEquals(new InetSocketAddress(InetAddress.getByName("203.0.113.9"), 40000), endPoint.remoteAddress());
            assertEquals(
                    Optional.of("x".repeat(300)),
                    endPoint.proxyHeader().orElseThrow().authority());
        }
    }

    @Test
    void v2UnixAddressesOverAUnixSocket() throws Exception {
        start("unix", Duration.ofSeconds(10));
        try (SocketChannel client = connect()) {
            write(client, concat(v2(0x21, 0x31, unix("/run/client.sock", "/run/quarry.sock")), HELLO));
            assertArrayEquals(HELLO, readExactly(client, HELLO.length));
            assertEquals(
                    UnixDomainSocketAddress.of("/run/client.sock"),
                    nextEndPoint().remoteAddress());
        }
    }

    @Test
    void localCommandKeepsTheConnectionsOwnAddresses() throws Exception {
        start("tcp", Duration.ofSeconds(10));
        try (SocketChannel client = connect()) {
            write(client, concat(v2(0x20, 0x00, new byte[0]), HELLO));
            assertArrayEquals(HELLO, readExactly(client, HELLO.length));
            assertEquals(client.getLocalAddress(), nextEndPoint().remoteAddress());
        }
    }

    @Test
    void aConnectionWithoutHeaderIsServedWithItsOwnAddress() throws Exception {
        start("tcp", Duration.ofSeconds(10));
        try (SocketChannel client = connect()) {
            write(client, HELLO);
            assertArrayEquals(HELLO, readExactly(client, HELLO.length));
            EndPoint endPoint = nextEndPoint();
            assertEquals(client.getLocalAddress(), endPoint.remoteAddress());
            assertEquals(Optional.empty(), endPoint.proxyHeader());
            assertEquals(1, proxy.connectionsWithoutHeader());
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "PROXY TCP4 256.0.0.1 1.2.3.4 1 2\r\n",
                "PROXY TCP4 1.2.3.4 1.2.3.4 1 2\n",
                "PROXY TCP9 garbage\r\n",
                "PROXY TCP4 1111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111"
                        + "111111111111111111111111\r\n"
            })
    void garbageInTheHeaderClosesTheConnection(String line) throws Exception {
        start("tcp", Duration.ofSeconds(10));
        try (SocketChannel client = connect()) {
            write(client, concat(v1(line), HELLO));
            assertEquals(-1, readEnd(client), "closed without an answer");
            assertEquals(1, proxy.rejectedHeaders());
            assertTrue(endPoints.isEmpty(), "the next protocol never saw the connection");
        }
    }

    @Test
    void anOversizedV2HeaderClosesTheConnection() throws Exception {
        start("unix", Duration.ofSeconds(10));
        try (SocketChannel client = connect()) {
            write(client, v2(0x21, 0x11, new byte[2000]));
            assertEquals(-1, readEnd(client));
            assertEquals(1, proxy.rejectedHeaders());
        }
    }

    @Test
    void aHeaderThatDoesNotCompleteInTimeClosesTheConnection() throws Exception {
        start("tcp", Duration.ofMillis(200));
        try (SocketChannel client = connect()) {
            write(client, v1("PROXY TCP4 1.2.3.4"));
            long start = System.nanoTime();
            assertEquals(-1, readEnd(client));
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10));
            assertEquals(1, proxy.rejectedHeaders());
            assertTrue(endPoints.isEmpty());
        }
    }

    @Test
    void aConnectionThatEndsInsideTheHeaderIsClosed() throws Exception {
        start("tcp", Duration.ofSeconds(10));
        try (SocketChannel client = connect()) {
            write(client, v1("PROXY TCP4 1.2.3.4"));
            client.shutdownOutput();
            assertEquals(-1, readEnd(client));
            assertEquals(1, proxy.rejectedHeaders());
        }
    }

    @Test
    void describeNamesTheProtocolAfterTheHeader() throws Exception {
        start("tcp", Duration.ofSeconds(10));
        assertTrue(connector.describe().startsWith("echo on 127.0.0.1:"), connector.describe());
        assertTrue(connector.describe().endsWith(" (PROXY protocol)"), connector.describe());
    }
}
