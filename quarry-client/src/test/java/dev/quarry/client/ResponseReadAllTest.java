package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.server.Server;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link HttpResponse#asBytes()} reads the content straight from the connection's chunks: the exact bytes, in one
 * chunk or many, and for a small response no more memory than the content itself (not a 16 KiB read buffer).
 */
@ExtendWith(LeakTrackingPoolExtension.class)
class ResponseReadAllTest {
    private static final byte[] BIG = pattern(3 * 1024 * 1024 + 17);

    private Server server;
    private HttpClient client;

    @BeforeEach
    void startServer() throws Exception {
        server = Server.builder()
                .http("127.0.0.1", 0)
                .idleTimeout(Duration.ofSeconds(30))
                .route("GET /hello", (req, res) -> res.send("Hello, World!"))
                .route("GET /empty", (req, res) -> res.send(""))
                .route("GET /chunked", (req, res) -> {
                    try (OutputStream out = res.outputStream()) {
                        for (int i = 0; i < 5; i++) {
                            out.write(("part" + i + ";").getBytes(StandardCharsets.UTF_8));
                            out.flush();
                        }
                    }
                })
                .route("GET /big", (req, res) -> {
                    try (OutputStream out = res.outputStream()) {
                        out.write(BIG);
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

    private HttpResponse get(ByteBufferPool pool, String path) throws Exception {
        if (client == null) {
            client = HttpClient.builder().bufferPool(pool).build();
        }
        return client.send(HttpRequest.get("http://127.0.0.1:" + server.port() + path));
    }

    @Test
    void smallContentCostsItsOwnSizeNotAReadBuffer(ByteBufferPool pool) throws Exception {
        // The first exchange loads classes and fills caches: measure a later one.
        for (int i = 0; i < 3; i++) {
            get(pool, "/hello").asBytes();
        }
        // Waiting for the content, if it has not arrived with the head, parks without allocating.
        HttpResponse response = get(pool, "/hello");
        Method allocatedBytes = currentThreadAllocatedBytes();
        allocatedBytes.invoke(ManagementFactory.getThreadMXBean());
        long before = (long) allocatedBytes.invoke(ManagementFactory.getThreadMXBean());
        byte[] content = response.asBytes();
        long allocated = (long) allocatedBytes.invoke(ManagementFactory.getThreadMXBean()) - before;

        assertEquals("Hello, World!", new String(content, StandardCharsets.US_ASCII));
        assertTrue(allocated < 4096, "asBytes() of 13 bytes allocated " + allocated + " bytes");
    }

    @Test
    void readsContentInManyChunksWhole(ByteBufferPool pool) throws Exception {
        assertEquals(
                "part0;part1;part2;part3;part4;",
                new String(get(pool, "/chunked").asBytes(), StandardCharsets.UTF_8));
        assertArrayEquals(BIG, get(pool, "/big").asBytes());
    }

    @Test
    void readsEmptyContentAsNoBytes(ByteBufferPool pool) throws Exception {
        assertEquals(0, get(pool, "/empty").asBytes().length);
    }

    @Test
    void readsWhatIsLeftAfterTheFirstBytes(ByteBufferPool pool) throws Exception {
        HttpResponse response = get(pool, "/hello");
        assertEquals('H', response.body().read());
        assertEquals("ello, World!", new String(response.asBytes(), StandardCharsets.US_ASCII));
    }

    /**
     * {@code com.sun.management.ThreadMXBean.getCurrentThreadAllocatedBytes()}, through reflection: this module does
     * not read jdk.management when it is compiled; the tests run on the class path, which reads everything.
     */
    private static Method currentThreadAllocatedBytes() throws Exception {
        return Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
    }

    private static byte[] pattern(int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 31 + (i >>> 8));
        }
        return bytes;
    }
}
