package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.server.h2.TestHandlers.Shape;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The JDK {@link HttpClient} speaking HTTP/2 to Quarry. Over {@code http://} it cannot use prior knowledge: its first
 * request carries {@code Upgrade: h2c}, the server answers 101 and the response on stream 1, and the following requests
 * share that one HTTP/2 connection. Every scenario runs through both handler shapes.
 */
class JdkHttpClientTest extends Http2ServerTestSupport {
    private HttpClient client;
    private URI base;

    @BeforeEach
    void startServerAndUpgrade() throws Exception {
        start(builder -> {
            for (Shape shape : Shape.values()) {
                String prefix = "/" + shape.name().toLowerCase(java.util.Locale.ROOT);
                builder.route("GET " + prefix + "/hello", TestHandlers.hello(shape))
                        .route("POST " + prefix + "/echo", TestHandlers.echo(shape))
                        .route("GET " + prefix + "/download", TestHandlers.download(shape))
                        .route("GET " + prefix + "/trailers", TestHandlers.withTrailers(shape));
            }
            return builder;
        });
        base = server.uri();
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        // The upgrade: a bodiless request, as the client would send first anyway.
        HttpResponse<String> first = client.send(
                HttpRequest.newBuilder(base.resolve("/blocking/hello")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(HttpClient.Version.HTTP_2, first.version(), "upgraded");
        assertEquals("BLOCKING hello over HTTP/2.0", first.body());
    }

    @AfterEach
    void closeClient() {
        client.shutdownNow();
        try {
            client.awaitTermination(TIMEOUT);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
    }

    private static String path(Shape shape, String what) {
        return "/" + shape.name().toLowerCase(java.util.Locale.ROOT) + what;
    }

    @Test
    void theUpgradedConnectionCarriesTheFollowingRequests() throws Exception {
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> response = client.send(
                    HttpRequest.newBuilder(base.resolve("/async/hello")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(HttpClient.Version.HTTP_2, response.version());
        }
        assertEquals(1, server.statistics().http2Connections(), "one connection, upgraded");
        assertEquals(0, server.statistics().http1Requests(), "the upgraded request counts as stream 1");
        assertEquals(4, server.statistics().http2Requests());
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void aGetIsAnswered(Shape shape) throws Exception {
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(base.resolve(path(shape, "/hello"))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        assertEquals(HttpClient.Version.HTTP_2, response.version());
        assertEquals(shape + " hello over HTTP/2.0", response.body());
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void aPostIsEchoed(Shape shape) throws Exception {
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(base.resolve(path(shape, "/echo")))
                        .POST(HttpRequest.BodyPublishers.ofString("a small body"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        assertEquals(HttpClient.Version.HTTP_2, response.version());
        assertEquals("a small body", response.body());
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void largeBodiesCrossBothWays(Shape shape) throws Exception {
        byte[] upload = randomBytes(3 * 1024 * 1024 + 17, 42);
        HttpResponse<byte[]> echoed = client.send(
                HttpRequest.newBuilder(base.resolve(path(shape, "/echo")))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(upload))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, echoed.statusCode());
        assertEquals(HttpClient.Version.HTTP_2, echoed.version());
        assertEquals(upload.length, echoed.body().length, "echoed length");
        assertEquals(sha256(upload), sha256(echoed.body()), "echoed digest");

        int size = 4 * 1024 * 1024 + 3;
        HttpResponse<byte[]> download = client.send(
                HttpRequest.newBuilder(base.resolve(path(shape, "/download?size=" + size + "&seed=7")))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(size, download.body().length, "downloaded length");
        assertEquals(sha256(randomBytes(size, 7)), sha256(download.body()), "downloaded digest");
        assertEquals(1, server.statistics().http2Connections(), "all on the upgraded connection");
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void manyConcurrentRequestsShareOneConnection(Shape shape) throws Exception {
        List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            HttpRequest request = i % 2 == 0
                    ? HttpRequest.newBuilder(base.resolve(path(shape, "/hello")))
                            .build()
                    : HttpRequest.newBuilder(base.resolve(path(shape, "/echo")))
                            .POST(HttpRequest.BodyPublishers.ofString("request " + i))
                            .build();
            responses.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
        }
        for (int i = 0; i < responses.size(); i++) {
            HttpResponse<String> response = responses.get(i).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(HttpClient.Version.HTTP_2, response.version());
            assertEquals(i % 2 == 0 ? shape + " hello over HTTP/2.0" : "request " + i, response.body());
        }
        assertEquals(1, server.statistics().http2Connections(), "one multiplexed connection");
        assertEquals(0, server.statistics().http1Requests());
    }

    /** The JDK client drops trailers: the frame-level client reads them. */
    @ParameterizedTest
    @EnumSource(Shape.class)
    void trailersFollowTheBody(Shape shape) throws IOException {
        Http2TestClient h2 = connect();
        Http2TestClient.Response response = h2.awaitResponse(h2.get(path(shape, "/trailers")));
        assertEquals(200, response.status());
        assertEquals("body with trailers", response.bodyAsString());
        assertEquals(
                TestHandlers.sha256(response.body()),
                response.trailers().get("x-digest").orElseThrow());
        assertEquals("1", response.trailers().get("x-count").orElseThrow());
    }
}
