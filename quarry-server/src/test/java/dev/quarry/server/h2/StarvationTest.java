package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.strategy.StrategyStatistics;
import dev.quarry.core.thread.ThreadPoolStatistics;
import dev.quarry.http.HttpFields;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.io.EndPoint;
import dev.quarry.io.TlsConnection;
import dev.quarry.server.h2.TestHandlers.Shape;
import dev.quarry.server.internal.h2.Http2ServerConnection;
import java.io.InputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The "eat what you kill" starvation scenario over HTTP/2, as the issue states it: 4 platform threads, virtual threads
 * off, one connection with 20 streams whose blocking handlers read request bodies larger than the initial stream
 * window, which the client only sends after receiving WINDOW_UPDATEs. While every pooled thread is blocked in a
 * handler (the others queued), a PING on the same connection and a request on a second connection are answered, and
 * then all 20 exchanges complete.
 *
 * <p>Why it works. The HTTP/2 connection's read task declares {@code EITHER} (virtual threads are off and handlers may
 * block), and so does each stream's task. The selector's {@code AdaptiveExecutionStrategy} consumes an {@code EITHER}
 * task on its own thread only after a reserved thread took production over by direct hand-off; with no reserved thread
 * to spare, it invokes the task in non-blocking mode (produce-invoke-consume). {@code Http2ServerConnection.produce()}
 * then only parses: SETTINGS, PING, WINDOW_UPDATE, RST_STREAM and DATA are handled by the producer as it parses them
 * (DATA is queued to its stream and wakes the handler blocked on it, a non-blocking step), never queued behind
 * application code; and a stream's task, invoked in non-blocking mode, makes the {@code HandlerInvoker} dispatch the
 * blocking handler to the pool's queue instead of running it on the producing thread. So some thread always produces:
 * the PING is answered, each DATA frame reaches its blocked handler, whose consumption sends the WINDOW_UPDATEs that
 * let the client send the rest; each finished handler frees a thread for a queued one. A request on another connection
 * goes through the same producer, and its async (non-blocking) handler runs in place.
 */
class StarvationTest extends Http2ServerTestSupport {
    private static final int THREADS = 4;
    private static final int STREAMS = 20;
    private static final int WINDOW = 16 * 1024;
    private static final int BODY = 64 * 1024;

    @Test
    void blockedHandlersStarveNeitherTheirConnectionNorTheServer() throws Exception {
        AtomicInteger reading = new AtomicInteger();
        start(builder -> builder.virtualThreads(false)
                .maxThreads(THREADS)
                .http2Config(new Limits().initialStreamWindow(WINDOW).build())
                .route("GET /health", TestHandlers.hello(Shape.ASYNC))
                .route("POST /upload", TestHandlers.blocking((req, res) -> {
                    reading.incrementAndGet();
                    MessageDigest digest = MessageDigest.getInstance("SHA-256");
                    byte[] buffer = new byte[8192];
                    long total = 0;
                    try (InputStream in = req.inputStream()) {
                        for (int n; (n = in.read(buffer)) >= 0; ) {
                            digest.update(buffer, 0, n);
                            total += n;
                        }
                    }
                    res.send(total + " " + HexFormat.of().formatHex(digest.digest()));
                })));
        Http2TestClient client = connect();
        byte[][] bodies = new byte[STREAMS][];
        int[] ids = new int[STREAMS];
        CountDownLatch proceed = new CountDownLatch(1);
        List<CompletableFuture<Void>> senders = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < STREAMS; i++) {
                bodies[i] = randomBytes(BODY, i);
                ids[i] = client.nextStreamId();
                client.sendHeaders(ids[i], "POST", "http", client.authority(), "/upload", new HttpFields(), false);
                // The first window now; the rest only once the test saw the server saturated, and as WINDOW_UPDATEs
                // open the stream's window again (sendDataFlowControlled waits for them).
                int stream = ids[i];
                byte[] body = bodies[i];
                client.sendDataFlowControlled(stream, java.util.Arrays.copyOf(body, WINDOW), false, TIMEOUT);
                senders.add(CompletableFuture.runAsync(
                        () -> {
                            await(proceed);
                            client.sendDataFlowControlled(
                                    stream, java.util.Arrays.copyOfRange(body, WINDOW, BODY), true, TIMEOUT);
                        },
                        threads));
            }

