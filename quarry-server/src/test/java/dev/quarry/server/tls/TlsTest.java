package dev.quarry.server.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.Http2Config;
import dev.quarry.server.ServerBuilder;
import dev.quarry.server.test.LogCapture;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.TestCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * HTTPS: TLS over the JDK's SSLEngine, with ALPN choosing HTTP/2 or HTTP/1.1 on one port, against real clients (the
 * JDK HttpClient, curl, a bare SSLSocket without ALPN, a hand-made TLS 1.1 hello).
 */
class TlsTest extends ServerTestBase {

    private static void routes(ServerBuilder builder) {
        builder.route(
                        "GET /hello",
                        (request, response) -> response.send("hello " + request.scheme() + " "
                                + request.version().asString()))
                .route("POST /echo", (request, response) -> {
                    byte[] body = request.inputStream().readAllBytes();
                    response.send(200, "application/octet-stream", ByteBuffer.wrap(body));
                })
                .route("GET /bytes/{count}", (request, response) -> {
                    int count = Integer.parseInt(request.pathParam("count"));
                    response.header("Content-Type", "application/octet-stream");
                    try (OutputStream out = response.outputStream()) {
                        out.write(pattern(count));
                    }
                });
    }

    private static byte[] pattern(int count) {
        byte[] bytes = new byte[count];
        for (int i = 0; i < count; i++) {
            bytes[i] = (byte) (i * 31 + (i >>> 8));
        }
        return bytes;
    }

    private void startHttps(Consumer<ServerBuilder> more) throws IOException {
        TestCertificates certificates = TestCertificates.ec();
        start(builder -> {
            builder.https("127.0.0.1", 0, tls -> tls.keyStore(certificates.keyStore(), TestCertificates.PASSWORD));
            routes(builder);
            more.accept(builder);
        });
    }

    private HttpClient client(HttpClient.Version version) {
        return track(HttpClient.newBuilder()
                .version(version)
                .sslContext(TestCertificates.ec().clientContext())
                .connectTimeout(WAIT)
                .build());
    }

    /** @return the port of the HTTPS listener (the test base adds a plain one too) */
    private int httpsPort() {
        return server.connectors().stream()
                .filter(connector -> connector.protocols().get(0).equals("tls"))
                .findFirst()
                .orElseThrow()
                .localPort();
    }

    @Override
    protected URI uri(String pathAndQuery) {
        return URI.create("https://127.0.0.1:" + httpsPort() + "/").resolve(pathAndQuery);
    }

