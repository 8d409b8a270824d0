package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.pool.Pool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.server.test.WakesAtOnceEndPoint;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.Arrays;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * How the reading side of a client HTTP/2 connection copes with a fill interest that fires on another thread while
 * the thread that registered it is still leaving {@link Http2Connection#onFillable()}. A TLS endpoint does exactly that
 * when it already holds bytes for the reader (decrypted, or whole records not yet decrypted, or a post-handshake task
 * just finished): it wakes the reader at once on another thread. That wake-up was once dropped, because the thread
 * still in onFillable owned the connection's input, and the connection stopped reading for good: the intermittent
 * stall of h2 over TLS until the idle timeout.
 */
@ExtendWith(LeakTrackingPoolExtension.class)
class Http2ConnectionWakeUpTest {
    private static final long PING_PAYLOAD = 0x5155_4152_5259_4832L;

    @Test
    void aWakeUpBeforeTheReaderLeftIsNotLost(ByteBufferPool pool) throws Exception {
        try (HttpClient client = HttpClient.builder().bufferPool(pool).build()) {
            Destination destination = new Destination(Origin.of(URI.create("https://localhost:8443/")), client);
            Pool.Entry<ClientConnection> entry =
                    Pool.<ClientConnection>builder(1).build().reserve();
            FrameGenerator generator = new FrameGenerator(new HpackEncoder());
            WakesAtOnceEndPoint endPoint = new WakesAtOnceEndPoint(
                    new InetSocketAddress("127.0.0.1", 40000), new InetSocketAddress("127.0.0.1", 8443));
            Http2Connection connection = new Http2Connection(endPoint, destination, client, entry);
            endPoint.setConnection(connection);
            endPoint.arrive(frame(out -> generator.settings(out, new Http2Settings())));
            // The bytes the wake-up is about: they arrive as the reader asks for more, and the reader is woken on
            // another thread before its own call returns.
            endPoint.onFirstInterest(frame(out -> generator.ping(out, PING_PAYLOAD, false)));

            connection.onFillable();

            ByteBuffer ack = ByteBuffer.allocate(32);
            generator.ping(ack, PING_PAYLOAD, true);
            byte[] expected = Arrays.copyOf(ack.array(), ack.position());
            assertTrue(
                    contains(endPoint.written(), expected),
                    "the PING that came with the wake-up was never read: the connection stopped reading");
            assertEquals(2, endPoint.interests, "the reader asks for more once it read everything");
            assertTrue(endPoint.isFillInterested());
            connection.onClose(new ClosedChannelException());
        }
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static ByteBuffer frame(Consumer<ByteBuffer> generate) {
        ByteBuffer bytes = ByteBuffer.allocate(64);
        generate.accept(bytes);
        return bytes.flip();
    }
}
