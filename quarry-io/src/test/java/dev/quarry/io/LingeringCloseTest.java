package dev.quarry.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.core.thread.TryExecutor;
import dev.quarry.core.timer.HashedWheelTimer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link EndPoint#closeLingering}: the peer reads our last bytes and an orderly end of stream even while its own bytes
 * are still arriving, and the endpoint still closes within its bounds.
 */
class LingeringCloseTest {
    private static final byte[] BYE = "bye".getBytes(StandardCharsets.US_ASCII);

    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final BlockingQueue<RecordingConnection> connections =
            new LinkedTransferQueue<>(); // lock-free: filled on selector threads
    private final HashedWheelTimer timer =
            HashedWheelTimer.builder().name("linger-timer").build();
    private ServerConnector connector;

    /** A connection that does nothing by itself and records how it was closed. */
    private static final class RecordingConnection extends AbstractConnection {
        final CompletableFuture<Throwable> closed = new CompletableFuture<>();

        RecordingConnection(EndPoint endPoint) {
            super(endPoint);
        }

        @Override
        public String protocol() {
            return "recording";
        }

        @Override
        protected void onFillable() {}

        @Override
        public void onOpen() {}

        @Override
        public void onClose(Throwable cause) {
            closed.complete(cause);
        }
    }

    @BeforeEach
    void start() throws IOException {
        timer.start();
        ConnectionFactory factory = new ConnectionFactory() {
            @Override
            public String protocol() {
                return "recording";
            }

            @Override
            public Connection newConnection(ServerConnector connector, EndPoint endPoint) {
                RecordingConnection connection = new RecordingConnection(endPoint);
                connections.add(connection);
                return connection;
            }
        };
        ServerConnector.Config config = new ServerConnector.Config(
                "test",
                Optional.of("127.0.0.1"),
                0,
                Optional.empty(),
                128,
                1,
                1,
                0,
                Duration.ofSeconds(30),
                List.of(factory));
        connector = ServerConnector.create(config, TryExecutor.noReserved(pool), IdleTimeouts.of(timer));
        connector.start();
    }

    @AfterEach
    void stop() throws Exception {
        connector.stop();
        timer.stop();
        pool.shutdownNow();
    }

    private SocketChannel connect() throws IOException {
        SocketChannel client = SocketChannel.open();
        client.connect(connector.boundAddress().orElseThrow());
        return client;
    }

    /** Writes {@link #BYE} and waits until it is in the kernel. */
    private static void writeBye(EndPoint endPoint) throws Exception {
        CompletableFuture<Void> written = new CompletableFuture<>();
        endPoint.write(
                Callback.from(
                        InvocationType.NON_BLOCKING, () -> written.complete(null), written::completeExceptionally),
                ByteBuffer.wrap(BYE));
        written.get(10, TimeUnit.SECONDS);
    }

