package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.Handler;
import dev.quarry.server.ServerBuilder;
import dev.quarry.server.test.Echo;
import dev.quarry.server.test.LogCapture;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.Transport;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The minimum request body rate over HTTP/1.1: a body that trickles in (each byte keeping the idle timeout away) is
 * answered 408 and the connection closed, counted as the client's error; a body at an honest pace is served; and the
 * time a handler takes before it reads is not held against the client.
 */
class MinRequestBodyRateTest extends ServerTestBase {
    /** Bytes per second of waiting; the tests trickle at a tenth of it, or send at ten times it. */
    private static final long RATE = 1000;

    private void startWith(Object handler, Consumer<ServerBuilder> more) throws IOException {
        start(Transport.TCP, builder -> {
            if (handler instanceof Handler blocking) {
                builder.handler(blocking);
            } else {
                builder.handler((dev.quarry.server.AsyncHandler) handler);
            }
            builder.minRequestBodyRate(RATE).idleTimeout(Duration.ofSeconds(30));
            more.accept(builder);
        });
    }

    private static Object echo(String shape) {
        return shape.equals("blocking") ? Echo.blocking() : Echo.async();
    }

    /** Sends {@code size} bytes of body, {@code step} bytes every 100 ms, until done or stopped. */
    private static CompletableFuture<Void> paced(RawClient client, int size, int step, AtomicBoolean stop) {
        return CompletableFuture.runAsync(() -> {
            try {
                for (int sent = 0; sent < size && !stop.get(); sent += step) {
                    client.send("x".repeat(Math.min(step, size - sent)));
                    TimeUnit.MILLISECONDS.sleep(100); // the client's pace, not a wait for the server
                }
            } catch (IOException | InterruptedException closed) {
                // the server closed the connection: what the slow case expects
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"blocking", "async"})
    void aBodySlowerThanTheMinimumRateIsAnswered408AndTheConnectionClosed(String shape) throws Exception {
        try (LogCapture log = LogCapture.of("dev.quarry")) {
            startWith(echo(shape), builder -> {});
            RawClient client = connect().timeout(WAIT);
            client.send("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 100000\r\n\r\n");
            AtomicBoolean stop = new AtomicBoolean();
            CompletableFuture<Void> trickle = paced(client, 100_000, 10, stop); // 100 B/s, a tenth of the minimum
            try {
                RawResponse response = client.readResponse();

                assertEquals(408, response.status(), response::toString);
                assertTrue(response.connectionClose(), response::toString);
                assertTrue(response.text().contains("slower than 1000 bytes/s"), response::toString);
                client.awaitClosed();
            } finally {
                stop.set(true);
                trickle.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            long[] byClass = server.statistics().responsesByClass();
            assertEquals(1, byClass[3], () -> "one 4xx: " + Arrays.toString(byClass));
            assertEquals(0, byClass[4], () -> "no 5xx: " + Arrays.toString(byClass));
            assertEquals(List.of(), log.warnings(), log::describe);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"blocking", "async"})
    void aBodyFasterThanTheMinimumRateIsServed(String shape) throws Exception {
        startWith(echo(shape), builder -> {});
        RawClient client = connect().timeout(WAIT);
        client.send("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 20000\r\n\r\n");
        // 10,000 B/s for two seconds, ten times the minimum.
        paced(client, 20_000, 1000, new AtomicBoolean()).get(WAIT.toSeconds(), TimeUnit.SECONDS);

        RawResponse response = client.readResponse();

        assertEquals(200, response.status(), response::toString);
        assertFalse(response.connectionClose(), response::toString);
        assertTrue(response.text().contains("bodyLength: 20000"), response::toString);
    }

    @Test
    void aHandlerSlowToReadIsNotTheClientsFault() throws Exception {
        CompletableFuture<Void> firstRead = new CompletableFuture<>();
        Handler slowReader = (request, response) -> {
            InputStream in = request.inputStream();
            byte[] first = in.readNBytes(300);
            firstRead.complete(null);
            // The handler's own work between two reads, longer than the rate allows the whole body to take; the rest
            // of the body waits in the socket meanwhile, for us, not for the client.
            TimeUnit.MILLISECONDS.sleep(2500);
            byte[] rest = in.readAllBytes();
            response.send("read " + (first.length + rest.length));
        };
        startWith(slowReader, builder -> {});
        RawClient client = connect().timeout(WAIT);
        client.send("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 600\r\n\r\n");
        await("the handler waiting for the body", () -> server.statistics().http1Requests() == 1);
        client.send("x".repeat(300));
        firstRead.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        client.send("x".repeat(300));

        RawResponse response = client.readResponse();

        assertEquals(200, response.status(), response::toString);
        assertEquals("read 600", response.text());
    }
}
