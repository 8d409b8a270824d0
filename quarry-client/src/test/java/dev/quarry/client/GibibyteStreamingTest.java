package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.http.HttpVersion;
import dev.quarry.server.Server;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * 1 GiB streamed each way between the client and a Quarry server, over HTTP/1.1 and h2c, in bounded memory: the upload
 * comes from a generated stream (never a byte array), the download goes to a counting reader, and half way through
 * each, after a full GC, the heap in use must be far below what holding the body would take.
 */
@ExtendWith(LeakTrackingPoolExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GibibyteStreamingTest {
    private static final long GIB = 1024L * 1024 * 1024;
    /**
     * Far above what the client and server keep (measured: 9 to 11 MiB of heap in use after GC half way, buffers
     * pooled), far below the half GiB that holding either body would take by then.
     */
    private static final long MAX_HEAP_USED = 128L * 1024 * 1024;

    private Server server;
    private HttpClient client;

    @BeforeEach
    void startServer() throws Exception {
        server = Server.builder()
                .http("127.0.0.1", 0)
                .idleTimeout(Duration.ofSeconds(60))
                .route("POST /count", (req, res) -> {
                    long count = 0;
                    try (InputStream in = req.inputStream()) {
                        byte[] buffer = new byte[64 * 1024];
                        int n;
                        while ((n = in.read(buffer)) >= 0) {
                            count += n;
                        }
                    }
                    res.send(Long.toString(count));
                })
                .route("GET /gib", (req, res) -> {
                    res.header("Content-Length", Long.toString(GIB));
                    byte[] block = new byte[64 * 1024];
                    for (int i = 0; i < block.length; i++) {
                        block[i] = (byte) (i * 7);
                    }
                    try (OutputStream out = res.outputStream()) {
                        for (long sent = 0; sent < GIB; sent += block.length) {
                            out.write(block);
                        }
                    }
                })
                .build()
                .start();
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        server.stop();
    }

    /** @return the heap in use just after a full collection */
    private static long heapUsedAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    @ParameterizedTest(name = "http2={0}")
    @ValueSource(booleans = {false, true})
    void streamsOneGibibyteEachWayInBoundedMemory(boolean http2, ByteBufferPool pool) throws Exception {
        client = HttpClient.builder().http2(http2).bufferPool(pool).build();
        String base = "http://127.0.0.1:" + server.port();

        AtomicLong uploadHeap = new AtomicLong(-1);
        InputStream generated = InteropLoad.generated(GIB);
        InputStream upload = new InputStream() {
            private long read;

            @Override
            public int read() throws IOException {
                int b = generated.read();
                if (b >= 0) {
                    counted(1);
                }
                return b;
            }

            @Override
            public int read(byte[] bytes, int offset, int length) throws IOException {
                int n = generated.read(bytes, offset, length);
                if (n > 0) {
                    counted(n);
                }
                return n;
            }

            private void counted(int n) {
                if (read < GIB / 2 && read + n >= GIB / 2) {
                    uploadHeap.set(heapUsedAfterGc()); // on the client's writing thread, half way
                }
                read += n;
            }
        };
        HttpRequest post = HttpRequest.newBuilder(base + "/count")
                .POST(RequestBody.ofStream(upload, GIB))
                .build();
        try (HttpResponse response = client.send(post)) {
            assertEquals(http2 ? HttpVersion.HTTP_2 : HttpVersion.HTTP_1_1, response.version());
            assertEquals(Long.toString(GIB), response.asString());
        }
        assertTrue(uploadHeap.get() >= 0, "the upload went past half way");
        assertTrue(uploadHeap.get() < MAX_HEAP_USED, "heap in use half way through the upload: " + uploadHeap);

        long downloadHeap = -1;
        try (HttpResponse response = client.send(HttpRequest.get(base + "/gib"))) {
            assertEquals(200, response.status());
            InputStream in = response.body();
            byte[] buffer = new byte[64 * 1024];
            long total = 0;
            int n;
            while ((n = in.read(buffer)) >= 0) {
                for (int i = 0; i < n; i++) {
                    if (buffer[i] != (byte) (((total + i) & 0xFFFF) * 7)) {
                        throw new AssertionError("byte " + (total + i) + " differs");
                    }
                }
                if (total < GIB / 2 && total + n >= GIB / 2) {
                    downloadHeap = heapUsedAfterGc();
                }
                total += n;
            }
            assertEquals(GIB, total);
        }
        assertTrue(downloadHeap >= 0 && downloadHeap < MAX_HEAP_USED, "heap in use half way: " + downloadHeap);
    }
}
