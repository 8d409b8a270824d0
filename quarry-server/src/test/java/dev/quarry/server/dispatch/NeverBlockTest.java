package dev.quarry.server.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import dev.quarry.io.EndPoint;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Filter;
import dev.quarry.server.Handler;
import dev.quarry.server.ResponseWrapper;
import dev.quarry.server.Router;
import dev.quarry.server.handlers.Throttle;
import dev.quarry.server.handlers.ThrottleHandler;
import dev.quarry.server.handlers.ThrottleLimits;
import dev.quarry.server.test.HttpTestClient;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.Setup;
import dev.quarry.server.test.Transport;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The holes an outside review found in the never-block rule, each closed: a blocking handler never runs on a thread
 * that must not block, however it is reached — resumed by a pipelined flush with virtual threads off, behind a wrapper
 * or a filter of the user's, declared by omission — and the timer's ticker never writes to sockets. Each test shows the
 * consequence a user saw (another client not served, slow requests served one after another) and, through the blocking
 * detector every test runs under, the cause.
 */
class NeverBlockTest extends ServerTestBase {
    private static final int SLOW = 4;

    private final Set<String> violations = ConcurrentHashMap.newKeySet();

    /** A blocking handler that waits until released, and says where it ran; it records a marked thread. */
    private Handler slow(CountDownLatch started, CountDownLatch release) {
        return (request, response) -> {
            if (Invocable.isNonBlockingInvocation()) {
                violations.add("blocking handler on a thread that must not block: " + Thread.currentThread());
            }
            started.countDown();
            boolean released = release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
            response.send(released ? "released" : "never released");
        };
    }

