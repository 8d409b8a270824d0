package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** An independent client: curl decodes a precompressed file and resumes a download with a range. */
class CurlInteropTest extends StaticFilesTestSupport {

    @BeforeEach
    void requireCurl() throws Exception {
        boolean available;
        try {
            Process version = new ProcessBuilder("curl", "--version")
                    .redirectErrorStream(true)
                    .start();
            version.getInputStream().readAllBytes();
            available = version.waitFor(10, TimeUnit.SECONDS) && version.exitValue() == 0;
        } catch (IOException x) {
            available = false;
        }
        assumeTrue(available, "curl is not installed");
    }

    private void curl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("curl", "--silent", "--show-error", "--max-time", "30"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] output = process.getInputStream().readAllBytes();
        assertEquals(true, process.waitFor(60, TimeUnit.SECONDS), "curl finished");
        if (process.exitValue() != 0) {
            throw new AssertionError("curl " + command + " failed: " + new String(output, StandardCharsets.UTF_8));
        }
    }

    @Test
    void curlDecodesAPrecompressedSibling() throws Exception {
        String text = "body { color: red; }\n".repeat(100);
        write("style.css", text);
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
        write("style.css.gz", gz.toByteArray());
        start();
        Path output = tempDir.resolve("style.out");
        Path headers = tempDir.resolve("style.headers");
        curl("--compressed", "-D", headers.toString(), "-o", output.toString(), server.uri() + "style.css");
        assertEquals(text, Files.readString(output));
        String head = Files.readString(headers).toLowerCase(java.util.Locale.ROOT);
        assertEquals(true, head.contains("content-encoding: gzip"), head);
    }

    @Test
    void curlResumesAnInterruptedDownload() throws Exception {
        byte[] data = new byte[3 * 1024 * 1024];
        new Random(9).nextBytes(data);
        write("video.mp4", data);
        start();
        Path output = tempDir.resolve("video.part");
        Files.write(output, Arrays.copyOf(data, 1_000_000));
        curl("-C", "-", "-o", output.toString(), server.uri() + "video.mp4");
        assertArrayEquals(data, Files.readAllBytes(output));
        assertEquals(0, server.statistics().fileTransfers(), "the rest was one range of the file's mapping");
    }
}
