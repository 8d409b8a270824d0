package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.Http2Settings;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A request's own idle timeout ({@link HttpRequest.Builder#idleTimeout}) against raw fake servers that stall where a
 * test wants: over HTTP/1.1 it is the connection's while it carries the exchange, over HTTP/2 its stream's alone.
 * Every request also has a whole-request timeout far longer than its idle timeout, so that a failure names which of
 * the two expired.
 */
@ExtendWith(LeakTrackingPoolExtension.class)
class RequestIdleTimeoutTest {
    /** Long enough never to expire in a passing test; bounds a failing one. */
    private static final Duration LONG = Duration.ofSeconds(20);

    /** Released at the end of each test: fake servers that stall wait on it, not on the client. */
    private final CountDownLatch release = new CountDownLatch(1);

    private HttpClient client;

    @AfterEach
    void stop() {
        release.countDown();
        if (client != null) {
            client.close();
        }
    }

    private void awaitRelease() throws IOException {
        try {
            release.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException x) {
            throw new InterruptedIOException();
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    private static String okResponse(String body) {
        return "HTTP/1.1 200 OK\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    }

    // --- HTTP/1.1 ----------------------------------------------------------------------------------------------------

    @Test
    void h1ResponseHeadNeverSentFailsAfterTheIdleTimeoutBeforeTheRequestTimeout(ByteBufferPool pool) throws Exception {
        try (FakeServer fake = new FakeServer((connection, socket, in, out) -> {
            FakeServer.readHead(in);
            awaitRelease(); // never answers
        })) {
            client = HttpClient.builder().bufferPool(pool).build(); // the client's idle timeout: 30 s
            HttpRequest request = HttpRequest.newBuilder(fake.uri("/never"))
                    .idleTimeout(Duration.ofMillis(300))
                    .timeout(LONG)
                    .build();
            long start = System.nanoTime();
            SocketTimeoutException failure = assertThrows(SocketTimeoutException.class, () -> client.send(request));
            long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(
                    failure.getMessage().contains("idle timeout of 300 ms expired waiting for the response head"),
                    failure.getMessage());
            assertTrue(elapsedMillis >= 200 && elapsedMillis < LONG.toMillis(), elapsedMillis + " ms");
        }
    }

    @Test
    void h1ContentTricklingFasterThanTheIdleTimeoutSucceedsAlthoughItTakesLonger(ByteBufferPool pool) throws Exception {
        String body = "0123456789";
        try (FakeServer fake = new FakeServer((connection, socket, in, out) -> {
            FakeServer.readHead(in);
            FakeServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: " + body.length() + "\r\n\r\n");
            for (int i = 0; i < body.length(); i++) {
                try {
                    Thread.sleep(200); // the pace of a slow server: each byte is progress
                } catch (InterruptedException x) {
                    throw new InterruptedIOException();
                }
                FakeServer.write(out, body.substring(i, i + 1));
            }
            awaitRelease();
        })) {
            // The client's idle timeout would expire between two bytes; the request's own (longer) one applies.
            client = HttpClient.builder()
                    .bufferPool(pool)
                    .idleTimeout(Duration.ofMillis(100))
                    .build();
            HttpRequest request = HttpRequest.newBuilder(fake.uri("/trickle"))
                    .idleTimeout(Duration.ofMillis(1000))
                    .timeout(LONG)
                    .build();
            long start = System.nanoTime();
            assertEquals(body, client.send(request).asString());
            long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(elapsedMillis > 1000, "took " + elapsedMillis + " ms: longer than the idle timeout in all");
        }
    }

    @Test
    void h1ContentStallingMidwayFailsTheContentAndTheConnectionIsNotReused(ByteBufferPool pool) throws Exception {
        try (FakeServer fake = new FakeServer((connection, socket, in, out) -> {
            FakeServer.readHead(in);
            if (connection == 0) {
                FakeServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789");
                awaitRelease(); // 90 bytes never come
            } else {
                FakeServer.write(out, okResponse("fresh"));
                awaitRelease();
            }
        })) {
            client = HttpClient.builder().bufferPool(pool).build();
            HttpResponse response = client.send(HttpRequest.newBuilder(fake.uri("/stall"))
                    .idleTimeout(Duration.ofMillis(300))
                    .timeout(LONG)
                    .build());
            assertEquals(200, response.status());
            IOException failure = assertThrows(IOException.class, response::asString);
            assertInstanceOf(SocketTimeoutException.class, failure.getCause(), failure.toString());
            assertTrue(
                    failure.getMessage().contains("idle timeout of 300 ms expired waiting for the response content"),
                    failure.getMessage());
            DestinationStatistics stats = client.statistics().get(0);
            await(() -> client.statistics().get(0).open() == 0, "the idled-out connection to close");
            assertEquals(1, stats.opened());
            assertEquals(
                    "fresh", client.send(HttpRequest.get(fake.uri("/next"))).asString());
            assertEquals(2, fake.accepted.get(), "a new connection for the next request");
        }
    }

    @Test
    void h1RequestWithoutItsOwnIdleTimeoutGetsTheClientsEvenOnAConnectionThatCarriedOne(ByteBufferPool pool)
            throws Exception {
        try (FakeServer fake = new FakeServer((connection, socket, in, out) -> {
            FakeServer.readHead(in);
            FakeServer.write(out, okResponse("first"));
            FakeServer.readHead(in);
            awaitRelease(); // the second request on the connection is never answered
        })) {
            client = HttpClient.builder()
                    .bufferPool(pool)
                    .idleTimeout(Duration.ofMillis(300))
                    .build();
            HttpRequest first = HttpRequest.newBuilder(fake.uri("/first"))
                    .idleTimeout(Duration.ofSeconds(15))
                    .build();
            assertEquals("first", client.send(first).asString());
            // The pooled connection is the client's again: 300 ms, not the 15 s of the request it carried.
            HttpRequest second =
                    HttpRequest.newBuilder(fake.uri("/second")).timeout(LONG).build();
            SocketTimeoutException failure = assertThrows(SocketTimeoutException.class, () -> client.send(second));
            assertTrue(
                    failure.getMessage().contains("idle timeout of 300 ms expired waiting for the response head"),
                    failure.getMessage());
            assertEquals(1, fake.accepted.get(), "carried by the pooled connection, and not retried");
        }
    }

    // --- HTTP/2 ------------------------------------------------------------------------------------------------------

    @Test
    void h2StalledStreamIsResetWhileAConcurrentStreamOnTheSameConnectionSucceeds(ByteBufferPool pool) throws Exception {
        FakeH2Server[] server = new FakeH2Server[1];
        try (FakeH2Server fake = new FakeH2Server(new Http2Settings(), (connection, streamId, head, out) -> {
            switch (head.path()) {
                case "/stall" -> {} // never answered
                case "/after-reset" -> {
                    out.headers(streamId, 200, false);
                    // The content only once the stalled stream was reset: this stream outlives it on the connection.
                    Thread.ofVirtual().start(() -> {
                        try {
                            await(() -> !server[0].resets.isEmpty(), "the stalled stream's reset");
                            out.data(streamId, "survived", true);
                        } catch (Exception x) {
                            // the test fails on its own timeout
                        }
                    });
                }
                default -> {
                    out.headers(streamId, 200, false);
                    out.data(streamId, "ok", true);
                }
            }
        })) {
            server[0] = fake;
            client = HttpClient.builder().http2(true).bufferPool(pool).build();
            assertEquals(
                    "ok", client.send(HttpRequest.get(fake.uri("/warm-up"))).asString());
            CompletableFuture<HttpResponse> stalled = client.sendAsync(HttpRequest.newBuilder(fake.uri("/stall"))
                    .idleTimeout(Duration.ofMillis(300))
                    .timeout(LONG)
                    .build());
            HttpResponse concurrent = client.sendAsync(HttpRequest.newBuilder(fake.uri("/after-reset"))
                            .timeout(LONG)
                            .build())
                    .get(10, TimeUnit.SECONDS);

            ExecutionException failure =
                    assertThrows(ExecutionException.class, () -> stalled.get(10, TimeUnit.SECONDS));
            assertInstanceOf(SocketTimeoutException.class, failure.getCause(), failure.toString());
            assertTrue(
                    failure.getCause()
                            .getMessage()
                            .contains("idle timeout of 300 ms expired waiting for the response head"),
                    failure.getCause().getMessage());
            assertEquals("survived", concurrent.asString());
            assertEquals(1, fake.resets.size(), fake.resets.toString());
            assertTrue(fake.resets.peek().endsWith(" " + ErrorCode.CANCEL), fake.resets.toString());
            assertEquals("ok", client.send(HttpRequest.get(fake.uri("/again"))).asString());
            assertEquals(1, fake.accepted.get(), "every stream on one connection");
        }
    }

    @Test
    void h2ContentStallingMidwayFailsOnlyThatStream(ByteBufferPool pool) throws Exception {
        try (FakeH2Server fake = new FakeH2Server(new Http2Settings(), (connection, streamId, head, out) -> {
            out.headers(streamId, 200, false);
            if (head.path().equals("/stall")) {
                out.data(streamId, "partial", false); // and nothing more
            } else {
                out.data(streamId, "ok", true);
            }
        })) {
            client = HttpClient.builder().http2(true).bufferPool(pool).build();
            HttpResponse response = client.send(HttpRequest.newBuilder(fake.uri("/stall"))
                    .idleTimeout(Duration.ofMillis(300))
                    .timeout(LONG)
                    .build());
            InputStream body = response.body();
            assertEquals('p', body.read());
            IOException failure = assertThrows(IOException.class, body::readAllBytes);
            assertTrue(
                    failure.getMessage().contains("idle timeout of 300 ms expired waiting for the response content"),
                    failure.getMessage());
            body.close();
            await(() -> !fake.resets.isEmpty(), "the reset");
            assertTrue(fake.resets.peek().endsWith(" " + ErrorCode.CANCEL), fake.resets.toString());
            assertEquals("ok", client.send(HttpRequest.get(fake.uri("/next"))).asString());
            assertEquals(1, fake.accepted.get());
        }
    }

    @Test
    void h2StreamWithoutItsOwnIdleTimeoutGetsTheClientsWhileAnotherKeepsTheConnectionOpen(ByteBufferPool pool)
            throws Exception {
        try (FakeH2Server fake = new FakeH2Server(new Http2Settings(), (connection, streamId, head, out) -> {
            if (!head.path().startsWith("/stall")) {
                out.headers(streamId, 200, false);
                out.data(streamId, "ok", true);
            }
        })) {
            client = HttpClient.builder()
                    .http2(true)
                    .bufferPool(pool)
                    .idleTimeout(Duration.ofMillis(300))
                    .build();
            assertEquals(
                    "ok", client.send(HttpRequest.get(fake.uri("/warm-up"))).asString());
            CompletableFuture<HttpResponse> patient = client.sendAsync(HttpRequest.newBuilder(fake.uri("/stall-long"))
                    .idleTimeout(Duration.ofSeconds(15))
                    .timeout(LONG)
                    .build());
            CompletableFuture<HttpResponse> ordinary = client.sendAsync(HttpRequest.newBuilder(fake.uri("/stall-short"))
                    .timeout(LONG)
                    .build());
            ExecutionException failure =
                    assertThrows(ExecutionException.class, () -> ordinary.get(10, TimeUnit.SECONDS));
            assertTrue(
                    failure.getCause().getMessage().contains("idle timeout of 300 ms expired"),
                    failure.getCause().toString());
            assertTrue(!patient.isDone(), "the stream with its own 15 s idle timeout still waits");
            await(() -> !fake.resets.isEmpty(), "the reset");
            assertEquals("ok", client.send(HttpRequest.get(fake.uri("/again"))).asString());
            assertEquals(1, fake.accepted.get(), "the connection stayed open");
            patient.cancel(true);
        }
    }

    // --- API -----------------------------------------------------------------------------------------------------

    @Test
    void idleTimeoutMustBePositiveAndFollowsARedirect() {
        HttpRequest.Builder builder = HttpRequest.newBuilder("http://127.0.0.1/");
        assertThrows(IllegalArgumentException.class, () -> builder.idleTimeout(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> builder.idleTimeout(Duration.ofMillis(-1)));
        assertTrue(builder.build().idleTimeout().isEmpty());
        assertEquals(
                Duration.ofMillis(250),
                builder.idleTimeout(Duration.ofMillis(250))
                        .build()
                        .idleTimeout()
                        .orElseThrow());
    }

    @Test
    void anIdleTimeoutTooLongForMillisecondsIsForever() {
        HttpRequest request = HttpRequest.newBuilder("http://127.0.0.1/")
                .idleTimeout(Duration.ofSeconds(Long.MAX_VALUE))
                .build();
        assertEquals(Duration.ofMillis(Long.MAX_VALUE), request.idleTimeout().orElseThrow());
    }
}
