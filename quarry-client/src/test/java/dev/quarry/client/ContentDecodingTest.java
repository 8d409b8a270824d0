package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.server.Server;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Transparent gzip decoding: offered and decoded for the application, left alone when it asks itself. */
@ExtendWith(LeakTrackingPoolExtension.class)
class ContentDecodingTest {
    private static final String TEXT = "Quarry compresses well. ".repeat(10_000);

    private Server server;
    private HttpClient client;

    @TempDir
    Path tempDir;

    @BeforeEach
    void startServer() throws Exception {
        byte[] gzipped = gzip(TEXT.getBytes(StandardCharsets.UTF_8));
        server = Server.builder()
                .http("127.0.0.1", 0)
                .route("GET /text", (req, res) -> {
                    boolean gzip = req.header("Accept-Encoding").orElse("").contains("gzip");
                    if (gzip) {
                        res.header("Content-Encoding", "gzip");
                    }
                    res.send(
                            200, "text/plain", ByteBuffer.wrap(gzip ? gzipped : TEXT.getBytes(StandardCharsets.UTF_8)));
                })
                .route(
                        "GET /accept",
                        (req, res) -> res.send(req.header("Accept-Encoding").orElse("none")))
                .route("GET /corrupt", (req, res) -> {
                    res.header("Content-Encoding", "gzip");
                    res.send(200, "text/plain", ByteBuffer.wrap("not gzip at all".getBytes(StandardCharsets.UTF_8)));
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

    private static byte[] gzip(byte[] bytes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(bytes);
        }
        return out.toByteArray();
    }

    private String uri(String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    @Test
    void offersGzipAndDecodesItWithoutTheEncodedFields(ByteBufferPool pool) throws Exception {
        client = HttpClient.builder().bufferPool(pool).build();
        assertEquals("gzip", client.send(HttpRequest.get(uri("/accept"))).asString());
        for (int i = 0; i < 3; i++) {
            HttpResponse response = client.send(HttpRequest.get(uri("/text")));
            assertEquals(Optional.empty(), response.headers().get("Content-Encoding"));
            assertEquals(Optional.empty(), response.headers().get("Content-Length"));
            assertEquals(TEXT, response.asString());
        }
        HttpResponse toFile = client.send(HttpRequest.get(uri("/text")));
        assertArrayEquals(
                TEXT.getBytes(StandardCharsets.UTF_8), Files.readAllBytes(toFile.toFile(tempDir.resolve("t"))));
        assertEquals(1, client.statistics().get(0).opened(), "decoded content read to its end frees the connection");
    }

    @Test
    void anApplicationThatSetsAcceptEncodingGetsTheContentAsSent(ByteBufferPool pool) throws Exception {
        client = HttpClient.builder().bufferPool(pool).build();
        HttpRequest own = HttpRequest.newBuilder(uri("/text"))
                .header("Accept-Encoding", "gzip")
                .build();
        HttpResponse response = client.send(own);
        assertEquals("gzip", response.headers().get("Content-Encoding").orElseThrow());
        assertArrayEquals(gzip(TEXT.getBytes(StandardCharsets.UTF_8)), response.asBytes());
    }

    @Test
    void decodingCanBeTurnedOff(ByteBufferPool pool) throws Exception {
        client = HttpClient.builder().bufferPool(pool).contentDecoding(false).build();
        assertEquals("none", client.send(HttpRequest.get(uri("/accept"))).asString());
        assertEquals(TEXT, client.send(HttpRequest.get(uri("/text"))).asString());
    }

    @Test
    void corruptGzipFailsTheReadWithAClearMessage(ByteBufferPool pool) throws Exception {
        client = HttpClient.builder().bufferPool(pool).build();
        HttpResponse response = client.send(HttpRequest.get(uri("/corrupt")));
        IOException failure = assertThrows(IOException.class, response::asBytes);
        assertTrue(failure.getMessage().contains("gzip content is invalid"), failure::getMessage);
        assertEquals(200, client.send(HttpRequest.get(uri("/accept"))).status(), "the client still works");
    }
}
