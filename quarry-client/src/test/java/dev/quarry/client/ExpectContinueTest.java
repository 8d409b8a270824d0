package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.server.Server;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code Expect: 100-continue}: the body waits for the server's 100, and is never sent when it refuses first. */
@ExtendWith(LeakTrackingPoolExtension.class)
class ExpectContinueTest {
    private static final Duration LONG = Duration.ofSeconds(30);
    private Server server;
    private HttpClient client;

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.stop();
        }
    }

    private static byte[] body(int size) {
        byte[] bytes = new byte[size];
        Arrays.fill(bytes, (byte) 'x');
        return bytes;
    }

    @Test
    void quarrysServerAsksForTheBodyAndTheConnectionIsReused(ByteBufferPool pool) throws Exception {
        server = Server.builder()
                .http("127.0.0.1", 0)
                .route(
                        "POST /count",
                        (req, res) ->
                                res.send(Integer.toString(req.inputStream().readAllBytes().length)))
                .build()
                .start();
        // A continue timeout far beyond the test's: the body goes because the server's 100 came.
        client = HttpClient.builder().bufferPool(pool).continueTimeout(LONG).build();
        String uri = "http://127.0.0.1:" + server.port() + "/count";
        for (int i = 0; i < 2; i++) {
            HttpRequest post = HttpRequest.newBuilder(uri)
                    .POST(RequestBody.of(body(100_000)))
                    .expectContinue(true)
                    .timeout(Duration.ofSeconds(10))
                    .build();
            assertEquals("100000", client.send(post).asString());
        }
        // A stream body too, set by the header rather than the option.
        HttpRequest stream = HttpRequest.newBuilder(uri)
                .POST(RequestBody.ofStream(new ByteArrayInputStream(body(5000)), 5000))
                .header("Expect", "100-continue")
                .timeout(Duration.ofSeconds(10))
                .build();
        assertEquals("5000", client.send(stream).asString());
        assertEquals(1, client.statistics().get(0).opened(), client.toString());
    }

    @Test
    void aFinalStatusBeforeTheContinueMeansTheBodyIsNeverSent(ByteBufferPool pool) throws Exception {
        CompletableFuture<String> head = new CompletableFuture<>();
        CompletableFuture<Long> bodyBytes = new CompletableFuture<>();
        try (FakeServer fake = new FakeServer((index, socket, in, out) -> {
            head.complete(FakeServer.readHead(in));
            FakeServer.write(out, "HTTP/1.1 413 Content Too Large\r\nContent-Length: 8\r\n\r\ntoo big!");
            // No Connection: close: the client must close, since the server cannot tell where the request ends.
            bodyBytes.complete(in.transferTo(OutputStreamSink.INSTANCE));
        })) {
            client = HttpClient.builder().bufferPool(pool).continueTimeout(LONG).build();
            HttpRequest post = HttpRequest.newBuilder(fake.uri("/upload"))
                    .POST(RequestBody.of(body(1_000_000)))
                    .expectContinue(true)
                    .timeout(Duration.ofSeconds(10))
                    .build();
            HttpResponse response = client.send(post);
            assertEquals(413, response.status());
            assertEquals("too big!", response.asString());
            assertTrue(head.get(10, TimeUnit.SECONDS).toLowerCase(Locale.ROOT).contains("expect: 100-continue"));
            // The end of the stream: the client closed the connection, without a byte of the body.
            assertEquals(0L, bodyBytes.get(10, TimeUnit.SECONDS), "body bytes the server received");
        }
    }

    @Test
    void withoutAnAnswerTheBodyGoesAfterTheContinueTimeout(ByteBufferPool pool) throws Exception {
        try (FakeServer fake = new FakeServer((index, socket, in, out) -> {
            String head;
            while ((head = FakeServer.readHead(in)) != null) {
                // A server that ignores the expectation and waits for the body.
                int length = Integer.parseInt(head.replaceAll("(?is).*content-length: *(\\d+).*", "$1"));
                byte[] body = in.readNBytes(length);
                FakeServer.write(
                        out,
                        "HTTP/1.1 200 OK\r\nContent-Length: "
                                + Integer.toString(body.length).length() + "\r\n\r\n" + body.length);
            }
        })) {
            client = HttpClient.builder()
                    .bufferPool(pool)
                    .continueTimeout(Duration.ofMillis(200))
                    .build();
            HttpRequest post = HttpRequest.newBuilder(fake.uri("/upload"))
                    .POST(RequestBody.of("twelve bytes"))
                    .expectContinue(true)
                    .timeout(Duration.ofSeconds(10))
                    .build();
            long start = System.nanoTime();
            assertEquals("12", client.send(post).asString());
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(millis >= 200, "sent after " + millis + " ms, before the continue timeout");
            // The body went: the connection is reused.
            assertEquals("12", client.send(post).asString());
            assertEquals(1, fake.accepted.get());
        }
    }

    @Test
    void aBodilessRequestDoesNotWait(ByteBufferPool pool) throws Exception {
        try (FakeServer fake = new FakeServer((index, socket, in, out) -> {
            while (FakeServer.readHead(in) != null) {
                FakeServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
            }
        })) {
            client = HttpClient.builder().bufferPool(pool).continueTimeout(LONG).build();
            HttpRequest post = HttpRequest.newBuilder(fake.uri("/empty"))
                    .POST(RequestBody.of(new byte[0]))
                    .expectContinue(true)
                    .timeout(Duration.ofSeconds(10))
                    .build();
            assertEquals("ok", client.send(post).asString());
        }
    }

    @Test
    void overHttp2TheBodyWaitsForA100Too(ByteBufferPool pool) throws Exception {
        try (FakeH2Server fake = new FakeH2Server(new Http2Settings(), (connection, streamId, head, out) -> {
            assertEquals("100-continue", head.fields().get("expect").orElse("-"));
            out.headers(streamId, 100, false);
        })) {
            fake.onData((streamId, endStream, out) -> {
                if (endStream) {
                    out.headers(streamId, 200, false);
                    out.data(streamId, "got " + fake.dataBytes.get(), true);
                }
            });
            client = HttpClient.builder()
                    .bufferPool(pool)
                    .http2(true)
                    .continueTimeout(LONG)
                    .build();
            HttpRequest post = HttpRequest.newBuilder(fake.uri("/upload"))
                    .POST(RequestBody.of(body(10_000)))
                    .expectContinue(true)
                    .timeout(Duration.ofSeconds(10))
                    .build();
            assertEquals("got 10000", client.send(post).asString());
        }
    }

    @Test
    void overHttp2AFinalStatusFirstMeansNoDataAndTheConnectionServesOn(ByteBufferPool pool) throws Exception {
        try (FakeH2Server fake = new FakeH2Server(new Http2Settings(), (connection, streamId, head, out) -> {
            if (head.method().equals("POST")) {
                out.headers(streamId, 417, true);
            } else {
                out.headers(streamId, 200, false);
                out.data(streamId, "ok", true);
            }
        })) {
            client = HttpClient.builder()
                    .bufferPool(pool)
                    .http2(true)
                    .continueTimeout(LONG)
                    .build();
            HttpRequest post = HttpRequest.newBuilder(fake.uri("/upload"))
                    .POST(RequestBody.of(body(1_000_000)))
                    .expectContinue(true)
                    .timeout(Duration.ofSeconds(10))
                    .build();
            HttpResponse response = client.send(post);
            assertEquals(417, response.status());
            assertEquals("", response.asString());
            // The request ends with RST_STREAM CANCEL once the response did (RFC 9113 8.1), without a DATA frame.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (fake.resets.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(List.of("1 CANCEL"), List.copyOf(fake.resets));
            assertEquals(0, fake.dataBytes.get(), "request content the server received");
            assertEquals("ok", client.send(HttpRequest.get(fake.uri("/next"))).asString());
            assertEquals(1, fake.accepted.get());
        }
    }

    /** Counts what it is given, and drops it. */
    private static final class OutputStreamSink extends java.io.OutputStream {
        static final OutputStreamSink INSTANCE = new OutputStreamSink();

        @Override
        public void write(int b) {}

        @Override
        public void write(byte[] bytes, int offset, int length) {}
    }
}
