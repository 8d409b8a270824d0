package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** gzip on the fly: which files, for which clients, with which fields, cached, and what precompressed files keep. */
class CompressionTest extends StaticFilesTestSupport {
    private static final String SCRIPT = "function hello(name) { return 'Hello, ' + name; }\n".repeat(100);

    private static String gunzip(byte[] body) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void aClientThatAcceptsGzipGetsACompressibleFileCompressed() throws Exception {
        write("app.js", SCRIPT);
        start();
        Reply reply = get("/app.js", "Accept-Encoding: gzip, deflate, br").assertFramed();
        assertEquals(200, reply.status());
        assertEquals("gzip", reply.header("Content-Encoding"));
        assertEquals("Accept-Encoding", reply.header("Vary"));
        assertEquals("text/javascript; charset=utf-8", reply.header("Content-Type"), "the type of the file");
        assertTrue(reply.body().length < SCRIPT.length() / 10, reply.body().length + " bytes");
        assertEquals(SCRIPT, gunzip(reply.body()));
        assertEquals(MODIFIED_HTTP, reply.header("Last-Modified"));
    }

    @Test
    void theUncompressedResponseOfACompressibleFileAlsoSaysVary() throws Exception {
        write("app.js", SCRIPT);
        start();
        Reply reply = get("/app.js").assertFramed();
        assertNull(reply.header("Content-Encoding"));
        assertEquals("Accept-Encoding", reply.header("Vary"));
        assertEquals(SCRIPT, reply.text());
        assertNull(get("/app.js", "Accept-Encoding: gzip;q=0, br").header("Content-Encoding"), "br is not made");
    }

    @Test
    void theCompressedRepresentationHasItsOwnEtagAndConditionalRequestsUseIt() throws Exception {
        write("app.js", SCRIPT);
        start();
        String identity = get("/app.js").header("ETag");
        String gzip = get("/app.js", "Accept-Encoding: gzip").header("ETag");
        assertEquals(identity.substring(0, identity.length() - 1) + "-gzip\"", gzip);
        Reply notModified = get("/app.js", "Accept-Encoding: gzip", "If-None-Match: " + gzip);
        assertEquals(304, notModified.status());
        assertEquals(gzip, notModified.header("ETag"));
        assertEquals("Accept-Encoding", notModified.header("Vary"));
        assertEquals(200, get("/app.js", "If-None-Match: " + gzip).status(), "not the identity's tag");
    }

    @Test
    void headOfACompressedFileHasTheCompressedLength() throws Exception {
        write("app.js", SCRIPT);
        start();
        int compressed = get("/app.js", "Accept-Encoding: gzip").body().length;
        Reply head = head("/app.js", "Accept-Encoding: gzip");
        assertEquals("gzip", head.header("Content-Encoding"));
        assertEquals(Integer.toString(compressed), head.header("Content-Length"));
        assertEquals(0, head.body().length);
    }

    @Test
    void aRangeIsServedFromTheFileItselfNeverFromCompressedBytes() throws Exception {
        write("app.js", SCRIPT);
        start();
        Reply reply =
                get("/app.js", "Accept-Encoding: gzip", "Range: bytes=9-13").assertFramed();
        assertEquals(206, reply.status());
        assertNull(reply.header("Content-Encoding"));
        assertEquals("hello", reply.text());
        assertEquals("bytes 9-13/" + SCRIPT.length(), reply.header("Content-Range"));
        assertEquals("Accept-Encoding", reply.header("Vary"));
    }

    @Test
    void theCompressedBytesAreCachedWithTheFileUntilItChanges() throws Exception {
        Path file = write("app.js", SCRIPT);
        start(StaticFiles.builder(root).revalidateAfter(Duration.ZERO));
        byte[] first = get("/app.js", "Accept-Encoding: gzip").body();
        long cost = files.cacheStatistics().bytes();
        assertEquals(StaticResource.OVERHEAD + SCRIPT.length() + first.length, cost, "the file and its gzip");
        assertArrayEquals(first, get("/app.js", "Accept-Encoding: gzip").body());
        assertEquals(1, files.cacheStatistics().misses());

        String changed = SCRIPT.replace("Hello", "Howdy");
        Files.writeString(file, changed);
        Reply after = get("/app.js", "Accept-Encoding: gzip");
        assertEquals(changed, gunzip(after.body()));
        assertEquals(1, files.cacheStatistics().invalidations());
    }

