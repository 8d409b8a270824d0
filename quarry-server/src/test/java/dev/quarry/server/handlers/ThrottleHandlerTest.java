package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.core.IteratingCallback;
import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Handler;
import dev.quarry.server.Response;
import dev.quarry.server.Server;
import dev.quarry.server.ServerBuilder;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import javax.management.Attribute;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The throttle handler over real sockets. Durations are asserted within a band computed from the rates (the machine
 * is small and shared: ±20 % for the main cases, wider where many clients run at once); rates are high enough that the
 * whole class runs in about 20 s.
 */
@ExtendWith(LeakTrackingPoolExtension.class)
class ThrottleHandlerTest {
    private static final int KIB = 1024;

    private final ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
    private Server server;
    private Throttle throttle;

    @AfterEach
    void stop() throws Exception {
        clients.shutdownNow();
        if (server != null) {
            server.stop();
        }
        if (throttle != null) {
            throttle.stop();
        }
    }

    private int start(ByteBufferPool pool, ThrottleLimits limits, AsyncHandler app) throws IOException {
        return start(pool, limits, app, builder -> {});
    }

    private int start(ByteBufferPool pool, ThrottleLimits limits, AsyncHandler app, Consumer<ServerBuilder> more)
            throws IOException {
        throttle = Throttle.of(limits);
        ServerBuilder builder =
                Server.builder().http("127.0.0.1", 0).buffers(pool).handler(new ThrottleHandler(throttle, app));
        more.accept(builder);
        server = builder.build().start();
        return server.port();
    }

    /** Sends {@code body} in one last write, as a handler serving a cached file would. */
    private static AsyncHandler bytes(byte[] body) {
        return AsyncHandler.nonBlocking((request, response, callback) -> {
            response.header("Content-Type", "application/octet-stream");
            response.write(true, ByteBuffer.wrap(body), callback);
        });
    }

    private static void assertWithin(double expected, double low, double high, double actual, Object what) {
        assertTrue(
                actual >= expected * low && actual <= expected * high,
                String.format("%s: %.3f s, expected %.3f s (%.2f..%.2f of it)", what, actual, expected, low, high));
    }

    private static void await(String what, BooleanSupplier condition, Object state) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out awaiting " + what + "; " + state);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }

    @Test
    void aRequestRateShapesTheDownloadAndTheHeadComesAtOnce(ByteBufferPool pool) throws Exception {
        byte[] body = Download.payload(400 * KIB);
        int port = start(pool, ThrottleLimits.builder().requestRate(200 * KIB).build(), bytes(body));

        Download download = Download.get(port, "/file");

        assertEquals(200, download.status());
        assertEquals(body.length, download.length());
        assertEquals(Download.crcOf(body), download.crc());
        assertEquals(
                String.valueOf(body.length), download.header("content-length").orElse("none"), "kept");
        assertWithin(2.0, 0.8, 1.2, download.seconds(), download);
        assertTrue(download.firstByteMillis() < 500, "status and headers before the first chunk's wait: " + download);
        // The client may have the last byte before the server saw its write complete.
        await("the request to end", () -> throttle.statistics().activeRequests() == 0, throttle);
        ThrottleStatistics statistics = throttle.statistics();
        assertEquals(body.length, statistics.bytesSent());
        assertTrue(statistics.parkedWrites() >= 20, "parked per chunk, not polled: " + statistics);
        assertEquals(0, statistics.waitingWrites());
    }

    @Test
    void aFileRegionIsThrottledLikeABuffer(ByteBufferPool pool, @TempDir Path dir) throws Exception {
        byte[] body = Download.payload(300 * KIB);
        Path path = Files.write(dir.resolve("file.bin"), body);
        // Blocking (the default): it opens a file.
        AsyncHandler files = (request, response, callback) -> {
            FileChannel file = FileChannel.open(path, StandardOpenOption.READ);
            response.write(
                    file,
                    0,
                    body.length,
                    true,
                    Callback.from(callback, () -> close(file), InvocationType.NON_BLOCKING));
        };
        int port = start(pool, ThrottleLimits.builder().requestRate(200 * KIB).build(), files);

        Download download = Download.get(port, "/file.bin");

        assertEquals(Download.crcOf(body), download.crc());
        assertEquals(
                String.valueOf(body.length), download.header("content-length").orElse("none"));
        assertWithin(1.5, 0.8, 1.2, download.seconds(), download);
    }

