package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.fail;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.server.Http2Config;
import dev.quarry.server.Server;
import dev.quarry.server.ServerBuilder;
import dev.quarry.server.test.TestCertificates;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the HTTP/2 server tests share: a server on an ephemeral loopback port whose buffers come from the test's
 * leak-tracking pool (checked after each test, once the server stopped), frame-level clients connected to it by prior
 * knowledge (or over TLS, in the {@code ...OverTlsTest} subclasses), small HTTP/2 limits, bodies and digests.
 */
@ExtendWith(LeakTrackingPoolExtension.class)
abstract class Http2ServerTestSupport {
    /** How long a test waits for something that should take milliseconds. */
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final List<Http2TestClient> clients = new ArrayList<>();
    ByteBufferPool pool;
    Server server;

    @BeforeEach
    void leakTrackingPool(ByteBufferPool pool) {
        this.pool = pool;
    }

    @AfterEach
    void stopServer() throws InterruptedException {
        for (Http2TestClient client : clients) {
            client.close();
        }
        if (server != null) {
            server.stop();
        }
    }

    /**
     * @return whether this test speaks HTTP/2 over TLS ({@code h2} by ALPN on an HTTPS port) rather than h2c by prior
     *     knowledge; a subclass that returns true runs every test of its superclass over TLS
     */
    boolean overTls() {
        return false;
    }

    /**
     * Starts a server on 127.0.0.1 with an ephemeral port (HTTPS with the test certificate if {@link #overTls()}), the
     * test's pool, and what {@code configure} adds.
     */
    Server start(UnaryOperator<ServerBuilder> configure) throws IOException {
        ServerBuilder builder = Server.builder().buffers(pool).name("h2test");
        if (overTls()) {
            TestCertificates certificates = TestCertificates.ec();
            builder.https("127.0.0.1", 0, tls -> tls.keyStore(certificates.keyStore(), TestCertificates.PASSWORD));
        } else {
            builder.http("127.0.0.1", 0);
        }
        server = configure.apply(builder).build().start();
        return server;
    }

    InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", server.port());
    }

    /** A frame-level client by prior knowledge, past the SETTINGS exchange; closed after the test. */
    Http2TestClient connect() {
        return connect(new Http2Settings());
    }

    /** A frame-level client with {@code settings}, past the SETTINGS exchange; closed after the test. */
    Http2TestClient connect(Http2Settings settings) {
        Http2TestClient client;
        if (overTls()) {
            client = Http2TestClient.open(
                    address(),
                    (int) settings.get(Http2Settings.MAX_FRAME_SIZE).orElse(Http2Settings.DEFAULT_MAX_FRAME_SIZE),
                    TestCertificates.ec().clientContext());
            client.sendPreface();
            client.sendSettings(settings);
        } else {
            client = Http2TestClient.connect(address(), settings);
        }
        clients.add(client);
        client.awaitSettings(TIMEOUT);
        client.awaitSettingsAck(TIMEOUT);
        return client;
    }

    /** A client that has not sent anything yet; closed after the test. */
    Http2TestClient open() {
        Http2TestClient client = Http2TestClient.open(
                address(), 16_384, overTls() ? TestCertificates.ec().clientContext() : null);
        clients.add(client);
        return client;
    }

    /** The server's connection-level GOAWAY, and the end of the connection after it. */
    static FrameEvent.GoAway awaitGoAwayAndClose(Http2TestClient client) {
        FrameEvent.GoAway goAway = client.awaitGoAway(TIMEOUT);
        client.awaitClosed(TIMEOUT);
        return goAway;
    }

    static byte[] randomBytes(int length, long seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException x) {
            throw new AssertionError(x);
        }
    }

    /** Polls {@code condition} until it holds, failing with {@code what} after {@link #TIMEOUT}. */
    static void awaitCondition(BooleanSupplier condition, Supplier<String> what) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within " + TIMEOUT + ": " + what.get());
            }
            LockSupport.parkNanos(1_000_000); // a poll interval, not a wait for the condition
        }
    }

    /** Small HTTP/2 limits for tests, from the defaults. */
    static final class Limits {
        private int maxConcurrentStreams = Http2Config.DEFAULT.maxConcurrentStreams();
        private int initialStreamWindow = Http2Config.DEFAULT.initialStreamWindow();
        private int connectionWindow = Http2Config.DEFAULT.connectionWindow();
        private int maxFrameSize = Http2Config.DEFAULT.maxFrameSize();
        private int maxHeaderListSize = Http2Config.DEFAULT.maxHeaderListSize();
        private int maxHeaderBlockSize = Http2Config.DEFAULT.maxHeaderBlockSize();
        private int maxContinuationFrames = Http2Config.DEFAULT.maxContinuationFrames();
        private int maxResetsPerSecond = Http2Config.DEFAULT.maxResetsPerSecond();
        private int maxControlFramesPerSecond = Http2Config.DEFAULT.maxControlFramesPerSecond();
        private Duration settingsAckTimeout = Http2Config.DEFAULT.settingsAckTimeout();
        private Duration streamIdleTimeout = Http2Config.DEFAULT.streamIdleTimeout();
        private long maxHeldContent = Http2Config.DEFAULT.maxHeldContent();
        private int maxOpenFiles = Http2Config.DEFAULT.maxOpenFiles();
        private Duration smallFrameWait = Http2Config.DEFAULT.smallFrameWait();

        Limits maxConcurrentStreams(int value) {
            maxConcurrentStreams = value;
            return this;
        }

        Limits connectionWindow(int value) {
            connectionWindow = value;
            return this;
        }

        Limits maxOpenFiles(int value) {
            maxOpenFiles = value;
            return this;
        }

        Limits maxHeldContent(long value) {
            maxHeldContent = value;
            return this;
        }

        Limits initialStreamWindow(int value) {
            initialStreamWindow = value;
            return this;
        }

        Limits maxHeaderListSize(int value) {
            maxHeaderListSize = value;
            return this;
        }

        Limits maxHeaderBlockSize(int value) {
            maxHeaderBlockSize = value;
            return this;
        }

        Limits maxContinuationFrames(int value) {
            maxContinuationFrames = value;
            return this;
        }

        Limits maxResetsPerSecond(int value) {
            maxResetsPerSecond = value;
            return this;
        }

        Limits maxControlFramesPerSecond(int value) {
            maxControlFramesPerSecond = value;
            return this;
        }

        Limits settingsAckTimeout(Duration value) {
            settingsAckTimeout = value;
            return this;
        }

        Limits streamIdleTimeout(Duration value) {
            streamIdleTimeout = value;
            return this;
        }

        Limits smallFrameWait(Duration value) {
            smallFrameWait = value;
            return this;
        }

        Http2Config build() {
            return new Http2Config(
                    maxConcurrentStreams,
                    initialStreamWindow,
                    connectionWindow,
                    maxFrameSize,
                    maxHeaderListSize,
                    maxHeaderBlockSize,
                    maxContinuationFrames,
                    maxResetsPerSecond,
                    maxControlFramesPerSecond,
                    settingsAckTimeout,
                    streamIdleTimeout,
                    maxHeldContent,
                    maxOpenFiles,
                    smallFrameWait);
        }
    }
}
