package dev.quarry.server.forms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.Multipart;
import dev.quarry.server.MultipartConfig;
import dev.quarry.server.Request;
import dev.quarry.server.Router;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.TestCertificates;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Multipart uploads over a real connection: genuine bodies from curl ({@code -F}, over HTTP/1.1 and HTTP/2) and from
 * the JDK HttpClient, parts small in memory and large in temporary files that are gone once the handler is done, and
 * the 400, 413 and 415 answers to bad uploads, after which no temporary file is left either.
 */
class MultipartTest extends ServerTestBase {
    private static final int THRESHOLD = 16 * 1024;
    private static boolean curlAvailable;

    private Path uploads;
    private Path kept;
    private MultipartConfig config;
    private final AtomicInteger filesDuringHandler = new AtomicInteger(-1);

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

    @BeforeEach
    void startServer() throws Exception {
        uploads = Files.createDirectory(tempDir.resolve("uploads"));
        kept = Files.createDirectory(tempDir.resolve("kept"));
        config = MultipartConfig.DEFAULT
                .withMemoryThreshold(THRESHOLD)
                .withTempDirectory(uploads)
                .withMaxParts(5)
                .withMaxPartSize(2 * 1024 * 1024);
        Router router = new Router();
        router.route("POST /upload", (request, response) -> response.send(describe(request)));
        router.route("POST /keep", (request, response) -> {
            try (Multipart form = Multipart.parse(request, config)) {
                Multipart.Part file = form.part("file").orElseThrow();
                file.moveTo(kept.resolve("kept.bin"));
            }
            response.send("kept");
        });
        start(builder -> builder.handler(router));
    }

    /** What the handler saw: one line per part, then the answer is sent after the parts were closed. */
    private String describe(Request request) throws Exception {
        StringBuilder report = new StringBuilder();
        try (Multipart form = Multipart.parse(request, config)) {
            for (Multipart.Part part : form.parts()) {
                report.append(part.name())
                        .append(" | ")
                        .append(part.filename().orElse("-"))
                        .append(" | ")
                        .append(part.contentType())
                        .append(" | ")
                        .append(part.size())
                        .append(part.isInMemory() ? " in memory" : " in a file")
                        .append(" | ")
                        .append(part.filename().isPresent() ? sha256(part.inputStream()) : part.asString())
                        .append('\n');
            }
            filesDuringHandler.set(files(uploads).size());
        }
        return report.toString();
    }

