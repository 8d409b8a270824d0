package dev.quarry.server.internal.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.http.HttpHeader;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Content;
import dev.quarry.server.Request;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The race between the 100 Continue that a demand for content writes and the final response head that the handler
 * commits, possibly on another thread, at the same moment (RFC 9110 10.1.1 and 15.2: interim responses come before the
 * final one, never after it). A {@link HoldingEndPoint} makes each interleaving certain: it holds the 100's write
 * pending, or stops the demanding thread just before the 100's write begins, while the head is committed.
 */
@ExtendWith(LeakTrackingPoolExtension.class)
class ExpectContinueRaceTest {
    private static final String CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n";
    private static final String UPLOAD =
            "POST /upload HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n";

    private final HoldingEndPoint endPoint = new HoldingEndPoint();

    private Http1Connection connect(ByteBufferPool pool, AsyncHandler handler) {
        return TestHttp1Connections.of(pool, handler, endPoint);
    }

    /** Reads the request body to its end, demanding more as needed, then runs {@code atEnd}. */
    private static void readToEnd(Request request, Runnable atEnd) {
        while (true) {
            Content.Chunk chunk = request.read();
            if (chunk == null) {
                request.demand(() -> readToEnd(request, atEnd));
                return;
            }
            chunk.release();
            if (chunk.isLast()) {
                atEnd.run();
                return;
            }
        }
    }

    private static ByteBuffer ascii(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }

    /** The client sends the body it was told to send; the exchange reads it and completes. */
    private void sendBodyAndAwaitTheEnd() throws InterruptedException {
        endPoint.arrive("hello");
        assertTrue(endPoint.wakeFill(), "the 100's completion asked for the body");
        endPoint.awaitWritten("0\r\n\r\n");
    }

    private void assertOneHundredThenTheHead(String written) {
        assertNull(endPoint.overlap, "two writes at once");
        assertTrue(written.startsWith(CONTINUE + "HTTP/1.1 200 OK\r\n"), () -> "the 100, then the head: " + written);
        assertEquals(written.indexOf("HTTP/1.1 100"), written.lastIndexOf("HTTP/1.1 100"), written);
    }

