package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The connect timeout over plain TCP, on loopback: a listening socket whose accept queue is full (it never accepts)
 * makes the kernel drop further SYNs, so a connect neither completes nor is refused until the client gives up.
 */
@ExtendWith(LeakTrackingPoolExtension.class)
class ConnectTimeoutTest {
    private final List<Socket> fillers = new ArrayList<>();
    private HttpClient client;

    @AfterEach
    void stop() throws IOException {
        if (client != null) {
            client.close();
        }
        for (Socket socket : fillers) {
            socket.close();
        }
    }

    @Test
    void aConnectTheServerNeverCompletesTimesOut(ByteBufferPool pool) throws Exception {
        try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), full.getLocalPort());
            boolean dropping = false;
            for (int i = 0; i < 16 && !dropping; i++) {
                Socket filler = new Socket();
                fillers.add(filler);
                try {
                    filler.connect(address, 200);
                } catch (SocketTimeoutException x) {
                    dropping = true; // the queue is full: this SYN was dropped, and the client's will be
                }
            }
            Assumptions.assumeTrue(dropping, "the accept queue never filled here, so no connect hangs");
            client = HttpClient.builder()
                    .connectTimeout(Duration.ofMillis(300))
                    .bufferPool(pool)
                    .build();
            SocketTimeoutException failure = assertThrows(
                    SocketTimeoutException.class,
                    () -> client.send(HttpRequest.get("http://127.0.0.1:" + full.getLocalPort() + "/")));
            assertTrue(failure.getMessage().contains("connect"), failure.getMessage());
            assertTrue(failure.getMessage().contains("timed out after 300 ms"), failure.getMessage());
        }
    }
}
