package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.pool.Pool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.http.HttpFields;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.hpack.HpackEncoder;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An HTTP/2 server ending connections, as nginx does every {@code keepalive_requests} streams under load (GOAWAY, then
 * the close once it answered what it owes): requests it turned away unprocessed (above the GOAWAY's last stream id, RFC
 * 9113 8.7) are retried on new connections as often as that happens, within a bound; a response it sent in full stands
 * when the connection closes before the client marked its request sent, even when the close fails the write of the
 * request's last frame first.
 */
@ExtendWith(LeakTrackingPoolExtension.class)
class Http2ServerGoesAwayTest {
    private HttpClient client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
    }

    @Test
    void aRequestTurnedAwayByTwoConnectionsInARowSucceedsOnTheThird(ByteBufferPool pool) throws Exception {
        try (FakeH2Server fake = new FakeH2Server(new Http2Settings(), (connection, streamId, head, out) -> {
            if (connection < 2) {
                out.goAway(0, ErrorCode.NO_ERROR);
            } else {
                out.headers(streamId, 200, false);
                out.data(streamId, "third connection", true);
            }
        })) {
            client = HttpClient.builder().http2(true).bufferPool(pool).build();
            assertEquals(
                    "third connection",
                    client.send(HttpRequest.get(fake.uri("/x"))).asString());
            assertEquals(3, fake.accepted.get());
        }
    }

    @Test
    void aServerThatProcessesNothingFailsTheRequestAfterABoundedNumberOfTries(ByteBufferPool pool) throws Exception {
        try (FakeH2Server fake = new FakeH2Server(
                new Http2Settings(), (connection, streamId, head, out) -> out.goAway(0, ErrorCode.NO_ERROR))) {
            client = HttpClient.builder().http2(true).bufferPool(pool).build();
            IOException failed =
                    assertThrows(IOException.class, () -> client.send(HttpRequest.get(fake.uri("/never"))));
            assertTrue(failed.getMessage().contains("went away"), failed.getMessage());
            assertEquals(9, fake.accepted.get(), "the first try and 8 retries");
        }
    }

    @Test
    void aResponseReceivedInFullStandsWhenTheServerClosesBeforeTheRequestEnded(ByteBufferPool pool) throws Exception {
        // The server answers in full as soon as it has the head, then closes (as nginx does with the last response it
        // owes after GOAWAY), while the client is still sending the body: the response stands (RFC 9113 8.1).
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.io.InputStream stalled = new java.io.InputStream() {
            @Override
            public int read() throws IOException {
                try {
                    release.await();
                } catch (InterruptedException x) {
                    throw new java.io.InterruptedIOException();
                }
                return -1;
            }
        };
        try (FakeH2Server fake = new FakeH2Server(new Http2Settings(), (connection, streamId, head, out) -> {
            out.headers(streamId, 200, false);
            out.data(streamId, "answered early", true);
            out.goAway(streamId, ErrorCode.NO_ERROR);
            throw new IOException("closing"); // the fake closes the connection
        })) {
            client = HttpClient.builder().http2(true).bufferPool(pool).build();
            HttpRequest post = HttpRequest.newBuilder(fake.uri("/early"))
                    .POST(RequestBody.ofStream(stalled))
                    .build();
            try (HttpResponse response = client.send(post)) {
                assertEquals(200, response.status());
                // Read only once the client saw the connection close: the content must still be there.
                InteropLoad.await(() -> client.statistics().get(0).open() == 0, "the connection to close");
                assertEquals("answered early", response.asString());
            } finally {
                release.countDown();
            }
        }
    }

    @Test
    void aResponseReceivedInFullStandsWhenTheCloseFailsItsRequestsPendingWrite(ByteBufferPool pool) throws Exception {
        // nginx's case, 1 to 3 requests lost in 512 under GOAWAY churn: the request's HEADERS frame was written, but
        // the
        // write's completion had not run yet (its thread preempted) when the whole response and the close arrived. The
        // endpoint fails that pending write as it closes, before the connection learns of the close.
        client = HttpClient.builder().http2(true).bufferPool(pool).build();
        FrameGenerator server = new FrameGenerator(new HpackEncoder());
        Pool.Entry<ClientConnection> entry =
                Pool.<ClientConnection>builder(1).build().reserve();
        HeldWriteEndPoint endPoint = new HeldWriteEndPoint();
        Http2Connection connection = new Http2Connection(
                endPoint, new Destination(Origin.of(URI.create("http://127.0.0.1:8080/")), client), client, entry);
        endPoint.setConnection(connection);
        connection.onOpen();
        endPoint.arrive(frame(out -> server.settings(out, new Http2Settings())));
        connection.onFillable();

        endPoint.holdWrites();
        Exchange exchange = new Exchange(HttpRequest.get("http://127.0.0.1:8080/last"), client.executor(), null);
        connection.assign(exchange, false);
        InteropLoad.await(endPoint::holdsAWrite, "the request's HEADERS frame to be written");
        endPoint.arrive(frame(out -> {
            server.goAway(out, 1, ErrorCode.NO_ERROR, null);
            server.responseHeaders(out, 1, 200, new HttpFields(), false);
            server.data(out, 1, StandardCharsets.UTF_8.encode("the last response"), true);
        }));
        endPoint.end();
        connection.onFillable();

        try (HttpResponse response = exchange.future.get(10, TimeUnit.SECONDS)) {
            assertEquals(200, response.status());
            assertEquals("the last response", response.asString());
        }
        assertTrue(!endPoint.isOpen() && connection.isIdle(), connection.toString());
    }

    private static ByteBuffer frame(java.util.function.Consumer<ByteBuffer> generate) {
        ByteBuffer bytes = ByteBuffer.allocate(256);
        generate.accept(bytes);
        return bytes.flip();
    }
}