    private static void close(FileChannel file) {
        try {
            file.close();
        } catch (IOException x) {
            throw new java.io.UncheckedIOException(x);
        }
    }

    @Test
    void aBlockingHandlerIsThrottledThroughItsStreamEvenIfItForgetsToCloseIt(ByteBufferPool pool) throws Exception {
        byte[] body = Download.payload(400 * KIB);
        Handler blocking = (request, response) -> {
            OutputStream out = response.outputStream();
            for (int offset = 0; offset < body.length; offset += 10 * KIB) {
                out.write(body, offset, Math.min(10 * KIB, body.length - offset));
            }
            // not closed: the throttle flushes the rest when the handler returns
        };
        throttle = Throttle.of(ThrottleLimits.builder().requestRate(200 * KIB).build());
        server = Server.builder()
                .http("127.0.0.1", 0)
                .buffers(pool)
                .handler(new ThrottleHandler(throttle, blocking))
                .build()
                .start();

        Download download = Download.get(server.port(), "/stream");

        assertEquals(body.length, download.length(), download.toString());
        assertEquals(Download.crcOf(body), download.crc());
        assertWithin(2.0, 0.8, 1.2, download.seconds(), download);
    }

    @Test
    void theGlobalRateIsSharedByAllClients(ByteBufferPool pool) throws Exception {
        byte[] body = Download.payload(200 * KIB);
        long rate = 300 * KIB;
        ThrottleLimits limits = ThrottleLimits.builder().globalRate(rate).build();
        int port = start(pool, limits, bytes(body));

        List<Future<Download>> downloads = new ArrayList<>();
        for (String client : List.of("127.0.0.2", "127.0.0.3", "127.0.0.4")) {
            downloads.add(clients.submit(() -> Download.get(client, port, "/file")));
        }

        // The global bucket starts full (its burst), then grants its rate to the three together.
        double expected = (3.0 * body.length - limits.globalCapacity()) / rate;
        for (Future<Download> future : downloads) {
            Download download = future.get(30, TimeUnit.SECONDS);
            assertEquals(Download.crcOf(body), download.crc());
            // Reservations are served in order, so the three progress together and end within a few chunks.
            assertWithin(expected, 0.75, 1.3, download.seconds(), download);
        }
    }

    @Test
    void aClientRateIsSharedByThatClientsRequestsOnly(ByteBufferPool pool) throws Exception {
        byte[] body = Download.payload(200 * KIB);
        long rate = 200 * KIB;
        ThrottleLimits limits = ThrottleLimits.builder().clientRate(rate).build();
        int port = start(pool, limits, bytes(body));

        Future<Download> a1 = clients.submit(() -> Download.get("127.0.0.2", port, "/a1"));
        Future<Download> a2 = clients.submit(() -> Download.get("127.0.0.2", port, "/a2"));
        Future<Download> b = clients.submit(() -> Download.get("127.0.0.3", port, "/b"));

        double burst = limits.clientCapacity();
        double twoOnOneClient = (2.0 * body.length - burst) / rate;
        double oneOnAnother = (body.length - burst) / rate;
        Download other = b.get(30, TimeUnit.SECONDS);
        assertWithin(oneOnAnother, 0.75, 1.3, other.seconds(), other);
        for (Future<Download> future : List.of(a1, a2)) {
            Download download = future.get(30, TimeUnit.SECONDS);
            assertEquals(Download.crcOf(body), download.crc());
            assertWithin(twoOnOneClient, 0.75, 1.3, download.seconds(), download);
        }
    }

