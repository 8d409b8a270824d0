package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.pool.Pool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.io.Connection;
import dev.quarry.io.EndPoint;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.Arrays;
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
            WakesAtOnceEndPoint endPoint = new WakesAtOnceEndPoint();
            Http2Connection connection = new Http2Connection(endPoint, destination, client, entry);
            endPoint.setConnection(connection);
            endPoint.arrive(out -> generator.settings(out, new Http2Settings()));
            // The bytes the wake-up is about: they arrive as the reader asks for more, and the reader is woken on
            // another thread before its own call returns.
            endPoint.onFirstInterest(out -> generator.ping(out, PING_PAYLOAD, false));

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

    /**
     * An endpoint that, like a TLS endpoint holding bytes for its reader, answers the first fill interest by waking
     * the reader on another thread right away, and returns only once that wake-up ran (the worst case of the race,
     * made certain). Later interests wait, as a socket with nothing to read does.
     */
    private static final class WakesAtOnceEndPoint implements EndPoint {
        private final ArrayDeque<ByteBuffer> inbound = new ArrayDeque<>();
        private final ByteArrayOutputStream outbound = new ByteArrayOutputStream();
        private java.util.function.Consumer<ByteBuffer> firstInterest;
        private volatile Callback pendingInterest;
        private volatile Connection connection;
        private volatile boolean open = true;
        volatile int interests;

        void arrive(java.util.function.Consumer<ByteBuffer> frame) {
            ByteBuffer bytes = ByteBuffer.allocate(64);
            frame.accept(bytes);
            synchronized (inbound) {
                inbound.add(bytes.flip());
            }
        }

        void onFirstInterest(java.util.function.Consumer<ByteBuffer> frame) {
            firstInterest = frame;
        }

        byte[] written() {
            synchronized (outbound) {
                return outbound.toByteArray();
            }
        }

        @Override
        public int fill(ByteBuffer buffer) {
            synchronized (inbound) {
                int total = 0;
                ByteBuffer next;
                while ((next = inbound.peek()) != null && buffer.hasRemaining()) {
                    int n = Math.min(next.remaining(), buffer.remaining());
                    buffer.put(next.slice(next.position(), n));
                    next.position(next.position() + n);
                    total += n;
                    if (!next.hasRemaining()) {
                        inbound.poll();
                    }
                }
                return total;
            }
        }

        @Override
        public void fillInterested(Callback callback) {
            interests++;
            java.util.function.Consumer<ByteBuffer> frame = firstInterest;
            if (frame == null) {
                pendingInterest = callback;
                return;
            }
            firstInterest = null;
            arrive(frame);
            Thread waker = Thread.ofPlatform().name("tls-wake-up").start(callback::succeeded);
            try {
                waker.join();
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(x);
            }
        }

        @Override
        public boolean isFillInterested() {
            return pendingInterest != null;
        }

        @Override
        public boolean flush(ByteBuffer... buffers) {
            synchronized (outbound) {
                for (ByteBuffer buffer : buffers) {
                    while (buffer.hasRemaining()) {
                        outbound.write(buffer.get());
                    }
                }
            }
            return true;
        }

        @Override
        public void write(Callback callback, ByteBuffer... buffers) {
            flush(buffers);
            callback.succeeded();
        }

        @Override
        public SocketAddress localAddress() {
            return new InetSocketAddress("127.0.0.1", 40000);
        }

        @Override
        public SocketAddress remoteAddress() {
            return new InetSocketAddress("127.0.0.1", 8443);
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public boolean isSecure() {
            return true;
        }

        @Override
        public void shutdownOutput() {}

        @Override
        public boolean isOutputShutdown() {
            return !open;
        }

        @Override
        public boolean isInputShutdown() {
            return !open;
        }

        @Override
        public void close() {
            open = false;
        }

        @Override
        public void close(Throwable cause) {
            open = false;
        }

        @Override
        public void abort() {
            open = false;
        }

        @Override
        public Connection connection() {
            return connection;
        }

        @Override
        public void setConnection(Connection connection) {
            this.connection = connection;
        }

        @Override
        public long idleTimeout() {
            return 0;
        }

        @Override
        public void setIdleTimeout(long millis) {}

        @Override
        public long bytesIn() {
            return 0;
        }

        @Override
        public long bytesOut() {
            return 0;
        }

        @Override
        public long createdNanos() {
            return 0;
        }
    }
}
