package dev.quarry.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SmokeTest {
    private Server server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void blockingAndAsyncRoutesAnswerTheJdkClient() throws Exception {
        server = Server.builder()
                .http("127.0.0.1", 0)
                .route("GET /hello/{name}", (req, res) -> res.send("Hello " + req.pathParam("name")))
                .route("GET /plaintext", AsyncHandler.nonBlocking((req, res, cb) -> {
                    res.headers().put("Content-Type", "text/plain");
                    res.write(true, ByteBuffer.wrap("Hello, World!".getBytes(StandardCharsets.US_ASCII)), cb);
                }))
                .route("POST /echo", (req, res) -> {
                    try (OutputStream out = res.outputStream()) {
                        req.inputStream().transferTo(out);
                    }
                })
                .build()
                .start();
        HttpClient client =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        URI base = server.uri();

        HttpResponse<String> hello = client.send(
                HttpRequest.newBuilder(base.resolve("/hello/quarry")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, hello.statusCode());
        assertEquals("Hello quarry", hello.body());
        assertEquals("quarry", hello.headers().firstValue("server").orElseThrow());
        assertTrue(hello.headers().firstValue("date").isPresent());

        HttpResponse<String> plain = client.send(
                HttpRequest.newBuilder(base.resolve("/plaintext")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals("Hello, World!", plain.body());
        assertEquals("13", plain.headers().firstValue("content-length").orElseThrow());

        String big = "x".repeat(300_000);
        HttpResponse<String> echo = client.send(
                HttpRequest.newBuilder(base.resolve("/echo"))
                        .POST(HttpRequest.BodyPublishers.ofString(big))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, echo.statusCode());
        assertEquals(big.length(), echo.body().length(), "echoed length");
        assertTrue(big.equals(echo.body()), "echoed content differs");

        HttpResponse<String> missing = client.send(
                HttpRequest.newBuilder(base.resolve("/nope")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(404, missing.statusCode());
        HttpResponse<String> wrongMethod = client.send(
                HttpRequest.newBuilder(base.resolve("/plaintext")).DELETE().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(405, wrongMethod.statusCode());
        assertEquals("GET, HEAD", wrongMethod.headers().firstValue("allow").orElseThrow());
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        server = Server.builder()
                .http("127.0.0.1", 0)
                .handler(AsyncHandler.nonBlocking((req, res, cb) ->
                        res.write(true, ByteBuffer.wrap(req.path().getBytes(StandardCharsets.US_ASCII)), cb)))
                .build()
                .start();
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            StringBuilder requests = new StringBuilder();
            for (int i = 0; i < 16; i++) {
                requests.append("GET /r").append(i).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
            }
            requests.append("GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(requests.toString().getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String all = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            int from = 0;
            for (int i = 0; i < 16; i++) {
                int at = all.indexOf("\r\n\r\n/r" + i, from);
                assertTrue(at > from, "response " + i + " in order: " + all);
                from = at;
            }
            assertTrue(all.endsWith("/last"), all);
        }
    }
}