    @Test
    void aClientBeyondItsCapGets429WithRetryAfter(ByteBufferPool pool) throws Exception {
        byte[] big = Download.payload(200 * KIB);
        byte[] small = Download.payload(KIB);
        AsyncHandler app = AsyncHandler.nonBlocking((request, response, callback) ->
                bytes(request.path().equals("/big") ? big : small).handle(request, response, callback));
        ThrottleLimits limits = ThrottleLimits.builder()
                .requestRate(100 * KIB)
                .maxRequestsPerClient(2)
                .build();
        int port = start(pool, limits, app);

        CountDownLatch heads = new CountDownLatch(2);
        Future<Download> first = clients.submit(() -> Download.get("127.0.0.2", port, "/big", heads::countDown));
        Future<Download> second = clients.submit(() -> Download.get("127.0.0.2", port, "/big", heads::countDown));
        assertTrue(heads.await(20, TimeUnit.SECONDS), "both downloads started");

        Download refused = Download.get("127.0.0.2", port, "/small");
        assertEquals(429, refused.status(), refused.toString());
        assertEquals("1", refused.header("retry-after").orElse("none"));
        assertEquals(200, Download.get("127.0.0.3", port, "/small").status(), "another client is not affected");

        assertEquals(Download.crcOf(big), first.get(30, TimeUnit.SECONDS).crc());
        assertEquals(Download.crcOf(big), second.get(30, TimeUnit.SECONDS).crc());
        await("the slots to be freed", () -> throttle.statistics().activeRequests() == 0, throttle);
        assertEquals(200, Download.get("127.0.0.2", port, "/small").status(), "slots are freed when requests end");
        assertEquals(1, throttle.statistics().tooManyRequests());
    }

    @Test
    void aDeniedClientGets403(ByteBufferPool pool) throws Exception {
        byte[] body = Download.payload(KIB);
        int port = start(
                pool, ThrottleLimits.builder().deny("127.0.0.2, 10.0.0.0/8").build(), bytes(body));

        Download denied = Download.get("127.0.0.2", port, "/file");
        assertEquals(403, denied.status());
        Download allowed = Download.get("127.0.0.3", port, "/file");
        assertEquals(200, allowed.status());
        assertEquals(Download.crcOf(body), allowed.crc());
        assertEquals(1, throttle.statistics().deniedRequests());
    }

    @Test
    void anAllowedClientIsNotThrottled(ByteBufferPool pool) throws Exception {
        byte[] body = Download.payload(400 * KIB);
        ThrottleLimits limits = ThrottleLimits.builder()
                .requestRate(20 * KIB) // 20 s for this body if it applied
                .allow("127.0.0.0/8")
                .build();
        int port = start(pool, limits, bytes(body));

        Download download = Download.get("127.0.0.5", port, "/file");

        assertEquals(Download.crcOf(body), download.crc());
        assertTrue(download.seconds() < 3, download.toString());
        assertEquals(1, throttle.statistics().unthrottledRequests());
        assertEquals(0, throttle.statistics().parkedWrites());
    }

