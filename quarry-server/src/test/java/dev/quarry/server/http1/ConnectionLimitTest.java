package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.io.ServerConnector;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.test.LogCapture;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.ServerTestBase;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/**
 * The cap on open connections: at it the server stops accepting, so that it never holds connections it cannot serve
 * (past the descriptor limit a client connected at the TCP level and got nothing), resumes as soon as one closes, says
 * so once rather than at every attempt, and counts it. The default comes from the descriptor limit.
 */
class ConnectionLimitTest extends ServerTestBase {
    private static final String GET = "GET / HTTP/1.1\r\nHost: test\r\n\r\n";
    private static final AsyncHandler OK = AsyncHandler.nonBlocking((request, response, callback) ->
            response.write(true, ByteBuffer.wrap("ok".getBytes(StandardCharsets.US_ASCII)), callback));

    @Test
    void atTheCapNewConnectionsWaitUntilOneClosesAndTheLimitIsLoggedOnce() throws Exception {
        try (LogCapture log = LogCapture.of("dev.quarry")) {
            start(builder -> builder.handler(OK).maxConnections(2));
            RawClient first = connect();
            RawClient second = connect();
            assertEquals(200, first.send(GET).readResponse().status());
            assertEquals(200, second.send(GET).readResponse().status());

            // The kernel completes the third handshake (the backlog), but the server does not take it.
            RawClient third = connect().timeout(Duration.ofMillis(300));
            third.send(GET);
            assertThrows(SocketTimeoutException.class, third::readResponse, "served beyond the cap");
            ServerConnector connector = server.connectors().get(0);
            await("accepting paused", () -> connector.acceptsPausedAtLimit() == 1);

            first.close();
            third.timeout(WAIT);
            assertEquals(200, third.readResponse().status(), "served once a connection closed");

            // At the cap again: counted again, but not logged again within the minute.
            RawClient fourth = connect();
            fourth.send(GET);
            await("accepting paused again", () -> connector.acceptsPausedAtLimit() == 2);
            second.close();
            assertEquals(200, fourth.timeout(WAIT).readResponse().status());

            long warnings = log.warnings().stream()
                    .map(LogRecord::getMessage)
                    .filter(message -> message.contains("at the limit of 2 open connections"))
                    .count();
            assertEquals(1, warnings, log::describe);
        }
    }

    @Test
    void theDefaultCapComesFromTheDescriptorLimit() throws IOException {
        start(builder -> builder.handler(OK));
        int cap = server.connectors().get(0).config().maxConnections();
        long descriptors = ((com.sun.management.UnixOperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getMaxFileDescriptorCount();

        assertEquals(Math.max(32, (descriptors - 256) / 2), cap, () -> "ulimit -n " + descriptors);
        assertTrue(cap < descriptors, "room left for files and the process");
    }
}
