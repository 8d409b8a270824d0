package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Router;
import dev.quarry.server.test.Bodies;
import dev.quarry.server.test.ServerTestBase;
import java.io.ByteArrayInputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Large uploads and downloads with the JDK {@link HttpClient} (HTTP/1.1) through both handler shapes: several
 * megabytes each way, with a declared length and chunked, compared by length and SHA-256.
 */
class HttpClientTest extends ServerTestBase {
    private static final int SIZE = 8 * 1024 * 1024;

    private HttpClient client;

    private void startServer() throws Exception {
        Router router = new Router();
        router.route("POST /digest", Bodies.blockingDigest());
        router.route("POST /async-digest", Bodies.asyncDigest());
        router.route("GET /download", Bodies.blockingDownload());
        router.route("GET /async-download", Bodies.asyncDownload());
        router.route(
                "GET /ok",
                AsyncHandler.nonBlocking((request, response, callback) ->
                        response.write(true, ByteBuffer.wrap(new byte[] {'o', 'k'}), callback)));
        router.route(
                "POST /reject",
                AsyncHandler.nonBlocking((request, response, callback) ->
                        response.status(413).write(true, ByteBuffer.wrap(new byte[] {'n', 'o'}), callback)));
        start(builder -> builder.handler(router));
        client = httpClient();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/digest", "/async-digest"})
    void aLargeUploadWithAContentLengthArrivesWhole(String path) throws Exception {
        startServer();
        byte[] body = Bodies.content(SIZE, 1);

        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(uri(path))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());

        assertEquals(200, response.statusCode());
        assertEquals(Bodies.describe(body), response.body());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/digest", "/async-digest"})
    void aLargeChunkedUploadArrivesWhole(String path) throws Exception {
        startServer();
        byte[] body = Bodies.content(SIZE, 2);

        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(uri(path))
                        // A publisher of unknown length: the JDK client sends Transfer-Encoding: chunked.
                        .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());

        assertEquals(200, response.statusCode());
        assertEquals(Bodies.describe(body), response.body());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/digest", "/async-digest"})
    void anUploadThatExpects100ContinueIsSentAfterItAndArrivesWhole(String path) throws Exception {
        startServer();
        byte[] body = Bodies.content(SIZE / 8, 4);
        HttpRequest request = HttpRequest.newBuilder(uri(path))
                .expectContinue(true)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();

        HttpResponse<String> first = client.send(request, HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> second = client.send(request, HttpResponse.BodyHandlers.ofString());

        assertEquals(200, first.statusCode());
        assertEquals(Bodies.describe(body), first.body());
        assertEquals(200, second.statusCode(), "the connection, reused or not, carries the next one");
        assertEquals(Bodies.describe(body), second.body());
    }

    @Test
    void anUploadThatExpects100ContinueAndIsAnsweredUnreadGetsTheFinalResponseOnly() throws Exception {
        startServer();
        HttpRequest request = HttpRequest.newBuilder(uri("/reject"))
                .expectContinue(true)
                .POST(HttpRequest.BodyPublishers.ofByteArray(Bodies.content(SIZE / 8, 5)))
                .build();

        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());

        assertEquals(413, response.statusCode());
        assertEquals("no", response.body());
        assertEquals(
                200,
                client.send(HttpRequest.newBuilder(uri("/ok")).build(), HttpResponse.BodyHandlers.ofString())
                        .statusCode());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/download", "/async-download", "/async-download?length=true"})
    void aLargeDownloadArrivesWhole(String path) throws Exception {
        startServer();
        String separator = path.contains("?") ? "&" : "?";

        HttpResponse<byte[]> response = client.send(
                HttpRequest.newBuilder(uri(path + separator + "size=" + SIZE + "&seed=3"))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());

        assertEquals(200, response.statusCode());
        byte[] expected = Bodies.content(SIZE, 3);
        assertEquals(expected.length, response.body().length);
        assertEquals(Bodies.sha256(expected), Bodies.sha256(response.body()));
        boolean declared = path.endsWith("length=true");
        assertEquals(
                declared ? String.valueOf(SIZE) : "absent",
                response.headers().firstValue("content-length").orElse("absent"));
    }

    @Test
    void concurrentUploadsAndDownloadsOfBothShapesDoNotMix() throws Exception {
        startServer();
        List<CompletableFuture<String>> results = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            byte[] body = Bodies.content(SIZE / 4, 100 + i);
            HttpRequest request = switch (i % 4) {
                case 0 ->
                    HttpRequest.newBuilder(uri("/digest"))
                            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                            .build();
                case 1 ->
                    HttpRequest.newBuilder(uri("/async-digest"))
                            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                            .build();
                case 2 ->
                    HttpRequest.newBuilder(uri("/download?size=" + body.length + "&seed=" + (100 + i)))
                            .build();
                default ->
                    HttpRequest.newBuilder(uri("/async-download?size=" + body.length + "&seed=" + (100 + i)))
                            .build();
            };
            boolean upload = i % 4 < 2;
            expected.add(upload ? Bodies.describe(body) : Bodies.sha256(body));
            results.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
                    .thenApply(response -> upload
                            ? new String(response.body(), java.nio.charset.StandardCharsets.US_ASCII)
                            : Bodies.sha256(response.body())));
        }

        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), results.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS), "transfer " + i);
        }
        assertTrue(server.statistics().http1Connections() > 1, "the client opened several connections");
    }
}
