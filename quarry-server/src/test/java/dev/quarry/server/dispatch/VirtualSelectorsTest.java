package dev.quarry.server.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.ServerBuilder;
import dev.quarry.server.test.HttpTestClient;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.Transport;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Where the selectors run: on virtual threads when the server's blocking handlers run on virtual threads (by default,
 * or when asked), on the platform pool otherwise. A non-blocking handler runs in place on the thread that read its
 * request, the selector for clear-text connections, so it can say which kind of thread that is. Blocking handlers keep
 * working over many requests on one connection, and never run with the selector's "must not block" mark; the blocking
 * detector every test runs under checks that the virtual selector itself blocks nowhere but in its select.
 */
class VirtualSelectorsTest extends ServerTestBase {
    private static final int REQUESTS = 50;

    /** Answers the kind and name of the thread it runs on; non-blocking, so it runs on the selector thread. */
    private static AsyncHandler where() {
        return AsyncHandler.nonBlocking((request, response, callback) -> {
            Thread thread = Thread.currentThread();
            String text = (thread.isVirtual() ? "virtual " : "platform ") + thread.getName();
            response.write(true, ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), callback);
        });
    }

    /**
     * Starts the server, serves {@value #REQUESTS} blocking requests on one connection if {@code blocking}, and asks
     * where the selector runs.
     */
    private String selectorThread(Transport transport, boolean blocking, Consumer<ServerBuilder> config)
            throws Exception {
        start(transport, builder -> {
            builder.name("vs").selectors(1).route("GET /where", where());
            if (blocking) {
                builder.route(
                        "GET /blocking",
                        (request, response) ->
                                response.send("blocking, marked=" + Invocable.isNonBlockingInvocation()));
            }
            config.accept(builder);
        });
        try (HttpTestClient client = client()) {
            for (int i = 0; blocking && i < REQUESTS; i++) {
                HttpTestClient.Reply reply = client.get("/blocking");
                assertEquals(200, reply.status(), reply::toString);
                assertEquals("blocking, marked=false", reply.text());
            }
        }
        // Asked on a connection of its own: over HTTP/2 a handler's virtual thread that just finished may go on
        // reading its connection's next frames, and then runs the next non-blocking handler itself.
        try (HttpTestClient client = client()) {
            String where = client.get("/where").text();
            // The status page says which it is.
            assertEquals(
                    where.startsWith("virtual") ? "on" : "off",
                    server.status().section("server").get("virtual selectors"),
                    where);
            return where;
        }
    }

    private static void assertPlatform(String thread) {
        assertEquals("platform vs-", thread.substring(0, Math.min(thread.length(), "platform vs-".length())), thread);
    }

    @ParameterizedTest
    @EnumSource(
            value = Transport.class,
            names = {"TCP", "UNIX", "H2C"})
    void blockingHandlersOnVirtualThreadsRunTheSelectorsOnVirtualThreads(Transport transport) throws Exception {
        assertEquals("virtual vs-selector", selectorThread(transport, true, builder -> {}));
    }

    @ParameterizedTest
    @EnumSource(
            value = Transport.class,
            names = {"TCP", "UNIX", "H2C"})
    void asynchronousHandlersKeepPlatformSelectors(Transport transport) throws Exception {
        assertPlatform(selectorThread(transport, false, builder -> {}));
    }

    @ParameterizedTest
    @EnumSource(
            value = Transport.class,
            names = {"TCP", "H2C"})
    void blockingHandlersOnPlatformThreadsKeepPlatformSelectors(Transport transport) throws Exception {
        assertPlatform(selectorThread(transport, true, builder -> builder.virtualThreads(false)));
    }

    @ParameterizedTest
    @EnumSource(
            value = Transport.class,
            names = {"TCP", "H2C"})
    void blockingHandlersKeepPlatformSelectorsWhenAsked(Transport transport) throws Exception {
        assertPlatform(selectorThread(transport, true, builder -> builder.virtualSelectors(false)));
    }

    @ParameterizedTest
    @EnumSource(
            value = Transport.class,
            names = {"TCP", "H2C"})
    void asynchronousHandlersGetVirtualSelectorsWhenAsked(Transport transport) throws Exception {
        assertEquals(
                "virtual vs-selector", selectorThread(transport, false, builder -> builder.virtualSelectors(true)));
    }

    @ParameterizedTest
    @EnumSource(
            value = Transport.class,
            names = {"TCP", "H2C"})
    void aBlockingCompletionAVirtualSelectorProducesRunsOnAPlatformThread(Transport transport) throws Exception {
        // A large write completes later, from the selector; its callback may block, so the selector hands it off. It
        // must go to the platform pool as with platform selectors: on a virtual thread of its own it posed as a
        // selector, and a blocking handler reached from there ran in place, outside maxConcurrentRequests.
        AtomicReference<String> completedOn = new AtomicReference<>();
        CountDownLatch completed = new CountDownLatch(1);
        byte[] big = new byte[8 * 1024 * 1024];
        start(
                transport,
                builder -> builder.name("vs")
                        .selectors(1)
                        .route("GET /blocking", (request, response) -> response.send("blocking"))
                        .route(
                                "GET /big",
                                AsyncHandler.nonBlocking((request, response, callback) -> response.write(
                                        true,
                                        ByteBuffer.wrap(big),
                                        Callback.from(
                                                InvocationType.BLOCKING,
                                                () -> {
                                                    Thread thread = Thread.currentThread();
                                                    completedOn.set((thread.isVirtual() ? "virtual " : "platform ")
                                                            + thread.getName());
                                                    completed.countDown();
                                                    callback.succeeded();
                                                },
                                                callback::failed)))));
        try (HttpTestClient client = client()) {
            assertEquals("blocking", client.get("/blocking").text());
            HttpTestClient.Reply reply = client.get("/big");
            assertEquals(big.length, reply.body().length, reply::toString);
        }
        assertTrue(completed.await(10, TimeUnit.SECONDS), "the write's callback ran");
        String thread = completedOn.get();
        assertTrue(thread != null && thread.startsWith("platform ") && !thread.contains("selector"), thread);
    }
}
