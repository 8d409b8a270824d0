package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.server.h2.TestHandlers.Shape;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.Transport;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One connection sending as fast as loopback carries never stalls the other clients of its selector: while it floods,
 * fresh and already-connected clients, HTTP/1.1 and h2c, are answered within a bound far below the flood's length.
 * The flood is made of work the server must do but that no rate limit stops (PRIORITY frames with the control-frame
 * limit off; pipelined requests whose answers the flooder reads), so that only fairness can keep the others served.
 */
class FloodFairnessTest extends Http2ServerTestSupport {
    /** Far longer than any probe may wait: without fairness, probes wait until the flood ends. */
    private static final Duration FLOOD = Duration.ofSeconds(20);
    /** What a probe may take beside the flood, on a loaded two-core machine. */
    private static final Duration BOUND = Duration.ofSeconds(2);

    private static final int PROBES = 5;

    /** Bytes the flooder has written so far. */
    private final AtomicLong floodBytes = new AtomicLong();

    enum Flooder {
        /** PRIORITY frames for an idle stream, 14 bytes each, written in 64 KiB batches. */
        H2C_PRIORITY_FRAMES,
        /** Pipelined HTTP/1.1 requests; the flooder reads every response so that nothing waits on it. */
        HTTP1_PIPELINE
    }

    @ParameterizedTest
    @EnumSource(Flooder.class)
    void aFloodingConnectionLeavesTheOtherClientsOfItsSelectorServed(Flooder flooder) throws Exception {
        start(builder -> builder.selectors(1)
                .http2Config(new Limits().maxControlFramesPerSecond(0).build())
                .route("GET /hello", TestHandlers.hello(Shape.ASYNC)));
        // Connected before the flood: already registered with the one selector.
        RawClient http1 = RawClient.connect(Transport.TCP, address()).timeout(FLOOD);
        Http2TestClient h2c = connect();
        assertEquals(
                200,
                http1.send("GET /hello HTTP/1.1\r\nHost: test\r\n\r\n")
                        .readResponse()
                        .status());

        AtomicBoolean stop = new AtomicBoolean();
        CompletableFuture<Long> flooded = CompletableFuture.supplyAsync(() -> flood(flooder, stop));
        try {
            awaitFloodUnderway(flooded);
            java.util.Map<String, Probe> probes = new java.util.LinkedHashMap<>();
            probes.put(
                    "connected HTTP/1.1",
                    () -> assertEquals(
                            200,
                            http1.send("GET /hello HTTP/1.1\r\nHost: test\r\n\r\n")
                                    .readResponse()
                                    .status()));
            probes.put(
                    "connected h2c",
                    () -> assertEquals(
                            200, h2c.awaitResponse(h2c.get("/hello"), FLOOD).status()));
            probes.put("new HTTP/1.1", () -> {
                try (RawClient fresh =
                        RawClient.connect(Transport.TCP, address()).timeout(FLOOD)) {
                    assertEquals(
                            200,
                            fresh.send("GET /hello HTTP/1.1\r\nHost: test\r\n\r\n")
                                    .readResponse()
                                    .status());
                }
            });
            long worst = 0;
            StringBuilder times = new StringBuilder();
            for (int i = 0; i < PROBES; i++) {
                for (java.util.Map.Entry<String, Probe> probe : probes.entrySet()) {
                    long took = probe(probe.getValue());
                    worst = Math.max(worst, took);
                    times.append(probe.getKey())
                            .append(' ')
                            .append(TimeUnit.NANOSECONDS.toMillis(took))
                            .append(" ms; ");
                }
            }
            if (flooded.isDone()) {
                flooded.get(); // rethrows what ended the flood early
            }
            assertFalse(flooded.isDone(), "the flood lasted through every probe");
            assertTrue(worst < BOUND.toNanos(), "a probe waited too long beside the flood: " + times);
        } finally {
            stop.set(true);
        }
        assertTrue(flooded.get(FLOOD.toSeconds() * 2, TimeUnit.SECONDS) > 0, "the flooder sent nothing");
    }

    /** Waits until the flooder has sent a good deal: the server is then busy with it. */
    private void awaitFloodUnderway(CompletableFuture<Long> flooded) throws Exception {
        long deadline = System.nanoTime() + FLOOD.toNanos();
        while (floodBytes.get() < 8 * 1024 * 1024) {
            if (flooded.isDone()) {
                flooded.get(); // rethrows what stopped it
                throw new AssertionError("the flood ended before it was underway");
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the flood never got underway");
            }
            Thread.onSpinWait();
        }
    }

    private long flood(Flooder flooder, AtomicBoolean stop) {
        long deadline = System.nanoTime() + FLOOD.toNanos();
        try (SocketChannel channel = SocketChannel.open(address())) {
            ByteBuffer batch = switch (flooder) {
                case H2C_PRIORITY_FRAMES -> priorityFrames(channel);
                case HTTP1_PIPELINE -> pipelinedRequests(channel);
            };
            long sent = 0;
            while (!stop.get() && System.nanoTime() < deadline) {
                ByteBuffer bytes = batch.duplicate();
                while (bytes.hasRemaining()) {
                    sent += channel.write(bytes);
                }
                floodBytes.set(sent);
            }
            return sent;
        } catch (IOException x) {
            throw new AssertionError("the flooder failed: " + x, x);
        }
    }

    private static ByteBuffer priorityFrames(SocketChannel channel) throws IOException {
        FrameGenerator generator = new FrameGenerator(new HpackEncoder());
        ByteBuffer preface = ByteBuffer.allocate(1024);
        preface.put("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        generator.settings(preface, new Http2Settings());
        // Acknowledged blindly (the flooder reads nothing): otherwise the server's SETTINGS timeout ends the flood.
        generator.settingsAck(preface);
        preface.flip();
        while (preface.hasRemaining()) {
            channel.write(preface);
        }
        ByteBuffer batch = ByteBuffer.allocate(64 * 1024);
        while (batch.remaining() >= 14) {
            generator.priority(batch, 1, 0, false, 16);
        }
        return batch.flip();
    }

    private static ByteBuffer pipelinedRequests(SocketChannel channel) {
        byte[] request = "GET /hello HTTP/1.1\r\nHost: test\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        ByteBuffer batch = ByteBuffer.allocate(64 * 1024);
        while (batch.remaining() >= request.length) {
            batch.put(request);
        }
        // Read every response on a thread of its own, so that the server's writes never wait for the flooder.
        Socket socket = channel.socket();
        Thread.ofPlatform().daemon().name("flood-reader").start(() -> {
            byte[] sink = new byte[64 * 1024];
            try (InputStream in = socket.getInputStream()) {
                while (in.read(sink) >= 0) {
                    // discard
                }
            } catch (IOException closed) {
                // the flood is over
            }
        });
        return batch.flip();
    }

    @FunctionalInterface
    private interface Probe {
        void run() throws Exception;
    }

    /** @return how long the probe took, in nanoseconds */
    private static long probe(Probe probe) throws Exception {
        long start = System.nanoTime();
        probe.run();
        return System.nanoTime() - start;
    }
}
