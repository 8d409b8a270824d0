package dev.quarry.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.AccessLog;
import dev.quarry.server.Server;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code --access-log FILE|-} and {@code --access-log-format combined|json}, for serve and plaintext. */
class AccessLogOptionsTest {
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

    private static Options plaintextOptions(String... args) {
        return Options.parse(List.of(args), Main.SERVER_OPTIONS, Set.of());
    }

    private int get(String path) throws Exception {
        return client.send(
                        HttpRequest.newBuilder(server.uri().resolve(path))
                                .header("User-Agent", "options-test")
                                .build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    /** Waits until the server's access log has written a line: the response may reach us before it is logged. */
    private void awaitOneLineWritten() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Long.valueOf(1).equals(((Map<?, ?>) server.status().sections().get("access log")).get("written"))) {
            assertTrue(System.nanoTime() < deadline, () -> "no line written: " + server.status());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2)); // a poll's back-off; the condition is re-checked
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"serve", "plaintext"})
    void theHelpOfEveryServerCommandListsTheAccessLogOptions(String command) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        Main.run(List.of(command, "--help"), new PrintStream(out, true, StandardCharsets.UTF_8), System.err);

        String help = out.toString(StandardCharsets.UTF_8);
        assertTrue(help.contains("--access-log FILE|-"), help);
        assertTrue(help.contains("--access-log-format combined|json"), help);
    }

    @Test
    void serveWritesCombinedLinesToTheFileByDefault() throws Exception {
        Files.writeString(dir.resolve("a.txt"), "alpha");
        Path log = dir.resolve("logs-access.log");
        Options options = Options.parse(
                List.of(
                        dir.toString(),
                        "--port",
                        "0",
                        "--host",
                        "127.0.0.1",
                        "--jmx",
                        "off",
                        "--access-log",
                        log.toString()),
                ServeCommand.OPTIONS,
                ServeCommand.FLAGS);
        server = ServeCommand.build(options).start();

        assertEquals(200, get("/a.txt"));
        awaitOneLineWritten();
        server.stop();

        List<String> lines = Files.readAllLines(log);
        assertEquals(1, lines.size(), lines::toString);
        assertTrue(
                lines.get(0)
                        .matches("127\\.0\\.0\\.1 - - \\[.+] \"GET /a\\.txt HTTP/1\\.1\" 200 5 \"-\""
                                + " \"options-test\" \\d+ \"-\" -"),
                lines.get(0));
    }

    @Test
    void plaintextWritesJsonLinesWithTheJsonFormat() throws Exception {
        Path log = dir.resolve("access.json");
        server = Main.serverBuilder(plaintextOptions(
                        "--port",
                        "0",
                        "--host",
                        "127.0.0.1",
                        "--access-log",
                        log.toString(),
                        "--access-log-format",
                        "JSON"))
                .route("GET /plaintext", new PlaintextApp())
                .build()
                .start();

        assertEquals(200, get("/plaintext"));
        awaitOneLineWritten();
        server.stop();

        String line = Files.readString(log).strip();
        assertTrue(line.startsWith("{\"time\":\""), line);
        assertTrue(
                line.contains("\"method\":\"GET\",\"target\":\"/plaintext\",\"protocol\":\"HTTP/1.1\","
                        + "\"status\":200,\"bytes\":13,"),
                line);
        assertTrue(line.contains("\"user_agent\":\"options-test\""), line);
    }

    @Test
    void aDashIsStandardOutput() {
        AccessLog log = Main.accessLog(plaintextOptions("--access-log", "-", "--access-log-format", "json"))
                .orElseThrow();

        assertEquals(AccessLog.Format.JSON, log.format());
        assertTrue(log.toString().startsWith("AccessLog{stdout, JSON"), log::toString);
    }

    @Test
    void withoutTheOptionThereIsNoAccessLog() {
        assertTrue(Main.accessLog(plaintextOptions("--port", "0")).isEmpty());
    }

    @Test
    void anUnknownFormatIsAUsageErrorThatNamesIt() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = Main.run(
                List.of("plaintext", "--port", "0", "--access-log", "-", "--access-log-format", "xml"),
                System.out,
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertEquals(2, status);
        assertTrue(
                err.toString(StandardCharsets.UTF_8)
                        .contains("--access-log-format must be combined or json, not 'xml'"),
                err::toString);
    }

    @Test
    void aFormatWithoutALogIsAUsageError() {
        Options.UsageException x = assertThrows(
                Options.UsageException.class, () -> Main.accessLog(plaintextOptions("--access-log-format", "json")));

        assertEquals("--access-log-format needs --access-log FILE|-", x.getMessage());
    }
}
