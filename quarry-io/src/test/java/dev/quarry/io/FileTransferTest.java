package dev.quarry.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.core.thread.TryExecutor;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritePendingException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link EndPoint#transfer}: file regions sent with {@code sendfile}, completed through pending writes. */
class FileTransferTest {
    private static final int MIB = 1024 * 1024;

    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final BlockingQueue<EndPoint> endPoints =
            new LinkedTransferQueue<>(); // lock-free: filled on selector threads
    private ServerConnector connector;

    @TempDir
    Path tempDir;

    @AfterEach
    void stop() throws Exception {
        if (connector != null) {
            connector.stop();
        }
        pool.shutdownNow();
    }

    /** A connection that does nothing by itself: the test drives its endpoint. */
    private static final class IdleConnection extends AbstractConnection {
        IdleConnection(EndPoint endPoint) {
            super(endPoint);
        }

        @Override
        public String protocol() {
            return "idle";
        }

        @Override
        protected void onFillable() {}

        @Override
        public void onOpen() {}
    }

    private void start(String transport) throws IOException {
        boolean unix = transport.equals("unix");
        ConnectionFactory factory = new ConnectionFactory() {
            @Override
            public String protocol() {
                return "idle";
            }

            @Override
            public Connection newConnection(ServerConnector connector, EndPoint endPoint) {
                endPoints.add(endPoint);
                return new IdleConnection(endPoint);
            }
        };
        ServerConnector.Config config = new ServerConnector.Config(
                "test",
                unix ? Optional.empty() : Optional.of("127.0.0.1"),
                0,
                unix ? Optional.of(tempDir.resolve("transfer.sock")) : Optional.empty(),
                128,
                1,
                1,
                0,
                Duration.ofSeconds(30),
                List.of(factory));
        connector = ServerConnector.create(config, TryExecutor.noReserved(pool), IdleTimeouts.none());
        connector.start();
    }

    private SocketChannel connect() throws IOException {
        SocketAddress address = connector.boundAddress().orElseThrow();
        SocketChannel client = address instanceof UnixDomainSocketAddress
                ? SocketChannel.open(StandardProtocolFamily.UNIX)
                : SocketChannel.open();
        client.connect(address);
        return client;
    }

