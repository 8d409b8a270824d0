package dev.quarry.server.h2;

import static dev.quarry.server.test.ServerTestBase.await;

import dev.quarry.http.HttpFields;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.io.ServerConnector;
import java.io.OutputStream;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * An HTTP/2 client that stops reading while the server has a response for it: once a write has waited a whole idle
 * timeout, the connection closes, as an HTTP/1.1 one does. Before, a GOAWAY that could never be written was all the
 * server did: 170 such connections pinned 19,999 descriptors and 813 MB in an attack run, for as long as they liked.
 */
class StalledReaderTest extends Http2ServerTestSupport {

    @Test
    void aConnectionWhoseClientStopsReadingClosesAtTheIdleTimeout() throws Exception {
        byte[] chunk = new byte[1024 * 1024];
        start(builder -> builder.idleTimeout(Duration.ofMillis(500))
                .route("GET /big", TestHandlers.blocking((request, response) -> {
                    try (OutputStream out = response.outputStream()) {
                        for (int i = 0; i < 64; i++) { // far more than the socket buffers hold
                            out.write(chunk);
                        }
                    }
                })));
        ServerConnector connector = server.connectors().get(0);

        try (SocketChannel client = SocketChannel.open()) {
            client.setOption(StandardSocketOptions.SO_RCVBUF, 4096);
            client.connect(address());
            FrameGenerator generator = new FrameGenerator(new HpackEncoder());
            ByteBuffer out = ByteBuffer.allocate(4096);
            out.put("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            // Windows wide open: only TCP can stop the server, when this client stops reading.
            generator.settings(out, new Http2Settings().set(Http2Settings.INITIAL_WINDOW_SIZE, Integer.MAX_VALUE));
            generator.settingsAck(out);
            generator.windowUpdate(out, 0, Integer.MAX_VALUE - 65_535);
            generator.requestHeaders(out, 1, "GET", "http", "test", "/big", new HttpFields(), true);
            out.flip();
            while (out.hasRemaining()) {
                client.write(out);
            }
            await("the response stalled on TCP", () -> server.statistics().http2Requests() == 1);

            // This client never reads a byte.
            await(
                    "the connection closed",
                    () -> connector.openConnections() == 0,
                    () -> "still open: " + connector.endPoints());
        }
    }
}
