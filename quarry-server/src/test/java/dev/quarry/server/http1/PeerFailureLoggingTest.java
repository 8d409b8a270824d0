package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quarry.server.AsyncHandler;
import dev.quarry.server.test.LogCapture;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.Transport;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a client does to its own connection is not a fault of the server: a TCP reset in the middle of a request head
 * (56,220 of them in 10 s wrote 87 MB of stack traces in an attack run) or of an HTTP/2 connection is counted and
 * logged at DEBUG in one line, never at WARNING.
 */
class PeerFailureLoggingTest extends ServerTestBase {
    private static final AsyncHandler OK = AsyncHandler.nonBlocking((request, response, callback) ->
            response.write(true, ByteBuffer.wrap("ok".getBytes(StandardCharsets.US_ASCII)), callback));

    @Test
    void resetsDuringRequestHeadsAreCountedNotLoggedAsWarnings() throws Exception {
        try (LogCapture log = LogCapture.of("dev.quarry")) {
            start(Transport.TCP, builder -> builder.handler(OK));
            int resets = 5;
            for (int i = 0; i < resets; i++) {
                RawClient client = connect().send("GET / HTTP/1.1\r\nHost: test\r\nX-Half");
                await("the partial head read", () -> server.statistics().http1Connections() > 0);
                client.abort(); // RST
            }
            try (Socket h2 = new Socket("127.0.0.1", server.port())) {
                h2.getOutputStream().write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                h2.getOutputStream().write(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0}); // empty SETTINGS
                h2.getInputStream().read(); // the server's SETTINGS: the HTTP/2 connection is up
                h2.setSoLinger(true, 0); // close with RST
            }

            await(
                    "every reset seen",
                    () -> server.statistics().peerIoFailures() >= resets,
                    () -> "" + server.statistics().peerIoFailures());
            await(
                    "the HTTP/2 connection closed",
                    () -> server.connectors().get(0).openConnections() == 0);
            assertEquals(List.of(), log.warnings(), log::describe);
            assertServedNormally("GET / HTTP/1.1\r\nHost: test\r\n\r\n");
        }
    }
}
