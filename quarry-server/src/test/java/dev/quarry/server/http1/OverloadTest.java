package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.strategy.StrategyStatistics;
import dev.quarry.core.thread.BoundedVirtualThreadExecutor;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bounded admission of blocking handlers: with {@code maxConcurrentRequests(2)} and {@code maxQueuedRequests(1)}, a
 * fourth blocking request while three are admitted is answered 503 with {@code Retry-After} at once, on virtual
 * threads and on platform threads alike; once the handlers are released the server serves normally again.
 */
class OverloadTest extends ServerTestBase {

    private static final String PARK = "GET /park HTTP/1.1\r\nHost: test\r\n\r\n";

    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger entered = new AtomicInteger();

    /**
     * @param virtualThreads whether blocking handlers run on virtual threads
     * @param reservedThreads with platform threads: 0 makes the strategy dispatch every blocking handler to the
     *     pool; with reserved threads it mostly runs them in place after handing production over, and the bound must
     *     count those too
     */
    @ParameterizedTest(name = "virtualThreads={0}, reservedThreads={1}")
    @CsvSource({"true, -1", "false, 0", "false, 4"})
    void theRequestBeyondTheBoundIsAnswered503WithRetryAfter(boolean virtualThreads, int reservedThreads)
            throws Exception {
        start(builder -> builder.virtualThreads(virtualThreads)
                .reservedThreads(reservedThreads)
                .maxConcurrentRequests(2)
                .maxQueuedRequests(1)
                .handler((request, response) -> {
                    entered.incrementAndGet();
                    if (request.path().equals("/park") && !release.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                        throw new IllegalStateException("never released");
                    }
                    response.send("done " + request.path());
                }));
        List<RawClient> admitted = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            admitted.add(connect().send(PARK));
        }
        if (virtualThreads) {
            BoundedVirtualThreadExecutor executor = server.virtualThreads().orElseThrow();
            await(
                    "two handlers running and one queued",
                    () -> executor.statistics().running() == 2
                            && executor.statistics().queued() == 1
                            && entered.get() == 2,
                    () -> executor.statistics().toString());
        } else {
            // Platform threads: the three are running or queued in the pool; with enough threads, all run.
            await(
                    "three handlers running",
                    () -> entered.get() == 3,
                    () -> server.threadPool().toString());
        }

        RawClient rejected = connect();
        RawResponse overloaded = rejected.send(PARK).readResponse();

        assertEquals(503, overloaded.status(), overloaded::toString);
        assertEquals("1", overloaded.header("Retry-After").orElseThrow(), overloaded::toString);
        assertTrue(overloaded.text().contains("too many requests"), overloaded::toString);
        assertEquals(1, server.rejectedRequests(), () -> "strategy: " + strategy());
        assertEquals(virtualThreads ? 2 : 3, entered.get(), "the rejected handler never ran");

        release.countDown();
        for (RawClient client : admitted) {
            RawResponse response = client.readResponse();
            assertEquals(200, response.status(), response::toString);
            assertEquals("done /park", response.text());
        }
        // A parked handler's slot is freed just after its response is written, so the client can read all three
        // responses a moment before the slots are free: a 503 then is right, and is counted, so retry until served.
        int retries = 0;
        long deadline = System.nanoTime() + WAIT.toNanos();
        RawResponse after;
        while ((after = rejected.send("GET /after HTTP/1.1\r\nHost: test\r\n\r\n")
                                        .readResponse())
                                .status()
                        == 503
                && System.nanoTime() < deadline) {
            retries++;
            TimeUnit.MILLISECONDS.sleep(1);
        }
        assertEquals(200, after.status(), "the rejected client's connection is served once the load is gone");
        assertEquals("done /after", after.text());
        assertEquals(1 + retries, server.rejectedRequests());
        if (!virtualThreads && reservedThreads == 0) {
            assertEquals(0, strategy().executeProduceConsume(), "no reserved thread, so never in place");
        }
    }

    private StrategyStatistics strategy() {
        return server.connectors().get(0).selectorManager().strategyStatistics();
    }
}