    /** Reads until the end of stream; a reset surfaces as the IOException that {@code read} throws. */
    private static String readToEnd(SocketChannel client) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(1024);
        while (client.read(buffer) >= 0) {
            if (!buffer.hasRemaining()) {
                throw new AssertionError("more than " + buffer.capacity() + " bytes");
            }
        }
        buffer.flip();
        return StandardCharsets.US_ASCII.decode(buffer).toString();
    }

    /** The client closes before its try-with-resources ends: the behaviour under test. */
    private static void closeEarly(SocketChannel client) throws IOException {
        client.close();
    }

    private static void send(SocketChannel client, int bytes) throws IOException {
        ByteBuffer data = ByteBuffer.allocate(bytes);
        while (data.hasRemaining()) {
            client.write(data);
        }
    }

    @Test
    void unreadInputAtCloseStillGivesThePeerOurBytesAndAnOrderlyEnd() throws Exception {
        try (SocketChannel client = connect()) {
            RecordingConnection connection = connections.poll(10, TimeUnit.SECONDS);
            EndPoint endPoint = connection.endPoint();
            // Input the server never reads: a plain close() now answers with RST. A client on Linux still reads what
            // arrived before it, but one on another system may lose it, and its further writes fail (below).
            send(client, 64 * 1024); // unread at close: a plain close sends RST; well within the kernel buffers
            writeBye(endPoint);

            endPoint.closeLingering(60_000);

            assertEquals("bye", readToEnd(client));
            send(client, 64 * 1024); // a client still uploading after our response: no reset, no broken pipe
            assertTrue(endPoint.isOpen(), "open until the peer closes: " + endPoint);
            assertTrue(endPoint.isInputShutdown(), "the connection sees its input as ended");
            assertEquals(-1, endPoint.fill(ByteBuffer.allocate(16)));
            closeEarly(client);
            assertEquals(null, connection.closed.get(10, TimeUnit.SECONDS), "closed by the peer's end of stream");
            assertFalse(endPoint.isOpen());
        }
    }

    @Test
    void aPeerThatNeverClosesIsClosedWhenTheLingerTimeIsUp() throws Exception {
        try (SocketChannel client = connect()) {
            RecordingConnection connection = connections.poll(10, TimeUnit.SECONDS);
            EndPoint endPoint = connection.endPoint();

            endPoint.closeLingering(200);

            assertEquals("", readToEnd(client), "our FIN arrives at once");
            Throwable cause = connection.closed.get(10, TimeUnit.SECONDS);
            assertInstanceOf(TimeoutException.class, cause, () -> String.valueOf(cause));
        }
    }

    @Test
    void aPeerThatKeepsSendingIsCutOffAfterTheByteBound() throws Exception {
        try (SocketChannel client = connect()) {
            RecordingConnection connection = connections.poll(10, TimeUnit.SECONDS);
            EndPoint endPoint = connection.endPoint();
            endPoint.closeLingering(60_000);
            CompletableFuture<Void> sender = CompletableFuture.runAsync(
                    () -> {
                        try {
                            send(client, (int) (4 * LingeringDrain.MAX_BYTES));
                        } catch (IOException expected) {
                            // the server gave up on an orderly close and reset the connection
                        }
                    },
                    pool);

            Throwable cause = connection.closed.get(10, TimeUnit.SECONDS);

            assertInstanceOf(IOException.class, cause, () -> String.valueOf(cause));
            assertTrue(cause.getMessage().contains("after our close"), cause.getMessage());
            assertTrue(endPoint.bytesIn() >= LingeringDrain.MAX_BYTES, "discarded bytes are counted in");
            sender.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aFillInterestAskedForWhileLingeringIsNeverServedButFailsAtTheClose() throws Exception {
        try (SocketChannel client = connect()) {
            RecordingConnection connection = connections.poll(10, TimeUnit.SECONDS);
            EndPoint endPoint = connection.endPoint();
            endPoint.closeLingering(60_000);
            CompletableFuture<Void> read = new CompletableFuture<>();

            endPoint.fillInterested(
                    Callback.from(InvocationType.NON_BLOCKING, () -> read.complete(null), read::completeExceptionally));
            send(client, 1024);
            client.shutdownOutput();

            assertEquals(null, connection.closed.get(10, TimeUnit.SECONDS), "the drain saw the peer's end");
            assertFailed(read);
        }
    }

    @Test
    void aFillInterestPendingAtTheLingeringCloseFailsAtTheClose() throws Exception {
        try (SocketChannel client = connect()) {
            RecordingConnection connection = connections.poll(10, TimeUnit.SECONDS);
            EndPoint endPoint = connection.endPoint();
            CompletableFuture<Void> read = new CompletableFuture<>();
            endPoint.fillInterested(
                    Callback.from(InvocationType.NON_BLOCKING, () -> read.complete(null), read::completeExceptionally));

            endPoint.closeLingering(60_000);
            send(client, 1024); // read by the drain, not given to the displaced callback
            assertFalse(read.isDone(), "not served while lingering");
            closeEarly(client);

            connection.closed.get(10, TimeUnit.SECONDS);
            assertFailed(read);
        }
    }

    private static void assertFailed(CompletableFuture<Void> read) throws InterruptedException {
        try {
            read.get(10, TimeUnit.SECONDS);
            throw new AssertionError("the callback succeeded; it must fail: no input is served while lingering");
        } catch (java.util.concurrent.ExecutionException expected) {
            assertInstanceOf(IOException.class, expected.getCause(), () -> String.valueOf(expected.getCause()));
        } catch (java.util.concurrent.TimeoutException x) {
            throw new AssertionError("the callback was neither failed nor succeeded", x);
        }
    }
}
