package dev.quarry.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The command stopped by SIGTERM, as a service manager or a container runtime stops it: it drains and says so. The
 * JDK's logging closes its handlers in a shutdown hook of its own, which used to swallow every line the graceful stop
 * logged.
 */
class GracefulStopTest {
    private static final Pattern STARTED = Pattern.compile("Started .* on [^ ]*:(\\d+)");

    @Test
    void sigtermDrainsAndLogsWhatTheStopDid() throws Exception {
        Process process = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        classPath(),
                        Main.class.getName(),
                        "plaintext",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        "0")
                .redirectErrorStream(true)
                .start();
        List<String> lines = new ArrayList<>();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader in =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    synchronized (lines) {
                        lines.add(line);
                    }
                    Matcher started = STARTED.matcher(line);
                    if (started.find()) {
                        port.complete(Integer.parseInt(started.group(1)));
                    }
                }
            } catch (IOException x) {
                port.completeExceptionally(x);
            }
            port.completeExceptionally(new AssertionError("no startup line: " + lines));
        });
        try {
            int bound = port.get(60, TimeUnit.SECONDS);
            try (HttpClient client = HttpClient.newHttpClient()) {
                HttpResponse<String> response = client.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bound + "/plaintext"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(200, response.statusCode());
            }

            // SIGTERM through the handle: Process.destroy() would also close our end of the child's output.
            assertTrue(process.toHandle().destroy(), "SIGTERM sent");

            assertTrue(process.waitFor(30, TimeUnit.SECONDS), "still running 30 s after SIGTERM");
            reader.join(Duration.ofSeconds(10));
            String output;
            synchronized (lines) {
                output = String.join("\n", lines);
            }
            assertTrue(output.contains("INFO Stopping quarry: draining"), output);
            assertTrue(output.matches("(?s).*INFO Stopped quarry in \\d+ ms, every connection drained.*"), output);
        } finally {
            process.destroyForcibly();
        }
    }

    /** @return this test's class and module paths, as one class path: every Quarry module and the CLI */
    private static String classPath() {
        return Stream.of(System.getProperty("jdk.module.path", ""), System.getProperty("java.class.path", ""))
                .flatMap(path -> Stream.of(path.split(File.pathSeparator)))
                .filter(entry -> !entry.isBlank())
                .distinct()
                .collect(Collectors.joining(File.pathSeparator));
    }
}
