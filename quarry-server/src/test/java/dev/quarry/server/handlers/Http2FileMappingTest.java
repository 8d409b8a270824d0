package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.TestCertificates;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Over HTTP/2 (h2c here, h2 over TLS in the subclass), a file the cache keeps open is framed straight from its memory
 * mapping: byte-exact whatever the frame size and windows, and a file truncated while it is sent fails only its stream
 * (the copy from the mapping faults, and must neither break the connection's other streams nor keep the file), and the
 * next request sees the file as it is now.
 */
class Http2FileMappingTest extends StaticFilesTestSupport {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Duration LONG = Duration.ofHours(1);
    /** Sizes around the frame size (16 KiB), the flusher's copy threshold (4 KiB) and the default windows (64 KiB). */
    private static final int[] SIZES = {
        1025, 4096, 4097, 16_383, 16_384, 16_385, 65_535, 65_536, 65_537, 100_000, 1_048_577
    };

    private final List<Http2TestClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(Http2TestClient::close); // before the server stops (superclass methods run after these)
    }

    private static byte[] random(int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /** An HTTP/2 client with {@code settings}, by prior knowledge or, over TLS, by ALPN; past the SETTINGS exchange. */
    private Http2TestClient connect(Http2Settings settings) {
        InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.port());
        Http2TestClient client;
        if (overTls()) {
            int maxFrameSize =
                    (int) settings.get(Http2Settings.MAX_FRAME_SIZE).orElse(Http2Settings.DEFAULT_MAX_FRAME_SIZE);
            client = Http2TestClient.open(
                    address, maxFrameSize, TestCertificates.ec().clientContext());
            client.sendPreface();
            client.sendSettings(settings);
        } else {
            client = Http2TestClient.connect(address, settings);
        }
        clients.add(client);
        client.awaitSettings(TIMEOUT);
        client.awaitSettingsAck(TIMEOUT);
        return client;
    }

    @Test
    void filesKeptOpenAreSentExactlyAroundFrameAndWindowBoundaries() throws Exception {
        for (int size : SIZES) {
            write("f" + size + ".bin", random(size, size));
        }
        start(StaticFiles.builder(root).revalidateAfter(LONG).maxCachedFileSize(1024));
        List<Http2Settings> clientSettings = List.of(
                new Http2Settings(),
                // Frames larger than the server's write buffer, and a stream window that is not a multiple of them.
                new Http2Settings()
                        .set(Http2Settings.MAX_FRAME_SIZE, 1 << 20)
                        .set(Http2Settings.INITIAL_WINDOW_SIZE, 20_000));
        for (Http2Settings settings : clientSettings) {
            Http2TestClient client = connect(settings);
            for (int size : SIZES) {
                Http2TestClient.Response response = client.awaitResponse(client.get("/f" + size + ".bin"), TIMEOUT);
                assertEquals(200, response.status(), settings + ", " + size + " bytes");
                assertArrayEquals(random(size, size), response.body(), settings + ", " + size + " bytes");
            }
            long maxFrameSize = settings.get(Http2Settings.MAX_FRAME_SIZE).orElse(Http2Settings.DEFAULT_MAX_FRAME_SIZE);
            for (FrameEvent event : client.events()) {
                if (event instanceof FrameEvent.Data data) {
                    assertTrue(data.data().length <= maxFrameSize, "a DATA frame of " + data.data().length);
                }
            }
        }
        for (int size : SIZES) {
            OpenFile open = files.openFileOf("/f" + size + ".bin");
            assertNotNull(open, "kept open: " + size);
            ServerTestBase.await("every send gave its reference back", () -> open.references() == 1, open::toString);
        }
    }

    @Test
    void aFileTruncatedWhileItIsSentResetsOnlyItsStream() throws Exception {
        byte[] content = random(1024 * 1024, 1);
        Path big = write("big.bin", content);
        byte[] other = random(100_000, 2);
        write("other.bin", other);
        start(StaticFiles.builder(root).revalidateAfter(LONG).maxCachedFileSize(1024));
        Http2TestClient client = connect(new Http2Settings());
        assertArrayEquals(
                content, client.awaitResponse(client.get("/big.bin"), TIMEOUT).body());
        OpenFile open = files.openFileOf("/big.bin");
        assertNotNull(open, "kept open, and so mapped");

        // This client credits nothing now: the windows (65,535 octets) stop the server after the first frames.
        client.autoWindowUpdate(false);
        int stream = client.get("/big.bin");
        ServerTestBase.await(
                "the stream's window of DATA",
                () -> dataReceived(client, stream) >= 65_535,
                () -> "received " + dataReceived(client, stream));
        client.ping(TIMEOUT); // anything sent beyond the windows would have come before the PING's ACK
        assertEquals(65_535, dataReceived(client, stream), "the windows are honoured");

        // Rewritten in place: the pages past the new end leave the mapping, and the next copy from them faults.
        try (FileChannel truncating = FileChannel.open(big, StandardOpenOption.WRITE)) {
            truncating.truncate(10);
        }
        client.autoWindowUpdate(true);
        client.sendWindowUpdate(0, 1 << 20);
        client.sendWindowUpdate(stream, 1 << 20);
        assertEquals(
                ErrorCode.INTERNAL_ERROR, client.awaitRstStream(stream, TIMEOUT).error());
        assertTrue(dataReceived(client, stream) < content.length, "cut short");

        // The connection and its other streams go on, and the failed send gave its reference back.
        Http2TestClient.Response next = client.awaitResponse(client.get("/other.bin"), TIMEOUT);
        assertEquals(200, next.status());
        assertArrayEquals(other, next.body());
        ServerTestBase.await("the failed send gives its reference back", () -> open.references() <= 1, open::toString);

        // The fault told the handler that the file changed: the next request opens it again, finds its new size and
        // sends what is left, rather than faulting again until the entry is next checked (an hour here).
        Http2TestClient.Response again = client.awaitResponse(client.get("/big.bin"), TIMEOUT);
        assertEquals(200, again.status());
        assertArrayEquals(Arrays.copyOf(content, 10), again.body());
        ServerTestBase.await("the faulted file is no longer kept open", () -> open.references() == 0, open::toString);
    }

    /** @return the DATA octets received on {@code stream} so far */
    private static long dataReceived(Http2TestClient client, int stream) {
        long total = 0;
        for (FrameEvent event : client.events()) {
            if (event instanceof FrameEvent.Data data && data.streamId() == stream) {
                total += data.data().length;
            }
        }
        return total;
    }
}
