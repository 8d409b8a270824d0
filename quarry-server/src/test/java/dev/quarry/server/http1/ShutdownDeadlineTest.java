package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.Handler;
import dev.quarry.server.test.LogCapture;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.Transport;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.LogRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code Server.stop()} keeps its shutdown timeout overall: a handler that never returns (it even ignores interrupts)
 * is cut off at the deadline, and the thread pool does not add a stop timeout of its own on top (an attack run saw the
 * process exit 11.8 s after the signal against a 10 s shutdown timeout). The log says how many requests were cut.
 */
class ShutdownDeadlineTest extends ServerTestBase {
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(1);
    /** What a loaded 2-core machine may add to the deadline: closing sockets, stopping selectors and the timer. */
    private static final Duration MARGIN = Duration.ofMillis(1500);

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void stopReturnsWithinTheShutdownTimeoutWhenAHandlerNeverReturns(boolean virtualThreads) throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean released = new AtomicBoolean();
        Handler stuck = (request, response) -> {
            started.countDown();
            while (!released.get()) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                Thread.interrupted(); // a handler deaf to interrupts: only the test ends it
            }
        };
        try (LogCapture log = LogCapture.of("dev.quarry")) {
            start(
                    Transport.TCP,
                    builder -> builder.handler(stuck)
                            .virtualThreads(virtualThreads)
                            .shutdownTimeout(SHUTDOWN_TIMEOUT));
            RawClient client = connect();
            client.send("GET /stuck HTTP/1.1\r\nHost: test\r\n\r\n");
            assertTrue(started.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the handler started");

            long begin = System.nanoTime();
            try {
                server.stop();
            } finally {
                released.set(true);
            }
            Duration took = Duration.ofNanos(System.nanoTime() - begin);

            assertTrue(
                    took.compareTo(SHUTDOWN_TIMEOUT.plus(MARGIN)) < 0,
                    "stop took " + took + " against a shutdown timeout of " + SHUTDOWN_TIMEOUT + "\n" + log.describe());
            assertTrue(took.compareTo(SHUTDOWN_TIMEOUT.minusMillis(100)) >= 0, "the request had its time: " + took);
            java.util.List<LogRecord> cut = log.matching(record -> record.getMessage() != null
                    && record.getMessage()
                            .startsWith("1 request(s) still in their handlers when their connections "
                                    + "were cut at the 1000 ms deadline"));
            assertEquals(1, cut.size(), log::describe);
            assertTrue(
                    log.describe().contains("1 connection(s) and 1 request(s) in handlers cut at the deadline"),
                    log::describe);
        }
    }
}