    @Test
    void aFileLargerThanTheCachedSizeIsCompressedFromTheFile() throws Exception {
        StringBuilder text = new StringBuilder();
        Random random = new Random(1);
        while (text.length() < 200_000) {
            text.append("line ").append(random.nextInt(1000)).append('\n');
        }
        write("big.txt", text.toString());
        start();
        Reply reply = get("/big.txt", "Accept-Encoding: gzip").assertFramed();
        assertEquals("gzip", reply.header("Content-Encoding"));
        assertEquals(text.toString(), gunzip(reply.body()));
        assertEquals(0, server.statistics().fileTransfers(), "from memory");
    }

    @ParameterizedTest
    @ValueSource(strings = {"photo.png", "archive.zip", "font.woff2", "movie.mp4", "data.bin"})
    void typesThatAreCompressedAlreadyAreNot(String name) throws Exception {
        write(name, SCRIPT);
        start();
        Reply reply = get("/" + name, "Accept-Encoding: gzip");
        assertNull(reply.header("Content-Encoding"));
        assertNull(reply.header("Vary"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"data.json", "logo.svg", "feed.xml", "style.css", "page.html", "app.wasm", "main.py"})
    void textLikeTypesAreCompressed(String name) throws Exception {
        write(name, SCRIPT);
        start();
        assertEquals("gzip", get("/" + name, "Accept-Encoding: gzip").header("Content-Encoding"));
    }

    @Test
    void filesSmallerThanTheMinimumOrLargerThanTheMaximumAreSentAsTheyAre() throws Exception {
        write("small.js", "x".repeat(1023));
        write("large.js", SCRIPT);
        start(StaticFiles.builder(root).compressMaxSize(SCRIPT.length() - 1));
        Reply small = get("/small.js", "Accept-Encoding: gzip");
        assertNull(small.header("Content-Encoding"));
        assertNull(small.header("Vary"));
        assertNull(get("/large.js", "Accept-Encoding: gzip").header("Content-Encoding"));
    }

    @Test
    void contentThatDoesNotShrinkIsSentAsItIs() throws Exception {
        byte[] noise = new byte[8192];
        new Random(2).nextBytes(noise);
        write("noise.txt", noise);
        start();
        Reply reply = get("/noise.txt", "Accept-Encoding: gzip").assertFramed();
        assertNull(reply.header("Content-Encoding"));
        assertEquals("Accept-Encoding", reply.header("Vary"));
        assertArrayEquals(noise, reply.body());
    }

    @Test
    void aPrecompressedSiblingWins() throws Exception {
        write("app.js", SCRIPT);
        ByteArrayOutputStream sibling = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(sibling)) {
            out.write(SCRIPT.getBytes(StandardCharsets.UTF_8));
        }
        write("app.js.gz", sibling.toByteArray());
        write("app.js.br", "BROTLI");
        start();
        Reply gzip = get("/app.js", "Accept-Encoding: gzip");
        assertArrayEquals(sibling.toByteArray(), gzip.body());
        assertTrue(gzip.header("ETag").endsWith("-gz\""), gzip.header("ETag"));
        assertEquals("BROTLI", get("/app.js", "Accept-Encoding: gzip, br").text());
    }

    @Test
    void withOnlyABrotliSiblingAGzipClientGetsCompressionOnTheFly() throws Exception {
        write("app.js", SCRIPT);
        write("app.js.br", "BROTLI");
        start();
        Reply gzip = get("/app.js", "Accept-Encoding: gzip");
        assertEquals("gzip", gzip.header("Content-Encoding"));
        assertEquals(SCRIPT, gunzip(gzip.body()));
        assertEquals("BROTLI", get("/app.js", "Accept-Encoding: br, gzip").text());
    }

    @Test
    void compressionCanBeTurnedOff() throws Exception {
        write("app.js", SCRIPT);
        start(StaticFiles.builder(root).compress(false));
        Reply reply = get("/app.js", "Accept-Encoding: gzip");
        assertNull(reply.header("Content-Encoding"));
        assertNull(reply.header("Vary"));
        assertEquals(SCRIPT, reply.text());
        assertTrue(files.toString().contains("gzip=off"), files.toString());
    }

    @Test
    void withoutCacheEveryRequestIsCompressedAgainAndStillCorrect() throws Exception {
        write("app.js", SCRIPT);
        start(StaticFiles.builder(root).maxCacheSize(0));
        for (int i = 0; i < 3; i++) {
            Reply reply = get("/app.js", "Accept-Encoding: gzip").assertFramed();
            assertEquals(SCRIPT, gunzip(reply.body()));
        }
        assertNotEquals(0, files.cacheStatistics().misses());
    }
}
