package dev.quarry.server.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quarry.core.buffer.LeakTrackingByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.server.Server;
import dev.quarry.server.ServerBuilder;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The base of server tests: starts a {@link Server} on a {@link Transport} with a leak-tracking buffer pool, hands out
 * raw clients and a JDK {@link HttpClient}, and after each test closes the clients, stops the server and (through
 * {@link LeakTrackingPoolExtension}, which runs after this class's {@code @AfterEach}) fails the test if a buffer
 * leaked.
 *
 * <p>A test that should run over every transport takes a {@code Transport} parameter
 * ({@code @ParameterizedTest @MethodSource("dev.quarry.server.test.Transport#http1")}) and passes it to {@link #start(Transport, Consumer)}.
 *
 * <p>Defaults differ from the production ones only where a test would otherwise wait: a 5 s shutdown timeout.
 */
@ExtendWith(LeakTrackingPoolExtension.class)
public abstract class ServerTestBase {
    /** How long tests wait for a condition before failing: generous, for a loaded 2-core machine. */
    protected static final Duration WAIT = Duration.ofSeconds(20);

    /** A directory owned by the test, for Unix-domain socket files and uploads. */
    @TempDir
    protected Path tempDir;

    /** The test's leak-tracking pool; the server's buffers come from it. */
    protected LeakTrackingByteBufferPool pool;

    /** The server of the test, once started. */
    protected Server server;

    /** The transport the server was started on. */
    protected Transport transport;

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @BeforeEach
    final void rememberPool(LeakTrackingByteBufferPool pool) {
        this.pool = pool;
    }

    /**
     * Starts the server over TCP (or the {@link #defaultTransport()}).
     *
     * @param config sets the handler and anything else the test needs
     * @return the started server
     */
    protected Server start(Consumer<ServerBuilder> config) throws IOException {
        return start(defaultTransport(), config);
    }

    /**
     * @return the transport of {@link #start(Consumer)}: TCP; a subclass that returns {@link Transport#TLS} runs the
     *     tests of its superclass over TLS
     */
    protected Transport defaultTransport() {
        return Transport.TCP;
    }

    /**
     * Starts the server.
     *
     * @param transport where to listen
     * @param config sets the handler and anything else the test needs (it may override the defaults set here)
     * @return the started server
     */
    protected Server start(Transport transport, Consumer<ServerBuilder> config) throws IOException {
        if (server != null) {
            throw new IllegalStateException("a test starts one server");
        }
        this.transport = transport;
        ServerBuilder builder = Server.builder().name("test").buffers(pool).shutdownTimeout(Duration.ofSeconds(5));
        transport.listen(builder, tempDir);
        config.accept(builder);
        server = builder.build().start();
        return server;
    }

    /**
     * Starts the server in one cell of the test matrix.
     *
     * @param setup the transport and where blocking handlers run
     * @param config sets the handler and anything else the test needs (it may override the defaults set here)
     * @return the started server
     */
    protected Server start(Setup setup, Consumer<ServerBuilder> config) throws IOException {
        return start(setup.transport(), builder -> {
            builder.virtualThreads(setup.virtualThreads());
            config.accept(builder);
        });
    }

    /**
     * @return a new connection to the server speaking the transport's protocol (HTTP/1.1 or HTTP/2), closed after the
     *     test
     */
    protected HttpTestClient client() throws IOException {
        return track(HttpTestClient.connect(transport, transport.address(server), WAIT));
    }

    /** @return a new raw connection to the server, closed after the test */
    protected RawClient connect() throws IOException {
        return track(RawClient.connect(transport, transport.address(server)));
    }

    /**
     * @return a JDK HttpClient speaking HTTP/1.1, closed after the test; skips the test on a transport it cannot use
     */
    protected HttpClient httpClient() {
        Assumptions.assumeTrue(transport.isTcp(), "the JDK HttpClient only speaks TCP, not " + transport);
        HttpClient.Builder builder =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(WAIT);
        if (transport.isTls()) {
            builder.sslContext(transport.clientTls());
        }
        return track(builder.build());
    }

    /**
     * @param pathAndQuery e.g. {@code /echo?x=1}
     * @return the URI of the server's TCP connector ({@code https://} over TLS)
     */
    protected URI uri(String pathAndQuery) {
        return server.uri().resolve(pathAndQuery);
    }

    /**
     * Closes {@code closeable} after the test, before the server stops.
     *
     * @return the argument
     */
    protected <T extends AutoCloseable> T track(T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    /**
     * Asserts that a request to the server is still answered normally, on a fresh connection: the proof that a
     * rejected or stuck connection did not disturb anyone else.
     *
     * @param request a complete request whose answer is 200
     */
    protected void assertServedNormally(String request) throws IOException {
        try (RawClient other = RawClient.connect(transport, transport.address(server))) {
            RawResponse response = other.send(request).readResponse();
            assertEquals(200, response.status(), () -> "another connection was not served normally: " + response);
            assertFalse(response.connectionClose(), response::toString);
        }
    }

    /**
     * Waits for a condition, polling with a deadline: never a fixed sleep.
     *
     * @param what the condition, for the failure message
     * @param condition the condition
     */
    public static void await(String what, BooleanSupplier condition) {
        await(what, condition, () -> "");
    }

    /**
     * Waits for a condition, polling with a deadline.
     *
     * @param what the condition, for the failure message
     * @param condition the condition
     * @param state describes the state when the wait fails
     */
    public static void await(String what, BooleanSupplier condition, Supplier<String> state) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        long pause = 1;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after " + WAIT + " waiting for " + what + ". " + state.get());
            }
            // Polling back-off, not a wait for the condition: the condition is re-checked every time.
            java.util.concurrent.locks.LockSupport.parkNanos(pause * 1_000_000);
            pause = Math.min(pause * 2, 20);
        }
    }

    @AfterEach
    protected final void stopServerAndClients() throws Exception {
        Exception failure = null;
        for (AutoCloseable closeable : closeables.reversed()) {
            try {
                closeable.close();
            } catch (Exception x) {
                if (failure == null) {
                    failure = x;
                }
            }
        }
        closeables.clear();
        if (server != null) {
            server.stop();
            assertFalse(server.isRunning());
            assertTrue(server.connectors().isEmpty(), () -> "connectors left after stop: " + server.connectors());
        }
        if (failure != null) {
            throw failure;
        }
    }
}
