package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.Http2Settings;
import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Requests an HTTP/2 server turned away unprocessed (above a GOAWAY's last stream id, RFC 9113 8.7) are retried on new
 * connections as often as that happens, within a bound: nginx under load ends a connection every
 * {@code keepalive_requests} streams, and a request can be turned away from two connections in a row.
 */
@ExtendWith(LeakTrackingPoolExtension.class)
class Http2UnprocessedRetryTest {
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
}
