package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quarry.core.Callback;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Handler;
import dev.quarry.server.Handlers;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.ServerTestBase;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A recycled HTTP/1.1 exchange keeps the task object of its blocking dispatches for the next one: every dispatch still
 * runs its own handler with its own request, one request after another, and when one exchange dispatches two blocking
 * handlers at once.
 */
class DispatchRecyclingTest extends ServerTestBase {

    @Test
    void eachRequestOnAConnectionRunsItsOwnBlockingHandler() throws Exception {
        start(builder -> builder.route("GET /a/{n}", (request, response) -> response.send("a " + request.path()))
                .route("GET /b/{n}", (request, response) -> response.send("b " + request.path())));
        RawClient client = connect();
        for (int i = 0; i < 10; i++) {
            String route = i % 3 == 0 ? "b" : "a";
            client.send("GET /" + route + "/" + i + " HTTP/1.1\r\nHost: test\r\n\r\n");
            assertEquals(route + " /" + route + "/" + i, client.readResponse().text());
        }
    }

    @Test
    void twoBlockingHandlersDispatchedAtOnceRunWithTheirOwnArguments() throws Exception {
        ConcurrentHashMap<String, String> ran = new ConcurrentHashMap<>();
        AtomicReference<CountDownLatch> secondRan = new AtomicReference<>();
        Handler first = (request, response) -> {
            ran.put("first", request.path());
            // Still running (holding its dispatch) while the second one is dispatched and runs.
            if (!secondRan.get().await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("the second handler never ran");
            }
        };
        Handler second = (request, response) -> {
            ran.put("second", request.path());
            secondRan.get().countDown();
        };
        start(builder -> builder.handler(AsyncHandler.nonBlocking((request, response, callback) -> {
            AtomicInteger pending = new AtomicInteger(2);
            Callback both = Callback.from(
                    () -> {
                        if (pending.decrementAndGet() == 0) {
                            String text = "first " + ran.get("first") + ", second " + ran.get("second");
                            response.write(true, ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), callback);
                        }
                    },
                    callback::failed);
            Handlers.invoke(Handlers.blocking(first), request, response, both);
            Handlers.invoke(Handlers.blocking(second), request, response, both);
        })));
        RawClient client = connect();
        for (int i = 0; i < 3; i++) {
            ran.clear();
            secondRan.set(new CountDownLatch(1));
            client.send("GET /twice/" + i + " HTTP/1.1\r\nHost: test\r\n\r\n");
            assertEquals(
                    "first /twice/" + i + ", second /twice/" + i,
                    client.readResponse().text());
        }
    }
}