    @Test
    void waitingWritesHoldNoThread(ByteBufferPool pool) throws Exception {
        // 30 downloads of 1 s each on a server with 3 platform threads and no virtual threads: a throttle that held a
        // thread per waiting download would need 10 s; parked on the timer they all take about 1 s.
        byte[] body = Download.payload(100 * KIB);
        int downloads = 30;
        int port = start(
                pool,
                ThrottleLimits.builder().requestRate(100 * KIB).build(),
                bytes(body),
                builder -> builder.virtualThreads(false)
                        .maxThreads(3)
                        .minThreads(1)
                        .selectors(1));

        List<Future<Download>> futures = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < downloads; i++) {
            futures.add(clients.submit(() -> Download.get(port, "/file")));
        }
        for (Future<Download> future : futures) {
            Download download = future.get(30, TimeUnit.SECONDS);
            assertEquals(Download.crcOf(body), download.crc());
            assertWithin(1.0, 0.8, 2.0, download.seconds(), download);
        }
        double all = (System.nanoTime() - start) / 1e9;
        assertWithin(1.0, 0.8, 2.5, all, "all " + downloads + " downloads");
        ThrottleStatistics statistics = throttle.statistics();
        assertTrue(statistics.maxWaitingWrites() >= 20, "most waited at the same time: " + statistics);
        assertTrue(
                server.threadPool().statistics().threads() <= 3,
                server.threadPool().toString());
    }

    @Test
    void aClientThatNeverReadsGetsBackPressureThenTheIdleTimeout(ByteBufferPool pool) throws Exception {
        // Dr. Evil's bot: asks and never reads. The handler writes forever as fast as its callbacks allow.
        AtomicLong completed = new AtomicLong();
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        byte[] block = Download.payload(64 * KIB);
        byte[] body = Download.payload(KIB * KIB);
        AsyncHandler app = AsyncHandler.nonBlocking((request, response, callback) -> {
            if (request.path().equals("/forever")) {
                new Forever(response, block, completed, failure, callback).iterate();
            } else {
                bytes(body).handle(request, response, callback);
            }
        });
        int port = start(
                pool,
                ThrottleLimits.builder().requestRate(64L * KIB * KIB).build(),
                app,
                builder -> builder.idleTimeout(Duration.ofSeconds(1)));

        try (Socket evil = new Socket()) {
            evil.setReceiveBufferSize(8 * KIB);
            evil.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.66"), 0));
            evil.connect(new InetSocketAddress("127.0.0.1", port));
            evil.getOutputStream()
                    .write("GET /forever HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));

            // Another client is served normally meanwhile.
            Download good = Download.get("127.0.0.7", port, "/file");
            assertEquals(Download.crcOf(body), good.crc());

            Throwable cause = failure.get(20, TimeUnit.SECONDS);
            // At 64 MiB/s without back pressure the writes would have completed hundreds of MiB by now; they stopped
            // once the socket buffers were full, and the idle timeout closed the connection.
            long bytes = completed.get();
            assertTrue(bytes < 16L * KIB * KIB, "writes completed for a client that reads nothing: " + bytes);
            assertFalse(cause == null, "the pending write failed");
        }
        await(
                "the throttle to let go of the request",
                () -> throttle.statistics().activeRequests() == 0
                        && throttle.statistics().waitingWrites() == 0,
                throttle);
    }

    /** Writes the same block forever, each write after the previous one completed; counts completed bytes. */
    private static final class Forever extends IteratingCallback {
        private final Response response;
        private final byte[] block;
        private final AtomicLong completed;
        private final CompletableFuture<Throwable> failure;
        private final Callback callback;
        private boolean started;

        Forever(
                Response response,
                byte[] block,
                AtomicLong completed,
                CompletableFuture<Throwable> failure,
                Callback callback) {
            this.response = response;
            this.block = block;
            this.completed = completed;
            this.failure = failure;
            this.callback = callback;
        }

        @Override
        protected Action process() {
            if (started) {
                completed.addAndGet(block.length);
            }
            started = true;
            response.write(false, ByteBuffer.wrap(block), this);
            return Action.SCHEDULED;
        }

        @Override
        protected void onCompleteFailure(Throwable cause) {
            failure.complete(cause);
            callback.failed(cause);
        }

        @Override
        public InvocationType invocationType() {
            return InvocationType.NON_BLOCKING;
        }
    }

    @Test
    void aRateChangedThroughJmxAppliesToADownloadInFlight(ByteBufferPool pool) throws Exception {
        byte[] body = Download.payload(400 * KIB);
        int port = start(pool, ThrottleLimits.builder().requestRate(50 * KIB).build(), bytes(body));
        MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("dev.quarry.test:type=Throttle,name=t" + System.identityHashCode(throttle));
        mbeans.registerMBean(throttle.mxBean(), name);
        try {
            assertEquals(50L * KIB, mbeans.getAttribute(name, "RequestRate"));
            Download download = Download.get("127.0.0.1", port, "/file", () -> {
                try {
                    mbeans.setAttribute(name, new Attribute("RequestRate", 4L * KIB * KIB));
                } catch (Exception x) {
                    throw new AssertionError(x);
                }
            });

            assertEquals(Download.crcOf(body), download.crc());
            // 8 s at the old rate; at the new one the rest takes 0.1 s once the chunk parked at the old rate resumes.
            assertTrue(download.seconds() < 3, download.toString());
            assertEquals(4L * KIB * KIB, mbeans.getAttribute(name, "RequestRate"));
            assertEquals(4L * KIB * KIB, throttle.limits().requestRate());
        } finally {
            mbeans.unregisterMBean(name);
        }
    }
}
