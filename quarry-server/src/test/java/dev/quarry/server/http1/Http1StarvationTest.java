package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.strategy.StrategyStatistics;
import dev.quarry.core.thread.ThreadPoolStatistics;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The thread starvation scenario of "Thread Starvation with Eat What You Kill", over real sockets: a pool of 4 platform
 * threads, virtual threads off, 50 connections whose blocking handlers wait for request bodies that arrive late. A
 * health request on a fresh connection must still be answered, and every exchange must finish.
 *
 * <p>Why it works: with 4 threads the pool has no reserved thread ({@code min(cores, 4 / 8) = 0}), so the selector's
 * producing thread can never hand production over. A connection's read task is {@code EITHER} when the handler tree
 * mixes blocking and non-blocking routes ({@code ServerContext.readInvocationType}), so the adaptive strategy runs it
 * in place in non-blocking mode (produce-invoke-consume): it parses the request and, being in non-blocking mode,
 * dispatches the blocking upload handler to the pool instead of running it. Three pooled threads end up blocked in
 * those handlers and 47 handlers wait in the pool's queue, but the producing thread is never lent to application
 * code: it keeps selecting. The health request's read task is then consumed the same way, and its non-blocking
 * handler answers in place. When the bodies come, each blocked handler is woken by a read task that is
 * {@code NON_BLOCKING} (a connection waiting for content only signals its reader), run in place by the same producer.
 */
class Http1StarvationTest extends ServerTestBase {
    private static final int MAX_THREADS = 4;
    private static final int CONNECTIONS = 50;
    private static final String BODY = "late body!";

    private final AtomicInteger uploadsStarted = new AtomicInteger();

    @Test
    void aHealthRequestIsAnsweredWhileEveryPooledThreadWaitsForALateBody() throws Exception {
        start(builder -> builder.virtualThreads(false)
                .maxThreads(MAX_THREADS)
                .selectors(1)
                .route("POST /upload", (request, response) -> {
                    uploadsStarted.incrementAndGet();
                    byte[] body = request.inputStream().readAllBytes();
                    response.send("got " + new String(body, StandardCharsets.US_ASCII));
                })
                .route(
                        "GET /health",
                        AsyncHandler.nonBlocking((request, response, callback) -> response.write(
                                true, ByteBuffer.wrap("healthy".getBytes(StandardCharsets.US_ASCII)), callback))));
        assertEquals(0, server.threadPool().statistics().reserved());
        assertEquals(0, server.threadPool().getReservedThreadsCapacity(), "4 threads leave none to reserve");

        List<RawClient> uploads = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            uploads.add(connect()
                    .send("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: " + BODY.length() + "\r\n\r\n"));
        }
        int handlerThreads = MAX_THREADS - 1; // one thread always produces
        await(
                "the pool saturated: every thread busy, the other uploads queued",
                () -> {
                    ThreadPoolStatistics pool = server.threadPool().statistics();
                    return pool.threads() == MAX_THREADS
                            && pool.busy() == MAX_THREADS
                            && pool.queueSize() == CONNECTIONS - handlerThreads
                            && uploadsStarted.get() == handlerThreads;
                },
                () -> server.threadPool().statistics() + "\nuploads started: " + uploadsStarted.get());
        StrategyStatistics before = strategy();

        RawResponse health =
                connect().send("GET /health HTTP/1.1\r\nHost: test\r\n\r\n").readResponse();

        assertEquals(200, health.status(), health::toString);
        assertEquals("healthy", health.text());
        StrategyStatistics after = strategy();
        ThreadPoolStatistics pool = server.threadPool().statistics();
        assertEquals(MAX_THREADS, pool.busy(), () -> "still saturated while the health request was served: " + pool);
        assertEquals(CONNECTIONS - handlerThreads, pool.queueSize(), pool::toString);
        assertEquals(handlerThreads, uploadsStarted.get(), "no upload handler could run meanwhile");
        if (!transport.isTls()) {
            // Over TLS the request may come with the client's last handshake flight, and then be read by the TLS
            // thread that completed the handshake (also in non-blocking mode), not by the selector's strategy.
            assertTrue(
                    after.produceInvokeConsume() > before.produceInvokeConsume(),
                    () -> "the health request was consumed in place in non-blocking mode: " + before + " -> " + after);
        }
        assertEquals(0, after.executeProduceConsume(), "production was never handed over: " + after);
        for (RawClient upload : uploads) {
            assertFalse(upload.isClosedByServer());
        }

        for (RawClient upload : uploads) {
            upload.send(BODY);
        }
        for (RawClient upload : uploads) {
            RawResponse response = upload.readResponse();
            assertEquals(200, response.status(), response::toString);
            assertEquals("got " + BODY, response.text());
        }
        assertEquals(CONNECTIONS, uploadsStarted.get());
        assertEquals(CONNECTIONS + 1, server.statistics().responsesByClass()[1]);
    }

    @Test
    void theHealthRequestIsAlsoAnsweredWhenReservedThreadsTookProductionOver() throws Exception {
        // With a reserved thread the first uploads are eaten in place (execute-produce-consume) by the thread that
        // produced them, until no thread is left to take production over; then the strategy falls back to running
        // read tasks in non-blocking mode, which dispatch the rest. The producer is never the last thread lent out.
        start(builder -> builder.virtualThreads(false)
                .maxThreads(MAX_THREADS)
                .reservedThreads(1)
                .selectors(1)
                .route("POST /upload", (request, response) -> {
                    uploadsStarted.incrementAndGet();
                    byte[] body = request.inputStream().readAllBytes();
                    response.send("got " + new String(body, StandardCharsets.US_ASCII));
                })
                .route(
                        "GET /health",
                        AsyncHandler.nonBlocking((request, response, callback) -> response.write(
                                true, ByteBuffer.wrap("healthy".getBytes(StandardCharsets.US_ASCII)), callback))));

        List<RawClient> uploads = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            uploads.add(connect()
                    .send("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: " + BODY.length() + "\r\n\r\n"));
        }
        await(
                "every upload started or queued, no thread idle",
                () -> {
                    ThreadPoolStatistics pool = server.threadPool().statistics();
                    return pool.threads() == MAX_THREADS
                            && pool.idle() == 0
                            && uploadsStarted.get() + pool.queueSize() == CONNECTIONS;
                },
                () -> server.threadPool().statistics() + "\nuploads started: " + uploadsStarted.get());
        RawResponse health =
                connect().send("GET /health HTTP/1.1\r\nHost: test\r\n\r\n").readResponse();

        assertEquals("healthy", health.text(), health::toString);
        // (A reserved thread may take production over so that the old producer answers in place; that thread then
        // goes on with a queued upload: the point here is only that the answer came.)
        for (RawClient upload : uploads) {
            upload.send(BODY);
        }
        for (RawClient upload : uploads) {
            assertEquals("got " + BODY, upload.readResponse().text());
        }
    }

    private StrategyStatistics strategy() {
        return server.connectors().get(0).selectorManager().strategyStatistics();
    }
}