    private static AsyncHandler fast() {
        return AsyncHandler.nonBlocking((request, response, callback) ->
                response.write(true, ByteBuffer.wrap("fast".getBytes(StandardCharsets.US_ASCII)), callback));
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aPipelinedBlockingRequestResumedByAFlushNeverRunsOnTheSelector(Transport transport) throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        byte[] small = new byte[2048];
        start(
                transport,
                builder -> builder.virtualThreads(false)
                        .selectors(1)
                        .route(
                                "GET /small",
                                AsyncHandler.nonBlocking((request, response, callback) ->
                                        response.write(true, ByteBuffer.wrap(small), callback)))
                        .route("GET /block", slow(started, release)));
        // Enough small responses that their aggregated flush waits for the client: the rest of the pipeline, the
        // blocking request included, is then processed when the selector completes that flush.
        int count = 4000;
        StringBuilder pipeline = new StringBuilder();
        for (int i = 0; i < count; i++) {
            pipeline.append("GET /small HTTP/1.1\r\nHost: test\r\n\r\n");
        }
        pipeline.append("GET /block HTTP/1.1\r\nHost: test\r\n\r\n");
        RawClient pipelined = connect();
        pipelined.send(pipeline.toString());
        await(
                "a flush waiting for the client",
                () -> server.connectors().get(0).endPoints().stream()
                        .map(EndPoint::toString)
                        .anyMatch(endPoint -> endPoint.contains(",W")));
        ExecutorService reader = Executors.newSingleThreadExecutor();
        try {
            Future<RawResponse> last = reader.submit(() -> {
                for (int i = 0; i < count; i++) {
                    assertEquals(small.length, pipelined.readResponse().body().length);
                }
                return pipelined.readResponse();
            });
            assertTrue(started.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the blocking request started");

            // While it blocks, the selector serves another connection.
            try (RawClient other =
                    RawClient.connect(transport, transport.address(server)).timeout(Duration.ofSeconds(5))) {
                RawResponse response =
                        other.send("GET /small HTTP/1.1\r\nHost: test\r\n\r\n").readResponse();
                assertEquals(200, response.status());
            }
            release.countDown();
            assertEquals(
                    "released", last.get(WAIT.toSeconds(), TimeUnit.SECONDS).text());
        } finally {
            release.countDown();
            reader.shutdownNow();
        }
        assertEquals(Set.of(), violations);
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Setup#all")
    void aRouterWrappedInAHandlerOfTheUsersDispatchesItsBlockingRoutes(Setup setup) throws Exception {
        CountDownLatch started = new CountDownLatch(SLOW);
        CountDownLatch release = new CountDownLatch(1);
        Router router = new Router().route("GET /slow", slow(started, release)).route("GET /fast", fast());
        AtomicInteger logged = new AtomicInteger();
        // The natural way to add an access log or authentication before filters: a non-blocking wrapper.
        AsyncHandler logging = AsyncHandler.nonBlocking((request, response, callback) -> {
            logged.incrementAndGet();
            router.handle(request, response, callback);
        });
        start(setup, builder -> builder.handler(logging));

        assertSlowRequestsRunConcurrentlyBesideAFastOne(started, release);
        assertEquals(SLOW + 1, logged.get());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Setup#all")
    void aNonBlockingFilterAroundBlockingRoutesNeverMovesThemOntoASelector(Setup setup) throws Exception {
        CountDownLatch started = new CountDownLatch(SLOW);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger filtered = new AtomicInteger();
        start(
                setup,
                builder -> builder.filter(Filter.nonBlocking((request, response, callback, next) -> {
                            filtered.incrementAndGet();
                            response.headers().put("X-Filtered", "yes");
                            next.handle(request, response, callback);
                        }))
                        .route("GET /slow", slow(started, release))
                        .route("GET /fast", fast()));

        assertSlowRequestsRunConcurrentlyBesideAFastOne(started, release);
        assertEquals(SLOW + 1, filtered.get());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Setup#all")
    void anAsyncHandlerThatDeclaresNothingIsTreatedAsBlocking(Setup setup) throws Exception {
        CountDownLatch started = new CountDownLatch(SLOW);
        CountDownLatch release = new CountDownLatch(1);
        Handler waiting = slow(started, release);
        // An asynchronous handler that blocks without saying so: the default must keep it off the selectors.
        AsyncHandler undeclared = (request, response, callback) -> {
            if (request.path().equals("/fast")) {
                fast().handle(request, response, callback);
                return;
            }
            waiting.handle(request, response);
            callback.succeeded();
        };
        start(setup, builder -> builder.handler(undeclared));

        assertSlowRequestsRunConcurrentlyBesideAFastOne(started, release);
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Setup#all")
    void throttledWritesResumeOffTheTimersTicker(Setup setup) throws Exception {
        Throttle throttle = track(new ThrottleStopper(Throttle.of(
                        ThrottleLimits.builder().requestRate(256 * 1024).build())))
                .throttle();
        Set<String> writers = ConcurrentHashMap.newKeySet();
        byte[] body = new byte[96 * 1024];
        AsyncHandler app = AsyncHandler.nonBlocking(
                (request, response, callback) -> response.write(true, ByteBuffer.wrap(body), callback));
        // Outside the throttle, a wrapper records the threads that write each chunk the throttle lets through.
        Filter recording = Filter.nonBlocking((request, response, callback, next) -> next.handle(
                request,
                new ResponseWrapper(response) {
                    @Override
                    public void write(boolean last, ByteBuffer content, Callback cb) {
                        writers.add(Thread.currentThread().getName());
                        super.write(last, content, cb);
                    }
                },
                callback));
        start(setup, builder -> builder.filter(recording).handler(new ThrottleHandler(throttle, app)));

        HttpTestClient.Reply reply = client().get("/throttled");

        assertEquals(body.length, reply.body().length);
        assertTrue(writers.size() > 1, "the throttle resumed writes from the timer: " + writers);
        assertFalse(writers.contains("quarry-throttle-timer"), "a write on the ticker: " + writers);
    }

    private void assertSlowRequestsRunConcurrentlyBesideAFastOne(CountDownLatch started, CountDownLatch release)
            throws Exception {
        ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
        try {
            List<Future<HttpTestClient.Reply>> slow = new ArrayList<>();
            for (int i = 0; i < SLOW; i++) {
                HttpTestClient client = client();
                slow.add(clients.submit(() -> client.get("/slow")));
            }
            // All of them are in their handlers at once: none waits for another to finish.
            assertTrue(
                    started.await(WAIT.toSeconds(), TimeUnit.SECONDS),
                    () -> (SLOW - started.getCount()) + " of " + SLOW + " slow requests started: they ran one after"
                            + " another. " + server.dump());
            HttpTestClient.Reply fast = client().get("/fast");
            assertEquals("fast", fast.text(), "a fast request is answered while the slow ones block");
            release.countDown();
            for (Future<HttpTestClient.Reply> reply : slow) {
                assertEquals(
                        "released",
                        reply.get(WAIT.toSeconds(), TimeUnit.SECONDS).text());
            }
        } finally {
            release.countDown();
            clients.shutdownNow();
        }
        assertEquals(Set.of(), violations);
    }

    /** Stops a throttle after the test. */
    private record ThrottleStopper(Throttle throttle) implements AutoCloseable {
        @Override
        public void close() {
            throttle.stop();
        }
    }
}
