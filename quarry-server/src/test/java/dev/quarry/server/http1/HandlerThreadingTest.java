package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.AsyncHandler;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.ServerTestBase;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Where handlers run: blocking handlers on virtual threads by default and on the platform pool when virtual threads
 * are off; non-blocking handlers in place, on the pool thread that parsed the request.
 */
class HandlerThreadingTest extends ServerTestBase {

    private static String describe(Thread thread) {
        return (thread.isVirtual() ? "virtual " : "platform ") + thread.getName();
    }

    private void startServer(boolean virtualThreads) throws Exception {
        start(builder -> builder.virtualThreads(virtualThreads)
                .route("GET /blocking", (request, response) -> response.send(describe(Thread.currentThread())))
                .route(
                        "GET /async",
                        AsyncHandler.nonBlocking((request, response, callback) -> response.write(
                                true,
                                ByteBuffer.wrap(describe(Thread.currentThread()).getBytes(StandardCharsets.UTF_8)),
                                callback))));
    }

    private String get(String path) throws Exception {
        RawClient client = connect();
        return client.send("GET " + path + " HTTP/1.1\r\nHost: test\r\n\r\n")
                .readResponse()
                .text();
    }

    /**
     * @return whether a thread is one that parses requests: pooled, or the virtual selector of a server whose blocking
     *     handlers run on virtual threads, or over TLS one of the TLS threads
     */
    private boolean parser(String thread) {
        return thread.startsWith("platform test-")
                || thread.equals("virtual test-selector")
                || (transport.isTls() && thread.startsWith("virtual test-tls-"));
    }

    @Test
    void blockingHandlersRunOnVirtualThreadsByDefault() throws Exception {
        startServer(true);

        String blocking = get("/blocking");
        String async = get("/async");

        assertTrue(blocking.startsWith("virtual test-handler"), blocking);
        assertTrue(parser(async), "in place, on the thread that parsed: " + async);
        await(
                "the one blocking handler counted by the virtual-thread executor",
                () -> server.virtualThreads().orElseThrow().statistics().completed() == 1);
    }

    @Test
    void blockingHandlersRunOnThePlatformPoolWhenVirtualThreadsAreOff() throws Exception {
        startServer(false);

        String blocking = get("/blocking");
        String async = get("/async");

        assertTrue(blocking.startsWith("platform test-"), blocking);
        assertTrue(parser(async), async);
        assertTrue(server.virtualThreads().isEmpty());
    }
}
