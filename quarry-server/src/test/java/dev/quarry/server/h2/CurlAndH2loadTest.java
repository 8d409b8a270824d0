package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quarry.server.h2.TestHandlers.Shape;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * curl (nghttp2 inside) and h2load against Quarry: h2c by upgrade ({@code --http2}) and by prior knowledge
 * ({@code --http2-prior-knowledge}), with and without bodies, and an h2load smoke run. Skipped where the tool is missing
 * (or curl was built without HTTP/2).
 */
class CurlAndH2loadTest extends Http2ServerTestSupport {
    @TempDir
    Path directory;

    @BeforeEach
    void startServer() throws IOException {
        start(builder -> {
            for (Shape shape : Shape.values()) {
                String prefix = "/" + shape.name().toLowerCase(Locale.ROOT);
                builder.route("GET " + prefix + "/hello", TestHandlers.hello(shape))
                        .route("POST " + prefix + "/echo", TestHandlers.echo(shape));
            }
            return builder;
        });
    }

    private static String path(Shape shape, String what) {
        return "/" + shape.name().toLowerCase(Locale.ROOT) + what;
    }

    private static boolean available(String tool, String feature) {
        try {
            Process process = new ProcessBuilder(tool, "--version")
                    .redirectErrorStream(true)
                    .start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return process.waitFor(10, TimeUnit.SECONDS)
                    && process.exitValue() == 0
                    && (feature == null || output.contains(feature));
        } catch (IOException x) {
            return false;
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Runs a tool to completion. @return its standard output (its standard error is shown on failure) */
    private String run(List<String> command) throws Exception {
        Path err = Files.createTempFile(directory, "stderr", ".txt");
        Process process =
                new ProcessBuilder(command).redirectError(err.toFile()).start();
        byte[] out = process.getInputStream().readAllBytes();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), command + " finished");
        String output = new String(out, StandardCharsets.UTF_8);
        if (process.exitValue() != 0) {
            throw new AssertionError(
                    command + " exited with " + process.exitValue() + ": " + output + Files.readString(err));
        }
        return output;
    }

    private static void requireCurl() {
        assumeTrue(available("curl", "HTTP2"), "curl with HTTP/2 support is not installed");
    }

    private List<String> curl(String... args) {
        List<String> command = new ArrayList<>(List.of("curl", "--silent", "--show-error", "--max-time", "30"));
        command.addAll(List.of(args));
        return command;
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void curlUpgradesAGet(Shape shape) throws Exception {
        requireCurl();
        Path body = directory.resolve("body");
        String written = run(curl(
                "--http2",
                "-o",
                body.toString(),
                "-w",
                "%{http_version} %{response_code}",
                server.uri().resolve(path(shape, "/hello")).toString()));
        assertEquals("2 200", written);
        assertEquals(shape + " hello over HTTP/2.0", Files.readString(body));
        assertEquals(1, server.statistics().http2Connections());
    }

    @Test
    void curlReusesTheUpgradedConnection() throws Exception {
        requireCurl();
        String written = run(curl(
                "--http2",
                "-o",
                "/dev/null",
                "-o",
                "/dev/null",
                "-w",
                "%{http_version}:%{num_connects} ",
                server.uri().resolve("/async/hello").toString(),
                server.uri().resolve("/blocking/hello").toString()));
        assertEquals("2:1 2:0 ", written, "one connection, upgraded once");
        assertEquals(2, server.statistics().http2Requests());
        assertEquals(0, server.statistics().http1Requests());
    }

    /**
     * curl asks to upgrade a POST too; Quarry upgrades only bodiless requests (the body would have to be carried over
     * into stream 1), so this one is answered over HTTP/1.1, correctly.
     */
    @ParameterizedTest
    @EnumSource(Shape.class)
    void curlPostsWithUpgradeRequested(Shape shape) throws Exception {
        requireCurl();
        byte[] upload = randomBytes(300_000, 3);
        Path file = Files.write(directory.resolve("upload"), upload);
        Path body = directory.resolve("echoed");
        String written = run(curl(
                "--http2",
                "--data-binary",
                "@" + file,
                "-o",
                body.toString(),
                "-w",
                "%{http_version} %{response_code}",
                server.uri().resolve(path(shape, "/echo")).toString()));
        assertEquals("1.1 200", written);
        assertEquals(sha256(upload), sha256(Files.readAllBytes(body)), "echoed digest");
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void curlGetsByPriorKnowledge(Shape shape) throws Exception {
        requireCurl();
        Path body = directory.resolve("body");
        String written = run(curl(
                "--http2-prior-knowledge",
                "-o",
                body.toString(),
                "-w",
                "%{http_version} %{response_code}",
                server.uri().resolve(path(shape, "/hello")).toString()));
        assertEquals("2 200", written);
        assertEquals(shape + " hello over HTTP/2.0", Files.readString(body));
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void curlPostsALargeBodyByPriorKnowledge(Shape shape) throws Exception {
        requireCurl();
        byte[] upload = randomBytes(2 * 1024 * 1024 + 5, 4);
        Path file = Files.write(directory.resolve("upload"), upload);
        Path body = directory.resolve("echoed");
        String written = run(curl(
                "--http2-prior-knowledge",
                "--data-binary",
                "@" + file,
                "-o",
                body.toString(),
                "-w",
                "%{http_version} %{response_code}",
                server.uri().resolve(path(shape, "/echo")).toString()));
        assertEquals("2 200", written);
        byte[] echoed = Files.readAllBytes(body);
        assertEquals(upload.length, echoed.length, "echoed length");
        assertEquals(sha256(upload), sha256(echoed), "echoed digest");
    }

    @Test
    void h2loadCompletesEveryRequest() throws Exception {
        assumeTrue(available("h2load", null), "h2load is not installed");
        String output = run(List.of(
                "h2load",
                "-n",
                "2000",
                "-c",
                "4",
                "-m",
                "20",
                server.uri().resolve("/async/hello").toString()));
        Matcher requests = Pattern.compile("requests: (\\d+) total, (\\d+) started, (\\d+) done, (\\d+) succeeded, "
                        + "(\\d+) failed, (\\d+) errored, (\\d+) timeout")
                .matcher(output);
        assertTrue(requests.find(), output);
        assertEquals("2000", requests.group(4), () -> "succeeded: " + output);
        assertEquals("0", requests.group(5), () -> "failed: " + output);
        assertEquals("0", requests.group(6), () -> "errored: " + output);
        assertTrue(output.contains("status codes: 2000 2xx"), output);
        assertEquals(4, server.statistics().http2Connections(), "h2c by prior knowledge, 4 connections");
    }
}
