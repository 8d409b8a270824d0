package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.HttpFields;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.server.handlers.StaticFiles;
import dev.quarry.server.test.LogCapture;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files that the responses of one HTTP/2 connection keep open are bounded ({@code Http2Config.maxOpenFiles}): a
 * client that opens many file downloads and stops reading pins that many files, not one per stream (170 such
 * connections once held 19,999 of 20,000 descriptors); the other downloads wait, holding no file, and a client that
 * reads gets every file, a few at a time.
 */
class OpenFilesTest extends Http2ServerTestSupport {
    private static final int MAX_OPEN_FILES = 4;
    private static final int STREAMS = 32;

    @TempDir
    Path root;

    @Test
    void aClientThatStopsReadingPinsAtMostTheBoundOfOpenFiles() throws Exception {
        Files.write(root.resolve("big.bin"), new byte[4 * 1024 * 1024]); // far more than the socket buffers hold
        start(builder -> builder.handler(openingPerRequest())
                .http2Config(new Limits()
                        .maxConcurrentStreams(STREAMS)
                        .maxOpenFiles(MAX_OPEN_FILES)
                        .build()));
        long descriptorsBefore = openDescriptors();

        try (LogCapture log = LogCapture.of("dev.quarry")) {
            stallAndLeave(descriptorsBefore);
            // The client's doing, not the handlers': no warning, once per stream, that a handler failed.
            assertEquals(
                    List.of(), log.warnings().stream().map(r -> r.getMessage()).toList(), log::describe);
        }
    }

    /**
     * Opens an HTTP/2 connection with every window wide open (only TCP can stop the server, once this client stops
     * reading), a small receive buffer, and {@value #STREAMS} requests for {@code /big.bin}; then never reads.
     */
    private SocketChannel requestBigFileAndNeverRead() throws IOException {
        SocketChannel client = SocketChannel.open();
        try {
            client.setOption(StandardSocketOptions.SO_RCVBUF, 4096);
            client.connect(address());
            FrameGenerator generator = new FrameGenerator(new HpackEncoder());
            ByteBuffer out = ByteBuffer.allocate(64 * 1024);
            out.put("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            generator.settings(out, new Http2Settings().set(Http2Settings.INITIAL_WINDOW_SIZE, Integer.MAX_VALUE));
            generator.settingsAck(out);
            generator.windowUpdate(out, 0, Integer.MAX_VALUE - 65_535);
            for (int i = 0; i < STREAMS; i++) {
                generator.requestHeaders(out, 2 * i + 1, "GET", "http", "test", "/big.bin", new HttpFields(), true);
            }
            out.flip();
            while (out.hasRemaining()) {
                client.write(out);
            }
            return client;
        } catch (IOException | RuntimeException x) {
            client.close();
            throw x;
        }
    }

    private void stallAndLeave(long descriptorsBefore) throws Exception {
        try (SocketChannel client = requestBigFileAndNeverRead()) {

            // This client never reads a byte: the first responses stall on TCP with their files open, the others wait.
            awaitCondition(
                    () -> server.statistics().fileResponsesWaited() == STREAMS - MAX_OPEN_FILES,
                    () -> "file responses waiting: " + server.statistics().fileResponsesWaited() + " of "
                            + server.statistics().http2Requests() + " requests");
            long pinned = openDescriptors() - descriptorsBefore;
            // The bound, plus the two ends of the connection and a little slack for the JVM itself.
            assertTrue(
                    pinned <= MAX_OPEN_FILES + 6, "descriptors held for " + STREAMS + " stalled downloads: " + pinned);
        }

        // The client went away: the connection closes, and the waiting responses end without keeping a file.
        awaitCondition(() -> server.connectors().get(0).openConnections() == 0, () -> "the connection is still open");
        awaitCondition(
                () -> openDescriptors() - descriptorsBefore <= 2,
                () -> "descriptors still held: " + (openDescriptors() - descriptorsBefore));
    }

    @Test
    void aClientThatReadsGetsEveryFileAFewAtATime() throws Exception {
        byte[] content = randomBytes(256 * 1024, 7);
        Files.write(root.resolve("file.bin"), content);
        start(builder -> builder.handler(openingPerRequest())
                .http2Config(new Limits()
                        .maxConcurrentStreams(STREAMS)
                        .maxOpenFiles(2)
                        .build())); // the default flood limits: the client credits every DATA frame it receives
        Http2TestClient client = connect();
        List<Integer> streams = new ArrayList<>();
        for (int i = 0; i < STREAMS; i++) {
            streams.add(client.get("/file.bin"));
        }
        for (int stream : streams) {
            Http2TestClient.Response response = client.awaitResponse(stream, TIMEOUT);
            assertEquals(200, response.status());
            assertEquals(sha256(content), sha256(response.body()));
        }
    }

    @Test
    void aClientThatStopsReadingPinsOneDescriptorForAFileTheCacheKeepsOpen() throws Exception {
        Files.write(root.resolve("big.bin"), new byte[4 * 1024 * 1024]);
        StaticFiles files = StaticFiles.of(root);
        start(builder -> builder.handler(files)
                .http2Config(new Limits()
                        .maxConcurrentStreams(STREAMS)
                        .maxOpenFiles(2 * MAX_OPEN_FILES) // what a file per response would pin: far above one
                        .build()));
        long descriptorsBefore = openDescriptors();
        // The first request opens the file and the cache keeps it; the others share its descriptor.
        try (SocketChannel client = requestBigFileAndNeverRead()) {
            awaitCondition(
                    () -> server.statistics().http2Requests() == STREAMS,
                    () -> "requests: " + server.statistics().http2Requests());
            long pinned = openDescriptors() - descriptorsBefore;
            // One file, plus the two ends of the connection and a little slack for the JVM itself.
            assertTrue(pinned <= 1 + 2 + 3, "descriptors held for " + STREAMS + " stalled downloads: " + pinned);
        }
        awaitCondition(() -> server.connectors().get(0).openConnections() == 0, () -> "the connection is still open");
    }

    /** The file server without its open files: each response opens its own, which the bound under test limits. */
    private StaticFiles openingPerRequest() {
        return StaticFiles.builder(root).maxOpenFiles(0).build();
    }

    /** @return the descriptors the process has open (Linux and other Unix systems) */
    private static long openDescriptors() {
        return ((com.sun.management.UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getOpenFileDescriptorCount();
    }
}
