package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.server.Server;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Following redirects: methods per status (RFC 9110 §15.4), limits, credentials, and turning it off. */
@ExtendWith(LeakTrackingPoolExtension.class)
class RedirectTest {
    private Server server;
    private Server other;
    private HttpClient client;

    @BeforeEach
    void startServers() throws Exception {
        other = Server.builder()
                .http("127.0.0.1", 0)
                .route(
                        "GET /landing",
                        (req, res) -> res.send("landed, authorization="
                                + req.header("Authorization").orElse("none") + ", x="
                                + req.header("X-Custom").orElse("none")))
                .build()
                .start();
        server = Server.builder()
                .http("127.0.0.1", 0)
                .route("/to/{status}", (req, res) -> {
                    res.status(Integer.parseInt(req.pathParam("status")));
                    res.header("Location", "/target?from=" + req.method());
                    res.send("redirect body");
                })
                .route(
                        "/target",
                        (req, res) -> res.send(req.method() + " " + req.target() + " body=" + req.bodyAsString()
                                + " type=" + req.header("Content-Type").orElse("none")))
                .route("GET /loop/{n}", (req, res) -> {
                    res.status(302);
                    res.header("Location", "/loop/" + (Integer.parseInt(req.pathParam("n")) + 1) + "#fragment");
                    res.send("");
                })
                .route("GET /elsewhere", (req, res) -> {
                    res.status(307);
                    res.header("Location", "http://127.0.0.1:" + other.port() + "/landing");
                    res.send("");
                })
                .route("GET /bad-location", (req, res) -> {
                    res.status(301);
                    res.header("Location", "ftp://example.com/x");
                    res.send("");
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
        other.stop();
    }

    private HttpClient client(ByteBufferPool pool, HttpClient.Builder builder) {
        client = builder.bufferPool(pool).build();
        return client;
    }

    private String uri(String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    private HttpRequest post(String path) {
        return HttpRequest.newBuilder(uri(path))
                .POST(RequestBody.of("payload"))
                .header("Content-Type", "text/plain")
                .build();
    }

    @Test
    void aGetFollowsEveryRedirectStatus(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        for (int status : new int[] {301, 302, 303, 307, 308}) {
            HttpResponse response = client.send(HttpRequest.get(uri("/to/" + status)));
            assertEquals(200, response.status(), "after " + status);
            assertEquals("GET /target?from=GET body= type=none", response.asString(), "after " + status);
        }
        assertEquals(1, client.statistics().get(0).opened(), "small redirect bodies are drained: one connection");
    }

    @Test
    void aPostBecomesAGetAfter301302And303AndStaysAPostAfter307And308(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        for (int status : new int[] {301, 302, 303}) {
            assertEquals(
                    "GET /target?from=POST body= type=none",
                    client.send(post("/to/" + status)).asString(),
                    "after " + status);
        }
        for (int status : new int[] {307, 308}) {
            assertEquals(
                    "POST /target?from=POST body=payload type=text/plain",
                    client.send(post("/to/" + status)).asString(),
                    "after " + status);
        }
    }

    @Test
    void aBodyThatCannotBeSentTwiceIsNotRedirected(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        HttpRequest stream = HttpRequest.newBuilder(uri("/to/307"))
                .POST(RequestBody.ofStream(new ByteArrayInputStream("once".getBytes(StandardCharsets.UTF_8)), 4))
                .build();
        HttpResponse response = client.send(stream);
        assertEquals(307, response.status());
        assertEquals("redirect body", response.asString());
    }

    @Test
    void aRequestOrAClientCanTurnRedirectsOff(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        HttpRequest noFollow =
                HttpRequest.newBuilder(uri("/to/302")).followRedirects(false).build();
        HttpResponse response = client.send(noFollow);
        assertEquals(302, response.status());
        assertEquals("/target?from=GET", response.headers().get("Location").orElseThrow());
        response.close();
        client.close();

        client(pool, HttpClient.builder().maxRedirects(0));
        assertEquals(302, client.send(HttpRequest.get(uri("/to/302"))).status());
        HttpRequest follow =
                HttpRequest.newBuilder(uri("/to/302")).followRedirects(true).build();
        assertEquals(200, client.send(follow).status());
    }

    @Test
    void aRedirectLoopFailsAfterTheLimitWithTheCountAndTheLocation(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        IOException failure = assertThrows(IOException.class, () -> client.send(HttpRequest.get(uri("/loop/0"))));
        assertTrue(failure.getMessage().startsWith("too many redirects: 8 followed"), failure::getMessage);
        assertTrue(failure.getMessage().contains("/loop/9"), failure::getMessage);

        ExecutionException async = assertThrows(
                ExecutionException.class,
                () -> client.sendAsync(HttpRequest.get(uri("/loop/0"))).get());
        assertTrue(async.getCause().getMessage().startsWith("too many redirects"), async::getMessage);

        client.close();
        client(pool, HttpClient.builder().maxRedirects(2));
        failure = assertThrows(IOException.class, () -> client.send(HttpRequest.get(uri("/loop/0"))));
        assertTrue(failure.getMessage().startsWith("too many redirects: 2 followed"), failure::getMessage);
    }

    @Test
    void credentialsAreNotSentToAnotherOrigin(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        HttpRequest request = HttpRequest.newBuilder(uri("/elsewhere"))
                .header("Authorization", "Bearer secret")
                .header("X-Custom", "kept")
                .build();
        assertEquals("landed, authorization=none, x=kept", client.send(request).asString());
        assertEquals(
                "landed, authorization=none, x=kept",
                client.sendAsync(request).get().asString());
    }

    @Test
    void anInvalidLocationFailsTheRequestAndNamesIt(ByteBufferPool pool) throws Exception {
        client(pool, HttpClient.builder());
        IOException failure = assertThrows(IOException.class, () -> client.send(HttpRequest.get(uri("/bad-location"))));
        assertTrue(
                failure.getMessage().contains("invalid redirect location 'ftp://example.com/x'"), failure::getMessage);
    }
}
