package dev.quarry.server.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.Router;
import dev.quarry.server.test.Bodies;
import dev.quarry.server.test.Echo;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.TestCertificates;
import dev.quarry.server.test.Transport;
import java.io.IOException;
import java.io.InputStream;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The server as curl sees it, over TCP, over TLS ({@code https://}, HTTP/1.1 by ALPN) and over a Unix-domain socket
 * ({@code --unix-socket}): several URLs on one
 * kept-alive connection, chunked uploads from stdin and from a file, {@code --http1.0}, {@code -I} (HEAD), and
 * {@code Expect: 100-continue} for a large body. Skipped when curl is not installed.
 */
class CurlTest extends ServerTestBase {
    private static boolean curlAvailable;

    private final AtomicInteger expectations = new AtomicInteger();

    @BeforeAll
    static void findCurl() {
        try {
            Process process = new ProcessBuilder("curl", "--version")
                    .redirectErrorStream(true)
                    .start();
            process.getInputStream().readAllBytes();
            curlAvailable = process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException | InterruptedException x) {
            curlAvailable = false;
        }
    }

    /** What a curl run printed. */
    private record Result(int exit, byte[] out, String err) {
        String text() {
            return new String(out, StandardCharsets.UTF_8);
        }
    }

    private void startServer(Transport transport) throws IOException {
        Assumptions.assumeTrue(curlAvailable, "curl is not installed: the curl tests are skipped");
        Router router = new Router();
        router.route("/echo", Echo.blocking());
        router.route("/digest", (request, response) -> {
            if (request.header("Expect").isPresent()) {
                expectations.incrementAndGet();
            }
            Bodies.blockingDigest().handle(request, response);
        });
        router.route("/async-digest", Bodies.asyncDigest());
        start(transport, builder -> builder.handler(router));
    }

    /** Runs curl with the transport's connection options, feeding {@code stdin}, and waits for it. */
    private Result curl(byte[] stdin, String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "--max-time", String.valueOf(WAIT.toSeconds())));
        if (transport == Transport.UNIX) {
            UnixDomainSocketAddress address = (UnixDomainSocketAddress) transport.address(server);
            command.add("--unix-socket");
            command.add(address.getPath().toString());
        }
        if (transport.isTls()) {
            command.add("--http1.1"); // curl would otherwise offer h2 by ALPN and get it
            command.add("--cacert");
            command.add(TestCertificates.ec().certificatePem().toString());
        }
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).start();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
        CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> readBytes(process.getInputStream()));
        try (var in = process.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin);
            }
        }
        assertTrue(process.waitFor(WAIT.toSeconds() + 5, TimeUnit.SECONDS), "curl did not finish: " + command);
        return new Result(
                process.exitValue(),
                out.get(WAIT.toSeconds(), TimeUnit.SECONDS),
                err.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    }

    private static byte[] readBytes(InputStream in) {
        try {
            return in.readAllBytes();
        } catch (IOException x) {
            throw new java.io.UncheckedIOException(x);
        }
    }

    private static String read(InputStream in) {
        return new String(readBytes(in), StandardCharsets.UTF_8);
    }

    /**
     * @return the URL of a path: the real port over TCP ({@code https://} over TLS); any host over a Unix socket, which
     *     curl ignores
     */
    private String url(String path) {
        return transport.isTcp() ? uri(path).toString() : "http://localhost" + path;
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void severalUrlsShareOneKeptAliveConnection(Transport transport) throws Exception {
        startServer(transport);

        Result result = curl(null, url("/echo?n=1"), url("/echo?n=2"), url("/echo?n=3"));

        assertEquals(0, result.exit(), result.err());
        String out = result.text();
        assertTrue(out.contains("query: n=1") && out.contains("query: n=2") && out.contains("query: n=3"), out);
        assertEquals(3, server.statistics().http1Requests());
        assertEquals(1, server.statistics().http1Connections(), "curl reused the connection");
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aChunkedUploadFromStdinArrivesWhole(Transport transport) throws Exception {
        startServer(transport);
        byte[] body = Bodies.content(3 * 1024 * 1024 + 17, 11);

        // -T - uploads stdin with PUT, chunked since curl cannot know its length.
        Result result = curl(body, "-T", "-", url("/digest"));

        assertEquals(0, result.exit(), result.err());
        assertEquals(Bodies.describe(body), result.text());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aChunkedUploadFromAFileArrivesWholeAtAnAsyncHandler(Transport transport) throws Exception {
        startServer(transport);
        byte[] body = Bodies.content(2 * 1024 * 1024 + 3, 12);
        Path file = Files.write(tempDir.resolve("upload.bin"), body);

        Result result = curl(
                null,
                "--data-binary",
                "@" + file,
                "-H",
                "Transfer-Encoding: chunked",
                "-H",
                "Expect:",
                url("/async-digest"));

        assertEquals(0, result.exit(), result.err());
        assertEquals(Bodies.describe(body), result.text());
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void http10RequestsAreAnsweredAndClosed(Transport transport) throws Exception {
        startServer(transport);

        Result result = curl(null, "--http1.0", "-i", url("/echo"));

        assertEquals(0, result.exit(), result.err());
        String out = result.text();
        assertTrue(out.startsWith("HTTP/1.1 200 OK"), out);
        assertTrue(out.toLowerCase(java.util.Locale.ROOT).contains("connection: close"), out);
        assertTrue(out.contains("version: HTTP/1.0"), out);
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void headShowsTheLengthOfTheBodyItDoesNotSend(Transport transport) throws Exception {
        startServer(transport);
        Result get = curl(null, "-i", url("/echo"));

        Result head = curl(null, "-I", url("/echo"));

        assertEquals(0, head.exit(), head.err());
        String out = head.text();
        assertTrue(out.startsWith("HTTP/1.1 200 OK"), out);
        Map<String, String> fields = fields(out);
        assertEquals(
                String.valueOf(Integer.parseInt(fields(get.text()).get("content-length")) + 1),
                fields.get("content-length"),
                "the length a GET has (the echo says HEAD, one letter more): " + out);
        assertTrue(out.endsWith("\r\n\r\n"), "nothing after the head: " + out);
    }

    @ParameterizedTest
    @MethodSource("dev.quarry.server.test.Transport#http1")
    void aLargeBodyWithExpectContinueIsSentAfterThe100(Transport transport) throws Exception {
        startServer(transport);
        byte[] body = Bodies.content(4 * 1024 * 1024, 13);
        Path file = Files.write(tempDir.resolve("large.bin"), body);

        Result result = curl(
                null,
                "-v",
                "--expect100-timeout",
                "30",
                "-H",
                "Expect: 100-continue",
                "--data-binary",
                "@" + file,
                url("/digest"));

        assertEquals(0, result.exit(), result.err());
        assertEquals(Bodies.describe(body), result.text());
        assertEquals(1, expectations.get(), "the request carried the expectation");
        // curl waits up to 30 s for the interim response before sending anyway: it came from the server.
        assertTrue(result.err().contains("< HTTP/1.1 100 Continue"), result.err());
    }

    private static Map<String, String> fields(String head) {
        Map<String, String> fields = new java.util.HashMap<>();
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                fields.put(
                        line.substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT),
                        line.substring(colon + 1).trim());
            }
        }
        return fields;
    }
}
