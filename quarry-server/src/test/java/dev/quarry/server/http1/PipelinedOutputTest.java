package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.io.EndPoint;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.Transport;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Responses aggregated for a pipelining client that does not read: when the server rejects a request it writes what
 * it aggregated plus the rejection and closes after that write. If the write has to wait for the client, its buffer
 * must stay the connection's until it is written, whatever other connections do meanwhile.
 *
 * <p>To make that last write wait, the test first measures, on a probe connection, after how many responses the
 * server's socket is full (Unix-domain socket buffers have a fixed size), then pipelines one response fewer followed
 * by a bad request on a second connection.
 */
class PipelinedOutputTest extends ServerTestBase {
    private static final int BODY = 4000;
    private static final int MAX_REQUESTS = 20_000;

    private final AtomicInteger handled = new AtomicInteger();

    @Test
    void theClosingWriteKeepsItsBufferUntilTheClientReadsIt() throws Exception {
        byte[] other = new byte[30 * 1024];
        Arrays.fill(other, (byte) 'Z');
        start(
                Transport.UNIX,
                builder -> builder.handler(AsyncHandler.nonBlocking((request, response, callback) -> {
                    byte[] body;
                    if (request.path().equals("/other")) {
                        body = other;
                    } else {
                        handled.incrementAndGet();
                        body = expected(Integer.parseInt(request.query().orElseThrow()))
                                .getBytes(StandardCharsets.US_ASCII);
                    }
                    response.write(true, ByteBuffer.wrap(body), callback);
                })));

        int full = requestsUntilTheServerWaits();
        RawClient slow = connect();
        slow.send(requests(full - 1) + "GET /0 HTTP/1.1\r\nHost: test\r\nBad Header\r\n\r\n");
        await(
                "the rejection answered, in a last write that waits for the client",
                () -> onlyEndPoint()
                        .map(PipelinedOutputTest::closingWritePending)
                        .orElse(false),
                () -> server.connectors().get(0).endPoints().toString());
        // Meanwhile other connections take output buffers of the same size from the pool and fill them.
        for (int i = 0; i < 10; i++) {
            try (RawClient client = connect()) {
                RawResponse response =
                        client.send("GET /other HTTP/1.1\r\nHost: test\r\n\r\n").readResponse();
                assertEquals(other.length, response.body().length);
            }
        }

        for (int i = 0; i < full - 1; i++) {
            assertResponse(i, slow.readResponse());
        }
        RawResponse rejected = slow.readResponse();
        assertEquals(400, rejected.status(), rejected::toString);
        assertTrue(rejected.text().contains("whitespace in field name"), rejected::toString);
        slow.awaitClosed();
    }

    /** Pipelines requests on a probe connection without reading, until the server waits to write; then drains. */
    private int requestsUntilTheServerWaits() throws IOException {
        try (RawClient probe = connect()) {
            probe.send(requests(MAX_REQUESTS / 4));
            await(
                    "the probe's responses filling the socket",
                    () -> onlyEndPoint()
                            .map(endPoint -> String.valueOf(endPoint).contains(",W"))
                            .orElse(false),
                    () -> server.connectors().get(0).endPoints().toString());
            int full = handled.get();
            for (int i = 0; i < MAX_REQUESTS / 4; i++) {
                assertResponse(i, probe.readResponse());
            }
            handled.set(0);
            return full;
        } finally {
            await("the probe connection closed", () -> onlyEndPoint().isEmpty());
        }
    }

    private static String requests(int count) {
        StringBuilder requests = new StringBuilder();
        for (int i = 0; i < count; i++) {
            requests.append("GET /r?").append(i).append(" HTTP/1.1\r\nHost: test\r\n\r\n");
        }
        return requests.toString();
    }

    private static void assertResponse(int i, RawResponse response) {
        String text = response.text();
        assertTrue(
                text.equals(expected(i)),
                () -> "response " + i + " corrupted: '" + text.substring(0, Math.min(40, text.length())) + "...'");
    }

    private static String expected(int i) {
        String prefix = "response " + i + " ";
        return prefix + "p".repeat(BODY - prefix.length());
    }

    private Optional<EndPoint> onlyEndPoint() {
        return server.connectors().get(0).endPoints().stream().findFirst();
    }

    private static boolean closingWritePending(EndPoint endPoint) {
        return String.valueOf(endPoint.connection()).contains("{CLOSED")
                && String.valueOf(endPoint).contains(",W");
    }
}
