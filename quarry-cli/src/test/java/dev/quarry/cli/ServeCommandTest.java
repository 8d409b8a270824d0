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
}
