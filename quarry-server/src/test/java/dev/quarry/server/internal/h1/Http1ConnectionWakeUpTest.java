package dev.quarry.server.internal.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.core.thread.TryExecutor;
import dev.quarry.core.timer.HashedWheelTimer;
import dev.quarry.io.Connection;
import dev.quarry.io.EndPoint;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Http2Config;
import dev.quarry.server.HttpConfig;
import dev.quarry.server.ServerStatistics;
import dev.quarry.server.internal.DateField;
import dev.quarry.server.internal.ErrorPages;
import dev.quarry.server.internal.ExchangePool;
import dev.quarry.server.internal.HandlerInvoker;
import dev.quarry.server.internal.ServerContext;
import dev.quarry.server.internal.h2.Http2ContentBudget;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * How an HTTP/1.1 connection copes with a read wake-up that comes on another thread while the thread that registered
 * the fill interest is still inside {@code process()}. A TLS endpoint does exactly that when it already holds bytes for
 * the reader (decrypted, or whole records): it wakes the reader at once, on another thread. The two threads once
 * processed the connection together (the wake-up was counted, not deferred): both used the parser and the buffers, and
 * the first to leave cleared the second's claim to be processing (so that a close could release the buffers it
 * parsed). Now the thread still inside goes round once more and serves the wake-up itself.
 */
@ExtendWith(LeakTrackingPoolExtension.class)
class Http1ConnectionWakeUpTest {
    private static final String FIRST = "GET /first HTTP/1.1\r\nHost: localhost\r\n\r\n";
    private static final String SECOND = "GET /second HTTP/1.1\r\nHost: localhost\r\n\r\n";

    @Test
    void aWakeUpBeforeTheProcessingThreadLeftIsServedByThatThreadNotAlongsideIt(ByteBufferPool pool) {
        WakesAtOnceEndPoint endPoint = new WakesAtOnceEndPoint();
        List<String> handled = new CopyOnWriteArrayList<>();
        AsyncHandler handler = AsyncHandler.nonBlocking((request, response, callback) -> {
            Thread registering = endPoint.registering;
            boolean alongside = registering != null && registering != Thread.currentThread();
            handled.add(request.path() + (alongside ? " while another thread was processing" : ""));
            response.write(true, ByteBuffer.wrap(request.path().getBytes(StandardCharsets.US_ASCII)), callback);
        });
        HashedWheelTimer timer =
                HashedWheelTimer.builder().name("wake-up-test-timer").build(); // never started
        ServerContext context = new ServerContext(
                handler,
                new HandlerInvoker(task -> Thread.ofVirtual().start(task), true, 16),
                HttpConfig.DEFAULT,
                pool,
                timer,
                new DateField(timer),
                Optional.empty(),
                new ServerStatistics(),
                Optional.empty(),
                TryExecutor.noReserved(task -> Thread.ofPlatform().start(task)),
                Http2Config.DEFAULT,
                ErrorPages.NONE,
                new Http2ContentBudget(1 << 20),
                new ExchangePool(4));
        Http1Connection connection = new Http1Connection(context, null, endPoint);
        endPoint.setConnection(connection);
        endPoint.arrive(FIRST);
        // The next request arrives as the connection asks for more, and the reader is woken on another thread before
        // that request returns.
        endPoint.onFirstInterest(SECOND);

        connection.onFillable(); // as the selector would: the first request is readable

        assertEquals(List.of("/first", "/second"), handled);
        String written = endPoint.written();
        assertTrue(
                written.indexOf("/first") >= 0 && written.indexOf("/first") < written.indexOf("/second"),
                () -> "both responses, in order: " + written);
        assertEquals(2, endPoint.interests, "the connection asks for more once it has read everything");
        assertTrue(endPoint.isFillInterested(), "the connection waits for the next request");
        endPoint.pendingInterest.failed(new ClosedChannelException()); // the client leaves: buffers go back
    }

    /**
     * An endpoint that, like a TLS endpoint holding bytes for its reader, answers the first fill interest by waking
     * the reader on another thread right away, and returns only once that wake-up ran (the worst case of the race,
     * made certain). Later interests wait, as a socket with nothing to read does. Writes complete at once.
     */
    private static final class WakesAtOnceEndPoint implements EndPoint {
        private final ArrayDeque<ByteBuffer> inbound = new ArrayDeque<>();
        private final ByteArrayOutputStream outbound = new ByteArrayOutputStream();
        private volatile String firstInterest;
        private volatile Connection connection;
        private volatile boolean open = true;
        volatile Callback pendingInterest;
        // The thread inside fillInterested while the wake-up it caused runs on another thread.
        volatile Thread registering;
        volatile int interests;

        void arrive(String bytes) {
            synchronized (inbound) {
                inbound.add(ByteBuffer.wrap(bytes.getBytes(StandardCharsets.US_ASCII)));
            }
        }

        void onFirstInterest(String bytes) {
            firstInterest = bytes;
        }

        String written() {
            synchronized (outbound) {
                return outbound.toString(StandardCharsets.US_ASCII);
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
            String bytes = firstInterest;
            if (bytes == null) {
                pendingInterest = callback;
                return;
            }
            firstInterest = null;
            arrive(bytes);
            registering = Thread.currentThread();
            Thread waker = Thread.ofPlatform().name("tls-wake-up").start(callback::succeeded);
            try {
                waker.join();
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(x);
            } finally {
                registering = null;
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
            return new InetSocketAddress("127.0.0.1", 8443);
        }

        @Override
        public SocketAddress remoteAddress() {
            return new InetSocketAddress("127.0.0.1", 40000);
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