    private Path randomFile(long size) throws IOException {
        Path file = tempDir.resolve("data-" + size);
        Random random = new Random(size);
        byte[] chunk = new byte[MIB];
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            for (long written = 0; written < size; ) {
                random.nextBytes(chunk);
                int n = (int) Math.min(chunk.length, size - written);
                out.write(ByteBuffer.wrap(chunk, 0, n));
                written += n;
            }
        }
        return file;
    }

    private static byte[] digest(Path file, long position, long count) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        ByteBuffer buffer = ByteBuffer.allocate(MIB);
        try (FileChannel in = FileChannel.open(file)) {
            for (long done = 0; done < count; ) {
                buffer.clear().limit((int) Math.min(buffer.capacity(), count - done));
                int n = in.read(buffer, position + done);
                buffer.flip();
                sha.update(buffer);
                done += n;
            }
        }
        return sha.digest();
    }

    /** Reads {@code count} bytes and digests them; fails on an early end of stream. */
    private static byte[] readDigest(SocketChannel client, long count) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        ByteBuffer buffer = ByteBuffer.allocate(256 * 1024);
        for (long done = 0; done < count; ) {
            buffer.clear().limit((int) Math.min(buffer.capacity(), count - done));
            int n = client.read(buffer);
            if (n < 0) {
                throw new EOFException("EOF after " + done + " of " + count + " bytes");
            }
            buffer.flip();
            sha.update(buffer);
            done += n;
        }
        return sha.digest();
    }

    private static Callback completing(CompletableFuture<Void> done) {
        return Callback.from(InvocationType.NON_BLOCKING, () -> done.complete(null), done::completeExceptionally);
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "unix"})
    void transfersAFileRegionIntactOverEachTransport(String transport) throws Exception {
        start(transport);
        Path file = randomFile(24L * MIB + 123);
        long position = 4567;
        long count = 20L * MIB + 89;
        try (SocketChannel client = connect();
                FileChannel channel = FileChannel.open(file)) {
            EndPoint endPoint = endPoints.poll(10, TimeUnit.SECONDS);
            assertTrue(endPoint.canTransferFiles());
            CompletableFuture<Void> done = new CompletableFuture<>();
            long before = endPoint.bytesOut();
            pool.submit(() -> endPoint.transfer(completing(done), channel, position, count));
            assertArrayEquals(digest(file, position, count), readDigest(client, count), "digest of the region");
            done.get(10, TimeUnit.SECONDS);
            assertEquals(count, endPoint.bytesOut() - before, "bytes counted out");
        }
    }

    @Test
    void aClientThatDoesNotReadLeavesThePartialTransferPendingUntilItDoes() throws Exception {
        start("tcp");
        long size = 32L * MIB; // more than the kernel buffers of both ends hold
        Path file = randomFile(size);
        try (SocketChannel client = connect();
                FileChannel channel = FileChannel.open(file)) {
            client.setOption(StandardSocketOptions.SO_RCVBUF, 64 * 1024);
            EndPoint endPoint = endPoints.poll(10, TimeUnit.SECONDS);
            CompletableFuture<Void> done = new CompletableFuture<>();
            endPoint.transfer(completing(done), channel, 0, size);
            assertTrue(endPoint.bytesOut() > 0, "something was sent at once");
            assertTrue(endPoint.bytesOut() < size, "not everything fits: " + endPoint.bytesOut());
            assertFalse(done.isDone(), "pending while the client does not read");
            assertThrows(WritePendingException.class, () -> endPoint.write(Callback.from(() -> {}, x -> {})));

            assertArrayEquals(digest(file, 0, size), readDigest(client, size), "continued when writable");
            done.get(10, TimeUnit.SECONDS);
            // The transfer is over: the endpoint writes again.
            CompletableFuture<Void> next = new CompletableFuture<>();
            endPoint.write(completing(next), ByteBuffer.wrap(new byte[] {42}));
            next.get(10, TimeUnit.SECONDS);
            ByteBuffer one = ByteBuffer.allocate(1);
            client.read(one);
            assertEquals(42, one.get(0));
        }
    }

    @Test
    void aRegionBeyondTheEndOfTheFileFailsWithEndOfFile() throws Exception {
        start("tcp");
        Path file = randomFile(1000);
        try (SocketChannel client = connect();
                FileChannel channel = FileChannel.open(file)) {
            EndPoint endPoint = endPoints.poll(10, TimeUnit.SECONDS);
            CompletableFuture<Void> done = new CompletableFuture<>();
            endPoint.transfer(completing(done), channel, 900, 200);
            assertArrayEquals(digest(file, 900, 100), readDigest(client, 100), "the bytes that exist were sent");
            Throwable failure = assertThrows(Exception.class, () -> done.get(10, TimeUnit.SECONDS))
                    .getCause();
            assertInstanceOf(EOFException.class, failure);
            assertTrue(failure.getMessage().contains("file ended at 1000"), failure.getMessage());
        }
    }

    @Test
    void closingTheEndPointFailsAPendingTransfer() throws Exception {
        start("tcp");
        long size = 32L * MIB;
        Path file = randomFile(size);
        try (SocketChannel client = connect();
                FileChannel channel = FileChannel.open(file)) {
            client.setOption(StandardSocketOptions.SO_RCVBUF, 64 * 1024);
            EndPoint endPoint = endPoints.poll(10, TimeUnit.SECONDS);
            CompletableFuture<Void> done = new CompletableFuture<>();
            endPoint.transfer(completing(done), channel, 0, size);
            assertFalse(done.isDone(), "pending");
            endPoint.close();
            assertThrows(Exception.class, () -> done.get(10, TimeUnit.SECONDS));
            assertTrue(channel.isOpen(), "the file belongs to the caller");
        }
    }
}