    /** The connection waits for the next request; the client then leaves, and the buffers go back to the pool. */
    private void assertReusableThenLeave() {
        assertTrue(endPoint.isFillInterested(), "the connection waits for the next request");
        endPoint.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"bytes", "file"})
    void aHeadCommittedWhileThe100IsBeingWrittenGoesOutAfterIt(
            String content, @TempDir java.nio.file.Path dir, ByteBufferPool pool) throws Exception {
        // Opened here: the handler runs in place, on a thread that must not do file I/O.
        FileChannel channel =
                FileChannel.open(Files.writeString(dir.resolve("partial.txt"), "partial"), StandardOpenOption.READ);
        Http1Connection connection = connect(pool, AsyncHandler.nonBlocking((request, response, callback) -> {
            request.demand(() -> readToEnd(request, () -> response.write(true, ByteBuffer.allocate(0), callback)));
            // The 100's write is still pending: this head must neither overlap it nor go before it.
            if (content.equals("file")) {
                response.headers().put(HttpHeader.CONTENT_LENGTH, "7");
                response.write(
                        channel,
                        0,
                        7,
                        false,
                        Callback.from(
                                InvocationType.NON_BLOCKING,
                                () -> {
                                    close(channel);
                                },
                                x -> close(channel)));
            } else {
                response.write(false, ascii("partial"), Callback.NOOP);
            }
        }));
        endPoint.holdWrites(bytes -> bytes.startsWith("HTTP/1.1 100"));
        endPoint.arrive(UPLOAD);

        connection.onFillable();

        assertNull(endPoint.overlap, "two writes at once");
        assertTrue(endPoint.isHolding(), "the 100 is being written");
        assertEquals(CONTINUE, endPoint.writtenAscii(), "nothing beside the 100 while it is written");
        endPoint.releaseHeld();
        String written = endPoint.awaitWritten("partial");
        assertOneHundredThenTheHead(written);
        if (content.equals("file")) {
            endPoint.arrive("hello");
            assertTrue(endPoint.wakeFill(), "the 100's completion asked for the body");
            endPoint.awaitWritten("partial"); // Content-Length framing: the last write adds nothing
        } else {
            sendBodyAndAwaitTheEnd();
        }
        assertReusableThenLeave();
        channel.close();
    }

    @Test
    void aHeadThatWaitedForThe100LeavesAThreadThatMustNotBlockWhenItsCallbackMay(ByteBufferPool pool) throws Exception {
        CountDownLatch headWritten = new CountDownLatch(1);
        AtomicReference<Thread> completedOn = new AtomicReference<>();
        Http1Connection connection = connect(pool, AsyncHandler.nonBlocking((request, response, callback) -> {
            request.demand(() -> readToEnd(request, () -> response.write(true, ByteBuffer.allocate(0), callback)));
            response.write(
                    false,
                    ascii("partial"),
                    Callback.from(
                            InvocationType.BLOCKING,
                            () -> {
                                completedOn.set(Thread.currentThread());
                                headWritten.countDown();
                            },
                            x -> {}));
        }));
        endPoint.holdWrites(bytes -> bytes.startsWith("HTTP/1.1 100"));
        endPoint.arrive(UPLOAD);
        connection.onFillable();

        // As a selector would complete the 100's write: on a thread that must not block.
        Invocable.invokeNonBlocking(endPoint::releaseHeld);

        await(headWritten);
        assertNotSame(Thread.currentThread(), completedOn.get(), "the blocking callback ran on another thread");
        assertOneHundredThenTheHead(endPoint.writtenAscii());
        sendBodyAndAwaitTheEnd();
        assertReusableThenLeave();
    }

    @Test
    void anErrorResponseWhileThe100IsBeingWrittenGoesOutAfterIt(ByteBufferPool pool) throws Exception {
        Http1Connection connection = connect(pool, AsyncHandler.nonBlocking((request, response, callback) -> {
            request.demand(() -> {});
            throw new IllegalStateException("the handler fails while the 100 is being written");
        }));
        endPoint.holdWrites(bytes -> bytes.startsWith("HTTP/1.1 100"));
        endPoint.arrive(UPLOAD);

        connection.onFillable();

        assertNull(endPoint.overlap, "two writes at once");
        assertEquals(CONTINUE, endPoint.writtenAscii(), "nothing beside the 100 while it is written");
        endPoint.releaseHeld();
        String written = endPoint.awaitWritten("HTTP/1.1 500");
        assertNull(endPoint.overlap, "two writes at once");
        assertTrue(written.startsWith(CONTINUE + "HTTP/1.1 500 "), written);
        if (endPoint.isOpen()) {
            endPoint.arrive("hello"); // the body the 100 asked for, discarded
            assertTrue(endPoint.wakeFill());
        }
        endPoint.close();
    }

    @Test
    void aDemandStoppedJustBeforeWritingThe100StillWritesItBeforeAHeadCommittedMeanwhile(ByteBufferPool pool)
            throws Exception {
        CountDownLatch continueDecided = new CountDownLatch(1);
        CountDownLatch headSent = new CountDownLatch(1);
        CountDownLatch headWritten = new CountDownLatch(1);
        // A blocking handler, on its own (virtual) thread: it demands, and a second thread commits the head while the
        // demanding thread stands between deciding to write the 100 and writing it.
        Http1Connection connection =
                connect(pool, AsyncHandler.of(InvocationType.BLOCKING, (request, response, callback) -> {
                    Thread.ofPlatform().name("committer").start(() -> {
                        await(continueDecided);
                        response.write(
                                false,
                                ascii("partial"),
                                Callback.from(InvocationType.NON_BLOCKING, headWritten::countDown, x -> {}));
                        headSent.countDown();
                    });
                    request.demand(
                            () -> readToEnd(request, () -> response.write(true, ByteBuffer.allocate(0), callback)));
                }));
        endPoint.beforeWrite(bytes -> {
            if (bytes.startsWith("HTTP/1.1 100")) {
                continueDecided.countDown();
                await(headSent);
            }
        });
        endPoint.arrive(UPLOAD);

        connection.onFillable();

        await(headWritten);
        assertOneHundredThenTheHead(endPoint.writtenAscii());
        sendBodyAndAwaitTheEnd();
        assertReusableThenLeave();
    }

    @Test
    void theContinueOfAPipelinedRequestFollowsTheResponsesBeforeIt(ByteBufferPool pool) throws Exception {
        Http1Connection connection = connect(pool, AsyncHandler.nonBlocking((request, response, callback) -> {
            if (request.path().equals("/first")) {
                response.write(true, ascii("first"), callback); // waits in the output buffer for the next
                return;
            }
            request.demand(() -> readToEnd(request, () -> response.write(true, ascii("second"), callback)));
        }));
        endPoint.arrive("GET /first HTTP/1.1\r\nHost: localhost\r\n\r\n" + UPLOAD);

        connection.onFillable();

        String written = endPoint.awaitWritten(CONTINUE);
        assertNull(endPoint.overlap, "two writes at once");
        assertTrue(written.startsWith("HTTP/1.1 200 OK\r\n"), () -> "the first response, then the 100: " + written);
        assertTrue(written.endsWith("first" + CONTINUE), () -> "the first response, then the 100: " + written);
        endPoint.arrive("hello");
        assertTrue(endPoint.wakeFill(), "the 100's completion asked for the body");
        assertTrue(endPoint.awaitWritten("second").endsWith("second"));
        assertReusableThenLeave();
    }

    @Test
    void aHeadCommittedBeforeTheDemandMeansNo100Ever(ByteBufferPool pool) throws Exception {
        Http1Connection connection = connect(pool, AsyncHandler.nonBlocking((request, response, callback) -> {
            response.write(false, ascii("partial"), Callback.NOOP);
            request.demand(() -> readToEnd(request, () -> response.write(true, ByteBuffer.allocate(0), callback)));
        }));
        endPoint.arrive(UPLOAD);

        connection.onFillable();

        String written = endPoint.awaitWritten("partial");
        assertFalse(written.contains("100 Continue"), written);
        assertTrue(written.startsWith("HTTP/1.1 200 OK\r\n"), written);
        assertTrue(written.contains("Connection: close"), () -> "the body may come, unread: " + written);
        // The client sends its body anyway (it may stop waiting for the 100): read, and the connection closes.
        endPoint.arrive("hello");
        assertTrue(endPoint.wakeFill());
        endPoint.awaitWritten("0\r\n\r\n");
        assertFalse(endPoint.isOpen(), "the connection closed after the response");
    }

    @Test
    void aResponseCompletedAfterThe100WithoutReadingTheBodyDiscardsIt(ByteBufferPool pool) throws Exception {
        Http1Connection connection = connect(pool, AsyncHandler.nonBlocking((request, response, callback) -> {
            request.demand(() -> {});
            response.write(true, ascii("rejected"), callback);
        }));
        endPoint.arrive(UPLOAD);

        connection.onFillable();

        String written = endPoint.awaitWritten("rejected");
        assertTrue(written.startsWith(CONTINUE + "HTTP/1.1 200 OK\r\n"), written);
        assertFalse(written.contains("Connection: close"), written);
        endPoint.arrive("hello" + "GET /next HTTP/1.1\r\nHost: localhost\r\n\r\n");
        assertTrue(endPoint.wakeFill());
        assertTrue(endPoint.awaitWritten("rejected").endsWith("rejected"));
        assertNull(endPoint.overlap);
        assertReusableThenLeave();
    }

    @Test
    void aHandlerThatDemandedThenReadTheBodyWithoutWaitingLeavesTheConnectionUsable(ByteBufferPool pool)
            throws Exception {
        // The handler asks for content (a fill interest is registered), the body arrives, and it reads it all with
        // read() without waiting for the wake-up, then answers: the connection's next wait for a request must reuse
        // the interest still registered, not register a second one (a ReadPendingException closed the connection).
        Http1Connection connection = connect(pool, AsyncHandler.nonBlocking((request, response, callback) -> {
            request.demand(() -> {});
            endPoint.arrive("hello");
            StringBuilder body = new StringBuilder();
            for (Content.Chunk chunk; (chunk = request.read()) != null; ) {
                body.append(StandardCharsets.US_ASCII.decode(chunk.byteBuffer()));
                chunk.release();
                if (chunk.isLast()) {
                    break;
                }
            }
            response.write(true, ascii("read [" + body + "] for " + request.path()), callback);
        }));
        endPoint.arrive("POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\n");

        connection.onFillable();

        assertTrue(endPoint.awaitWritten("read [hello] for /upload").endsWith("read [hello] for /upload"));
        assertTrue(endPoint.isOpen(), "the connection stays open");
        endPoint.arrive("GET /next HTTP/1.1\r\nHost: localhost\r\n\r\n");
        assertTrue(endPoint.wakeFill());
        assertTrue(endPoint.awaitWritten("for /next").endsWith("read [] for /next"));
        assertNull(endPoint.overlap);
        assertReusableThenLeave();
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("timed out waiting");
            }
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new AssertionError(x);
        }
    }

    private static void close(FileChannel channel) {
        try {
            channel.close();
        } catch (java.io.IOException x) {
            throw new java.io.UncheckedIOException(x);
        }
    }
}