            // Every pooled thread is now taken: one produces (the selector) and the others are handlers blocked
            // reading (each consumed its first window and waits for more); the other handlers wait in the queue.
            awaitCondition(
                    () -> {
                        ThreadPoolStatistics pool = server.threadPool().statistics();
                        return pool.threads() == THREADS
                                && pool.idle() == 0
                                && pool.queueSize() == STREAMS - (THREADS - 1)
                                && reading.get() == THREADS - 1;
                    },
                    () -> "saturated pool: " + server.threadPool().statistics() + ", reading " + reading.get());

            // The same connection: a PING is answered, and what the blocked handlers consumed came back as credit.
            client.ping(TIMEOUT);
            awaitCondition(
                    () -> creditedStreams(client) == THREADS - 1,
                    () -> "streams credited: " + creditedStreams(client) + "; " + client.events());
            // Another connection: its request is answered by an async handler, no pooled thread needed.
            Http2TestClient other = connect();
            Http2TestClient.Response health = other.awaitResponse(other.get("/health"), TIMEOUT);
            assertEquals("ASYNC hello over HTTP/2.0", health.bodyAsString());
            assertEquals(THREADS - 1, reading.get(), "no handler started meanwhile: the pool was blocked throughout");
            assertEquals(
                    STREAMS - (THREADS - 1), server.threadPool().statistics().queueSize());

            // How: the selector invoked the connections' EITHER read tasks in non-blocking mode...
            assertTrue(
                    server.connectors()
                                    .get(0)
                                    .selectorManager()
                                    .strategyStatistics()
                                    .produceInvokeConsume()
                            > 0,
                    () -> "selector: "
                            + server.connectors().get(0).selectorManager().strategyStatistics());
            // ...and the session invoked the stream tasks it could not hand off in non-blocking mode, so that the
            // blocking handlers were dispatched to the queue, never run by the producer.
            StrategyStatistics session = busiestSession();
            assertTrue(session.produceInvokeConsume() >= STREAMS - (THREADS - 1), session::toString);
            assertEquals(STREAMS, session.produceInvokeConsume() + session.executeProduceConsume(), session::toString);
            assertEquals(0, session.produceExecuteConsume(), session::toString);

            proceed.countDown();
            for (int i = 0; i < STREAMS; i++) {
                Http2TestClient.Response response = client.awaitResponse(ids[i], Duration.ofSeconds(30));
                assertEquals(BODY + " " + sha256(bodies[i]), response.bodyAsString(), "stream " + ids[i]);
            }
            for (CompletableFuture<Void> sender : senders) {
                sender.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
        }
        assertEquals(STREAMS, reading.get());
        assertEquals(STREAMS + 1, server.statistics().http2Requests());
    }

    /** @return the strategy statistics of the HTTP/2 connection that produced the most tasks */
    private StrategyStatistics busiestSession() {
        return server.connectors().get(0).endPoints().stream()
                .map(EndPoint::connection)
                .map(connection -> connection instanceof TlsConnection tls
                        ? tls.decryptedEndPoint().connection()
                        : connection)
                .filter(Http2ServerConnection.class::isInstance)
                .map(connection -> ((Http2ServerConnection) connection).strategyStatistics())
                .max(Comparator.comparingLong(StrategyStatistics::tasks))
                .orElseThrow();
    }

    private static long creditedStreams(Http2TestClient client) {
        return client.events().stream()
                .filter(e -> e instanceof FrameEvent.WindowUpdate u && u.streamId() != 0)
                .map(FrameEvent::streamId)
                .distinct()
                .count();
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                throw new AssertionError("the test never let the senders proceed");
            }
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new AssertionError(x);
        }
    }
}