    private static String sha256(InputStream in) throws Exception {
        try (in) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(in.readAllBytes());
            return HexFormat.of().formatHex(digest.digest()).substring(0, 16);
        }
    }

    private static String sha256(byte[] bytes) throws Exception {
        return sha256(new java.io.ByteArrayInputStream(bytes));
    }

    private static List<Path> files(Path directory) {
        try (Stream<Path> files = Files.list(directory)) {
            return files.toList();
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
    }

    private void assertNoTemporaryFileLeft() {
        await(
                "the temporary files to be deleted",
                () -> files(uploads).isEmpty(),
                () -> files(uploads).toString());
    }

    private static byte[] random(int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    // ---- curl

    private record Curl(int exit, String out, String err) {}

    private Curl curl(String... arguments) throws Exception {
        Assumptions.assumeTrue(curlAvailable, "curl is not installed: the curl tests are skipped");
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "--max-time", String.valueOf(WAIT.toSeconds())));
        if (transport.isTls()) {
            command.add("--cacert");
            command.add(TestCertificates.ec().certificatePem().toString());
        }
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                .start();
        process.getOutputStream().close();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
        assertTrue(process.waitFor(WAIT.toSeconds() + 5, TimeUnit.SECONDS), "curl did not finish: " + command);
        return new Curl(
                process.exitValue(),
                out.get(WAIT.toSeconds(), TimeUnit.SECONDS),
                err.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    }

    private static String read(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"--http1.1", "--http2-prior-knowledge"})
    void curlUploadsFieldsAndFilesSmallOnesInMemoryLargeOnesInFilesDeletedAfterwards(String protocol) throws Exception {
        byte[] photo = random(1024 * 1024 + 7, 1);
        Path photoFile = Files.write(tempDir.resolve("beach photo.jpg"), photo);
        Path notesFile = Files.writeString(tempDir.resolve("notes.txt"), "sand\r\nsea\r\n--\r\n");

        Curl result = curl(
                protocol,
                "-F",
                "title=Holiday \u00e0 la mer",
                "-F",
                "notes=@" + notesFile + ";type=text/plain",
                "-F",
                "photo=@" + photoFile + ";type=image/jpeg",
                uri("/upload").toString());

        assertEquals(0, result.exit(), result.err());
        assertEquals(
                "title | - | text/plain | 17 in memory | Holiday \u00e0 la mer\n"
                        + "notes | notes.txt | text/plain | 15 in memory | "
                        + sha256("sand\r\nsea\r\n--\r\n".getBytes(StandardCharsets.US_ASCII)) + "\n"
                        + "photo | beach photo.jpg | image/jpeg | 1048583 in a file | " + sha256(photo) + "\n",
                result.out());
        assertEquals(1, filesDuringHandler.get(), "the large part was in a file while the handler ran");
        assertNoTemporaryFileLeft();
    }

    @Test
    void aFileMovedByTheHandlerIsKeptAfterTheOthersAreDeleted() throws Exception {
        byte[] content = random(100_000, 2);
        Path file = Files.write(tempDir.resolve("data.bin"), content);

        Curl result =
                curl("-F", "file=@" + file, "-F", "other=@" + file, uri("/keep").toString());

        assertEquals("kept", result.out(), result.err());
        assertEquals(sha256(content), sha256(Files.readAllBytes(kept.resolve("kept.bin"))));
        assertNoTemporaryFileLeft();
    }

    // ---- JDK HttpClient, bodies written by hand

    private HttpResponse<String> post(String contentType, byte[] body, boolean chunked) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri("/upload"))
                .POST(
                        chunked
                                ? HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(body))
                                : HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        return httpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static byte[] body(String... pieces) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String piece : pieces) {
            out.writeBytes(piece.getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }

    private static final String BIG = "b".repeat(THRESHOLD * 2);

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aHandWrittenBodyWithExtendedFileNamesAndAQuotedBoundary(boolean chunked) throws Exception {
        byte[] body = body(
                "preamble\r\n--a b:c\r\n",
                "Content-Disposition: form-data; name=\"doc\"; filename=\"x.txt\"; filename*=UTF-8''%E2%82%AC.txt\r\n",
                "Content-Type: text/plain; charset=utf-8\r\n\r\n",
                "euro\r\n--a b:c\r\n",
                "Content-Disposition: form-data; name=\"big\"\r\n\r\n",
                BIG,
                "\r\n--a b:c--\r\nepilogue");

        HttpResponse<String> response = post("multipart/form-data; boundary=\"a b:c\"", body, chunked);

        assertEquals(200, response.statusCode(), response.body());
        assertEquals(
                "doc | \u20ac.txt | text/plain; charset=utf-8 | 4 in memory | " + sha256(body("euro")) + "\n"
                        + "big | - | text/plain | " + BIG.length() + " in a file | " + BIG + "\n",
                response.body());
        assertNoTemporaryFileLeft();
    }

    @Test
    void aBodyWithoutItsFinalBoundaryIs400AndLeavesNoFile() throws Exception {
        byte[] body = body("--x\r\nContent-Disposition: form-data; name=\"big\"\r\n\r\n", BIG, "\r\n--x\r\n");

        HttpResponse<String> response = post("multipart/form-data; boundary=x", body, true);

        assertEquals(400, response.statusCode());
        assertTrue(
                response.body().contains("multipart body ended before its final boundary \"--x--\""), response.body());
        assertNoTemporaryFileLeft();
    }

    @Test
    void aPartWithoutANameIs400() throws Exception {
        byte[] body = body("--x\r\nContent-Disposition: form-data; filename=\"a.txt\"\r\n\r\nhi\r\n--x--\r\n");

        HttpResponse<String> response = post("multipart/form-data; boundary=x", body, false);

        assertEquals(400, response.statusCode());
        assertTrue(response.body().contains("multipart part 1 has no name"), response.body());
    }

    @Test
    void aPartOverTheLimitIs413AndLeavesNoFile() throws Exception {
        byte[] body = body(
                "--x\r\nContent-Disposition: form-data; name=\"huge\"; filename=\"huge.bin\"\r\n\r\n",
                "h".repeat(2 * 1024 * 1024 + 1),
                "\r\n--x--\r\n");

        HttpResponse<String> response = post("multipart/form-data; boundary=x", body, true);

        assertEquals(413, response.statusCode());
        assertTrue(response.body().contains("multipart part 1 larger than 2097152 bytes"), response.body());
        assertNoTemporaryFileLeft();
    }

    @Test
    void tooManyPartsIs413() throws Exception {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 6; i++) {
            text.append("--x\r\nContent-Disposition: form-data; name=\"f")
                    .append(i)
                    .append("\"\r\n\r\nv\r\n");
        }
        text.append("--x--\r\n");

        HttpResponse<String> response = post("multipart/form-data; boundary=x", body(text.toString()), false);

        assertEquals(413, response.statusCode());
        assertTrue(response.body().contains("too many multipart parts: more than 5"), response.body());
    }

    @Test
    void aMissingBoundaryIs400AndAnotherMediaType415() throws Exception {
        byte[] body = body("--x--\r\n");

        HttpResponse<String> noBoundary = post("multipart/form-data", body, false);
        assertEquals(400, noBoundary.statusCode());
        assertTrue(noBoundary.body().contains("multipart/form-data without a boundary parameter"), noBoundary.body());

        assertEquals(415, post("application/json", body, false).statusCode());
        HttpResponse<String> none = post(null, body, false);
        assertEquals(415, none.statusCode());
        assertTrue(none.body().contains("the request has no Content-Type"), none.body());
    }
}
