package dev.quarry.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.thread.TryExecutor;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A client-side selector manager connects channels on the selector and opens their connections. */
class SelectorManagerConnectTest {
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private SelectorManager selectors;

    @BeforeEach
    void start() throws Exception {
        selectors = SelectorManager.create("client", 1, TryExecutor.noReserved(pool), IdleTimeouts.none());
        selectors.start();
    }

    @AfterEach
    void stop() throws Exception {
        selectors.stop();
        pool.shutdownNow();
    }

    @Test
    void connectOpensAConnectionThatTalksToThePeer() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CompletableFuture<EchoConnection> opened = new CompletableFuture<>();
            CompletableFuture<EndPoint> closed = new CompletableFuture<>();
            selectors.connect(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()),
                    endPoint -> {
                        EchoConnection connection = new EchoConnection(endPoint);
                        opened.complete(connection);
                        return connection;
                    },
                    closed::complete,
                    opened::completeExceptionally);
            try (Socket peer = server.accept()) {
                EchoConnection connection = opened.get(5, TimeUnit.SECONDS);
                assertTrue(connection.endPoint().isOpen());
                OutputStream out = peer.getOutputStream();
                out.write("ping".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = peer.getInputStream();
                assertArrayEquals("ping".getBytes(StandardCharsets.US_ASCII), in.readNBytes(4));
            }
            assertFalse(closed.get(5, TimeUnit.SECONDS).isOpen());
        }
    }

    @Test
    void refusedConnectIsReportedToOnFailed() throws Exception {
        int port;
        try (ServerSocket closedServer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            port = closedServer.getLocalPort();
        }
        CompletableFuture<Throwable> failed = new CompletableFuture<>();
        selectors.connect(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
                endPoint -> {
                    throw new AssertionError("must not connect");
                },
                endPoint -> {},
                failed::complete);
        assertInstanceOf(ConnectException.class, failed.get(5, TimeUnit.SECONDS));
    }

    @Test
    void cancelFailsThePendingConnectOnce() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Throwable> failed = new CompletableFuture<>();
            SelectorManager.PendingConnect pending = selectors.connect(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()),
                    EchoConnection::new,
                    endPoint -> {},
                    failed::complete);
            // Loopback connects complete at once: cancelling then finds the connect done, or fails it; either way
            // exactly one outcome is reported and a second cancel does nothing.
            boolean cancelled = pending.cancel(new TimeoutException("connect timeout"));
            assertFalse(pending.cancel(new TimeoutException("again")));
            if (cancelled) {
                assertInstanceOf(TimeoutException.class, failed.get(5, TimeUnit.SECONDS));
            }
        }
    }
}