    @ParameterizedTest
    @EnumSource(
            value = HttpClient.Version.class,
            names = {"HTTP_1_1", "HTTP_2"})
    void alpnNegotiatesTheVersionTheClientAsksForOnOnePort(HttpClient.Version version) throws Exception {
        startHttps(builder -> {});
        HttpResponse<String> response = client(version)
                .send(HttpRequest.newBuilder(uri("/hello")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        assertEquals(version, response.version());
        String expected = version == HttpClient.Version.HTTP_2 ? "hello https HTTP/2.0" : "hello https HTTP/1.1";
        assertEquals(expected, response.body());
    }

    @ParameterizedTest
    @EnumSource(
            value = HttpClient.Version.class,
            names = {"HTTP_1_1", "HTTP_2"})
    void largeBodiesTravelBothWays(HttpClient.Version version) throws Exception {
        startHttps(builder -> {});
        HttpClient client = client(version);
        byte[] upload = new byte[8 * 1024 * 1024 + 17];
        new Random(42).nextBytes(upload);
        HttpResponse<byte[]> echoed = client.send(
                HttpRequest.newBuilder(uri("/echo"))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(upload))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, echoed.statusCode());
        assertEquals(version, echoed.version());
        assertArrayEquals(upload, echoed.body());

        HttpResponse<byte[]> download = client.send(
                HttpRequest.newBuilder(uri("/bytes/" + (5 * 1024 * 1024 + 3))).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, download.statusCode());
        assertArrayEquals(pattern(5 * 1024 * 1024 + 3), download.body());
    }

    @ParameterizedTest
    @EnumSource(
            value = HttpClient.Version.class,
            names = {"HTTP_1_1", "HTTP_2"})
    void manyConcurrentRequestsAreAllAnswered(HttpClient.Version version) throws Exception {
        // The JDK client fails requests beyond the server's MAX_CONCURRENT_STREAMS instead of queueing them
        // (JDK-8225647): allow all 200 at once.
        startHttps(builder -> builder.http2Config(
                Http2Config.DEFAULT.toBuilder().maxConcurrentStreams(256).build()));
        HttpClient client = client(version);
        List<CompletableFuture<HttpResponse<byte[]>>> responses = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            HttpRequest request = i % 2 == 0
                    ? HttpRequest.newBuilder(uri("/bytes/" + (i * 97))).build()
                    : HttpRequest.newBuilder(uri("/echo"))
                            .POST(HttpRequest.BodyPublishers.ofByteArray(pattern(i * 131)))
                            .build();
            responses.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()));
        }
        for (int i = 0; i < responses.size(); i++) {
            HttpResponse<byte[]> response = responses.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(200, response.statusCode());
            assertArrayEquals(pattern(i % 2 == 0 ? i * 97 : i * 131), response.body(), "response " + i);
        }
    }

    @Test
    void aClientWithoutAlpnGetsHttp11() throws Exception {
        startHttps(builder -> {});
        try (SSLSocket socket = (SSLSocket)
                TestCertificates.ec().clientContext().getSocketFactory().createSocket("127.0.0.1", httpsPort())) {
            socket.setSoTimeout((int) WAIT.toMillis());
            socket.getOutputStream()
                    .write("GET /hello HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertTrue(response.startsWith("HTTP/1.1 200 "), response);
            assertTrue(response.endsWith("hello https HTTP/1.1"), response);
            assertEquals("", socket.getApplicationProtocol());
        }
    }

    @Test
    void pemFilesWithAnRsaKeyWork() throws Exception {
        TestCertificates rsa = TestCertificates.rsa();
        start(builder -> {
            builder.https("127.0.0.1", 0, tls -> tls.pem(rsa.certificatePem(), rsa.keyPem()));
            routes(builder);
        });
        HttpClient client = track(HttpClient.newBuilder()
                .sslContext(rsa.clientContext())
                .connectTimeout(WAIT)
                .build());
        HttpResponse<String> response =
                client.send(HttpRequest.newBuilder(uri("/hello")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals("hello https HTTP/2.0", response.body());
    }

    @Test
    void http2CanBeTurnedOffForTls() throws Exception {
        TestCertificates certificates = TestCertificates.ec();
        start(builder -> {
            builder.https(
                    "127.0.0.1",
                    0,
                    tls -> tls.keyStore(certificates.keyStore(), TestCertificates.PASSWORD)
                            .http2(false));
            routes(builder);
        });
        HttpResponse<String> response = client(HttpClient.Version.HTTP_2)
                .send(HttpRequest.newBuilder(uri("/hello")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(HttpClient.Version.HTTP_1_1, response.version());
    }

    @ParameterizedTest
    @EnumSource(
            value = HttpClient.Version.class,
            names = {"HTTP_1_1", "HTTP_2"})
    void curlReportsTheNegotiatedProtocol(HttpClient.Version version) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                Files.isExecutable(Path.of("/usr/bin/curl")), "curl is not installed");
        startHttps(builder -> {});
        Process curl = new ProcessBuilder(
                        "/usr/bin/curl",
                        "-sk",
                        version == HttpClient.Version.HTTP_2 ? "--http2" : "--http1.1",
                        "-w",
                        "\n%{http_version}",
                        uri("/hello").toString())
                .redirectErrorStream(true)
                .start();
        String output = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(curl.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertEquals(0, curl.exitValue(), output);
        String expected =
                version == HttpClient.Version.HTTP_2 ? "hello https HTTP/2.0\n2" : "hello https HTTP/1.1\n1.1";
        assertEquals(expected, output);
    }

    /** h2load (nghttp2) over TLS: h2 chosen by ALPN, a small bounded run, every request answered. */
    @Test
    void h2loadCompletesEveryRequestOverTls() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                Files.isExecutable(Path.of("/usr/bin/h2load")), "h2load is not installed");
        startHttps(builder -> {});
        Process h2load = new ProcessBuilder(
                        "/usr/bin/h2load",
                        "-n",
                        "1000",
                        "-c",
                        "4",
                        "-m",
                        "10",
                        uri("/hello").toString())
                .redirectErrorStream(true)
                .start();
        String output = new String(h2load.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(h2load.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS), output);
        assertEquals(0, h2load.exitValue(), output);
        assertTrue(output.contains("Application protocol: h2"), output);
        Matcher requests = Pattern.compile("requests: (\\d+) total, (\\d+) started, (\\d+) done, (\\d+) succeeded, "
                        + "(\\d+) failed, (\\d+) errored, (\\d+) timeout")
                .matcher(output);
        assertTrue(requests.find(), output);
        assertEquals("1000", requests.group(4), () -> "succeeded: " + output);
        assertEquals("0", requests.group(5), () -> "failed: " + output);
        assertEquals("0", requests.group(6), () -> "errored: " + output);
        assertEquals(4, server.statistics().http2Connections(), "h2 by ALPN, 4 connections");
    }

    /**
     * {@code openssl s_client}: ALPN picks h2 (or http/1.1) as offered, over TLS 1.3 or TLS 1.2 as forced, and an HTTP/1.1
     * request typed into the session is answered.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"h2,-tls1_3,TLSv1.3", "http/1.1,-tls1_2,TLSv1.2"})
    void opensslNegotiatesAlpnAndTheVersionAsked(String alpn, String versionOption, String version) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                Files.isExecutable(Path.of("/usr/bin/openssl")), "openssl is not installed");
        startHttps(builder -> {});
        List<String> command = new ArrayList<>(List.of(
                "/usr/bin/openssl",
                "s_client",
                "-connect",
                "127.0.0.1:" + httpsPort(),
                "-servername",
                "localhost",
                "-alpn",
                alpn,
                versionOption,
                "-CAfile",
                TestCertificates.ec().certificatePem().toString(),
                "-verify_return_error"));
        boolean http1 = alpn.equals("http/1.1");
        if (http1) {
            command.add("-ign_eof"); // read on after our input ends: until the server closes (Connection: close)
        }
        Process openssl = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (OutputStream in = openssl.getOutputStream()) {
            if (http1) {
                in.write("GET /hello HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
            }
        }
        String output = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(openssl.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS), output);
        assertTrue(output.contains("ALPN protocol: " + alpn), output);
        assertTrue(output.contains("Protocol  : " + version) || output.contains("New, " + version), output);
        assertTrue(output.contains("Verify return code: 0 (ok)"), output);
        if (http1) {
            assertTrue(output.contains("hello https HTTP/1.1"), output);
        }
    }

    @Test
    void tls11IsRefused() throws Exception {
        startHttps(builder -> {});
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", httpsPort()));
            socket.setSoTimeout((int) WAIT.toMillis());
            socket.getOutputStream().write(tls11ClientHello());
            InputStream in = socket.getInputStream();
            int first = in.read();
            // An alert record (21), or the end of the stream: never a handshake record (22) with a ServerHello.
            assertNotEquals(22, first, "the server answered a TLS 1.1 hello with a handshake");
            if (first == 21) {
                byte[] rest = in.readNBytes(6);
                assertEquals(2, rest[4], "fatal alert");
                assertEquals(70, rest[5], "protocol_version alert");
            }
        }
        // And the JDK client, restricted to TLS 1.1, cannot connect either (it refuses locally or is refused).
        assertThrows(IOException.class, () -> {
            try (SSLSocket socket = (SSLSocket)
                    TestCertificates.ec().clientContext().getSocketFactory().createSocket("127.0.0.1", httpsPort())) {
                socket.setEnabledProtocols(new String[] {"TLSv1.1"});
                socket.startHandshake();
            }
        });
    }

    /** A TLS 1.1 ClientHello without extensions: record version 3.2, client version 3.2, two CBC suites. */
    private static byte[] tls11ClientHello() {
        ByteBuffer body = ByteBuffer.allocate(256);
        body.put((byte) 3).put((byte) 2); // client_version TLS 1.1
        byte[] random = new byte[32];
        new Random(7).nextBytes(random);
        body.put(random);
        body.put((byte) 0); // session id
        body.putShort((short) 4).putShort((short) 0xC013).putShort((short) 0x002F);
        body.put((byte) 1).put((byte) 0); // compression: null
        body.flip();
        ByteBuffer record = ByteBuffer.allocate(9 + body.remaining());
        record.put((byte) 22).put((byte) 3).put((byte) 2).putShort((short) (4 + body.remaining()));
        record.put((byte) 1).put((byte) 0).putShort((short) body.remaining());
        record.put(body);
        return record.array();
    }

    @Test
    void theStartupLineNamesHttpsAndTheAlpnProtocols() throws Exception {
        try (LogCapture log = LogCapture.of("dev.quarry.server")) {
            startHttps(builder -> {});
            String expected = "Started https (h2, http/1.1) on 127.0.0.1:" + httpsPort() + " — https://127.0.0.1:"
                    + httpsPort() + "/";
            assertEquals(
                    1,
                    log.matching(record -> expected.equals(record.getMessage())).size(),
                    log::describe);
        }
    }

    @Test
    void aHandshakeFailureDoesNotDisturbOthers() throws Exception {
        startHttps(builder -> {});
        // A client that trusts another certificate fails the handshake...
        HttpClient stranger = track(HttpClient.newBuilder()
                .sslContext(TestCertificates.rsa().clientContext())
                .build());
        assertThrows(
                SSLHandshakeException.class,
                () -> stranger.send(
                        HttpRequest.newBuilder(uri("/hello")).build(), HttpResponse.BodyHandlers.ofString()));
        // ...and the next one is served.
        HttpResponse<String> response = client(HttpClient.Version.HTTP_2)
                .send(HttpRequest.newBuilder(uri("/hello")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        await("the failed connection to close", () -> server.connectors().get(1).openConnections() <= 1);
    }
}
