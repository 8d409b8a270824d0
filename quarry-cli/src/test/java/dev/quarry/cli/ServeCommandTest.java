package dev.quarry.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.Server;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServeCommandTest {
    private final HttpClient client =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private Server server;

    @TempDir
    Path dir;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
    }

    private Server serve(String... args) throws Exception {
        Options options = Options.parse(List.of(args), ServeCommand.OPTIONS, ServeCommand.FLAGS);
        server = ServeCommand.build(options).start();
        return server;
    }

    private HttpResponse<byte[]> get(String path) throws Exception {
        return client.send(
                HttpRequest.newBuilder(server.uri().resolve(path)).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void demoSiteServesItsPagesHelloEchoDownloadAndStatus() throws Exception {
        serve("--port", "0", "--host", "127.0.0.1", "--jmx", "off");

        assertTrue(new String(get("/").body()).contains("Quarry is running"));
        assertEquals("Hello quarry\n", new String(get("/hello/quarry").body()));
        byte[] upload = new byte[1_000_000];
        new Random(7).nextBytes(upload);
        HttpResponse<byte[]> echo = client.send(
                HttpRequest.newBuilder(server.uri().resolve("/echo"))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(upload))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertArrayEquals(upload, echo.body());
        HttpResponse<byte[]> head = client.send(
                HttpRequest.newBuilder(server.uri().resolve("/download/200k.bin"))
                        .method("HEAD", HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals("204800", head.headers().firstValue("content-length").orElseThrow());
        assertTrue(new String(get("/quarry/status.json").body()).contains("\"throttle\":{\"active clients\""));
        HttpResponse<byte[]> metrics = get("/quarry/metrics");
        assertEquals(
                "text/plain; version=0.0.4; charset=utf-8",
                metrics.headers().firstValue("content-type").orElseThrow());
        assertTrue(new String(metrics.body())
                .contains("\nquarry_status_value{section=\"throttle\",group=\"limits\","
                        + "name=\"rate per request B/s\"} 20480\n"));
    }

    @Test
    void directoryIsServedAndHiddenFilesAreNot() throws Exception {
        Files.writeString(dir.resolve("a.txt"), "alpha");
        Files.writeString(dir.resolve(".secret"), "no");
        serve(dir.toString(), "--port", "0", "--host", "127.0.0.1", "--jmx", "off");

        HttpResponse<byte[]> a = get("/a.txt");
        assertEquals(200, a.statusCode());
        assertEquals("alpha", new String(a.body()));
        assertEquals(404, get("/.secret").statusCode());
        assertEquals(404, get("/quarry/status").statusCode(), "status page is off unless --status");
        assertEquals(404, get("/quarry/metrics").statusCode(), "metrics are off unless --status");
    }

    @Test
    void mimeMapsExtensionsRepeatedOrCommaSeparated() throws Exception {
        Files.writeString(dir.resolve("app.ts"), "let x = 1;");
        Files.writeString(dir.resolve("page.tmpl"), "<p>");
        Files.writeString(dir.resolve("data.bin"), "x");
        Files.writeString(dir.resolve("main.py"), "print()");
        serve(
                dir.toString(),
                "--port",
                "0",
                "--host",
                "127.0.0.1",
                "--jmx",
                "off",
                "--mime",
                "ts=text/plain",
                "--mime=.tmpl=text/html,bin=application/x-thing");

        assertEquals("text/plain; charset=utf-8", contentType("/app.ts"));
        assertEquals("text/html; charset=utf-8", contentType("/page.tmpl"));
        assertEquals("application/x-thing", contentType("/data.bin"));
        assertEquals("text/plain; charset=utf-8", contentType("/main.py"), "built in");
    }

    @Test
    void aBadMimeMappingNamesIt() {
        for (String bad : List.of("ts", "ts=plain", "a/b=text/plain")) {
            Options.UsageException x = assertThrows(
                    Options.UsageException.class,
                    () -> ServeCommand.build(Options.parse(
                            List.of(dir.toString(), "--mime", bad), ServeCommand.OPTIONS, ServeCommand.FLAGS)));
            assertTrue(x.getMessage().startsWith("--mime"), x.getMessage());
            assertTrue(x.getMessage().contains(bad.substring(bad.indexOf('=') + 1)), x.getMessage());
        }
    }

    @Test
    void textIsGzippedForClientsThatAcceptItUnlessNoCompress() throws Exception {
        String text = "a line of text\n".repeat(200);
        Files.writeString(dir.resolve("notes.txt"), text);
        serve(dir.toString(), "--port", "0", "--host", "127.0.0.1", "--jmx", "off");
        assertEquals(
                "gzip",
                gzipRequest("/notes.txt")
                        .headers()
                        .firstValue("content-encoding")
                        .orElseThrow());
        server.stop();

        serve(dir.toString(), "--port", "0", "--host", "127.0.0.1", "--jmx", "off", "--no-compress");
        HttpResponse<byte[]> plain = gzipRequest("/notes.txt");
        assertTrue(
                plain.headers().firstValue("content-encoding").isEmpty(),
                plain.headers().toString());
        assertEquals(text, new String(plain.body(), java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void cacheControlIsSentWithFiles() throws Exception {
        Files.writeString(dir.resolve("a.css"), "a{}");
        serve(
                dir.toString(),
                "--port",
                "0",
                "--host",
                "127.0.0.1",
                "--jmx",
                "off",
                "--cache-control",
                "public, max-age=600");
        assertEquals(
                "public, max-age=600",
                get("/a.css").headers().firstValue("cache-control").orElseThrow());
    }

    @Test
    void aDirectoryWithoutIndexSaysHowToListIt() throws Exception {
        Files.createDirectory(dir.resolve("docs"));
        serve(dir.toString(), "--port", "0", "--host", "127.0.0.1", "--jmx", "off");
        HttpResponse<byte[]> forbidden = get("/docs/");
        assertEquals(403, forbidden.statusCode());
        assertTrue(new String(forbidden.body()).contains("--listing"), new String(forbidden.body()));
    }

    @Test
    void theDemoThrottlesDownloadsUnlessRequestRateIsZero() throws Exception {
        serve("--port", "0", "--host", "127.0.0.1", "--jmx", "off");
        assertTrue(status().contains("\"summary\":\"20 KiB/s per request (burst 32 KiB)\""), status());
        server.stop();

        serve("--port", "0", "--host", "127.0.0.1", "--jmx", "off", "--request-rate", "0");
        assertTrue(status().contains("\"summary\":\"none\""), status());
        assertEquals(204800, get("/download/200k.bin").body().length);
    }

    @Test
    void burstTakesTheUnitsOfRatesAndAppliesToEveryLimitedBucket() throws Exception {
        serve(
                dir.toString(),
                "--port",
                "0",
                "--host",
                "127.0.0.1",
                "--jmx",
                "off",
                "--status",
                "--rate",
                "1Mi",
                "--request-rate",
                "20k",
                "--burst",
                "64k");
        assertTrue(status().contains("1 MiB/s in all (burst 64 kB), 20 kB/s per request (burst 64 kB)"), status());
    }

    @Test
    void burstWithoutARateAndRatesInBitsAreUsageErrors() {
        Options.UsageException burst = assertThrows(
                Options.UsageException.class,
                () -> ServeCommand.build(Options.parse(
                        List.of(dir.toString(), "--burst", "64k"), ServeCommand.OPTIONS, ServeCommand.FLAGS)));
        assertTrue(burst.getMessage().contains("--rate"), burst.getMessage());
        Options.UsageException bits = assertThrows(
                Options.UsageException.class,
                () -> ServeCommand.build(Options.parse(
                        List.of(dir.toString(), "--rate", "8Mb/s"), ServeCommand.OPTIONS, ServeCommand.FLAGS)));
        assertTrue(bits.getMessage().startsWith("--rate: '8Mb/s' looks like bits"), bits.getMessage());
    }

    private String status() throws Exception {
        return new String(get("/quarry/status.json").body(), java.nio.charset.StandardCharsets.UTF_8);
    }

    private HttpResponse<byte[]> gzipRequest(String path) throws Exception {
        return client.send(
                HttpRequest.newBuilder(server.uri().resolve(path))
                        .header("Accept-Encoding", "gzip")
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    private String contentType(String path) throws Exception {
        return get(path).headers().firstValue("content-type").orElseThrow();
    }

    @Test
    void badOptionsNameTheOptionAndTheValue() {
        Options.UsageException rate = assertThrows(
                Options.UsageException.class,
                () -> ServeCommand.build(Options.parse(List.of("--rate", "fast"), ServeCommand.OPTIONS, Set.of())));
        assertTrue(rate.getMessage().contains("--rate"), rate.getMessage());
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(
                List.of("serve", "--nope"), new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertEquals(2, status);
        assertTrue(err.toString().contains("unknown option --nope"), err.toString());
        assertTrue(URI.create("http://x/").isAbsolute());
    }

    @Test
    void theLineLoggedAtStartSaysWhatIsServedAndOverWhichProtocols() {
        Options demo = Options.parse(List.of("--port", "0"), ServeCommand.OPTIONS, ServeCommand.FLAGS);
        Options directory =
                Options.parse(List.of(dir.toString(), "--h2c", "off"), ServeCommand.OPTIONS, ServeCommand.FLAGS);
        Options http2Only =
                Options.parse(List.of(dir.toString(), "--h2c", "only"), ServeCommand.OPTIONS, ServeCommand.FLAGS);

        assertEquals("Serving the demo site over http/1.1 and h2c", ServeCommand.served(demo));
        assertEquals("Serving " + dir.toAbsolutePath() + " over http/1.1", ServeCommand.served(directory));
        assertEquals(
                "Serving " + dir.toAbsolutePath() + " over h2c only (HTTP/2 by prior knowledge)",
                ServeCommand.served(http2Only));
    }

    @Test
    void whoamiShowsTheClientAndProxyProtocolMakesItTheProxiedOne() throws Exception {
        serve("--port", "0", "--host", "127.0.0.1", "--jmx", "off");
        assertTrue(new String(get("/whoami").body()).startsWith("127.0.0.1:"));
        server.stop();

        serve("--port", "0", "--host", "127.0.0.1", "--jmx", "off", "--proxy-protocol");
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream()
                    .write(("PROXY TCP4 192.0.2.7 198.51.100.1 56324 443\r\n"
                                    + "GET /whoami HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                            .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            String answer =
                    new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
            assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
            assertTrue(answer.endsWith("\r\n\r\n192.0.2.7:56324\n"), answer);
        }
    }
}
