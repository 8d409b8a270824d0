package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code .br} and {@code .gz} siblings, chosen by Accept-Encoding, with Vary. */
class PrecompressedTest extends StaticFilesTestSupport {
    private static final String SCRIPT = "console.log('hello');\n".repeat(20);

    private static byte[] gzip(String text) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(text.getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }

    /** app.js with both siblings; the .br holds a marker (the JDK cannot write brotli, and nothing here decodes). */
    private void serveWithSiblings() throws IOException {
        write("app.js", SCRIPT);
        write("app.js.gz", gzip(SCRIPT));
        write("app.js.br", "BROTLI");
        start();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "gzip, deflate, br|br",
                "br;q=1.0, gzip;q=0.8|br",
                "gzip|gzip",
                "x-gzip|gzip",
                "GZIP|gzip",
                "br;q=0, gzip|gzip",
                "br;q=0.5, gzip;q=0.9|gzip",
                "*|br",
                "*;q=0.1, br;q=0|gzip",
                "deflate|identity",
                "gzip;q=0, br;q=0|identity",
                "br;q=2|identity",
                "identity|identity"
            })
    void theCodingFollowsAcceptEncoding(String acceptEncoding, String expected) throws Exception {
        serveWithSiblings();
        Reply reply = get("/app.js", "Accept-Encoding: " + acceptEncoding).assertFramed();
        assertEquals(200, reply.status());
        assertEquals("Accept-Encoding", reply.header("Vary"));
        assertEquals("text/javascript; charset=utf-8", reply.header("Content-Type"), "the type of the file");
        switch (expected) {
            case "br" -> {
                assertEquals("br", reply.header("Content-Encoding"));
                assertEquals("BROTLI", reply.text());
            }
            case "gzip" -> {
                assertEquals("gzip", reply.header("Content-Encoding"));
                assertTrue(java.util.Arrays.equals(gzip(SCRIPT), reply.body()));
            }
            default -> {
                assertNull(reply.header("Content-Encoding"));
                assertEquals(SCRIPT, reply.text());
            }
        }
    }

    @Test
    void withoutAcceptEncodingTheFileItselfIsSentWithVary() throws Exception {
        serveWithSiblings();
        Reply reply = get("/app.js");
        assertNull(reply.header("Content-Encoding"));
        assertEquals("Accept-Encoding", reply.header("Vary"));
        assertEquals(SCRIPT, reply.text());
    }

    @Test
    void eachCodingHasItsOwnEtag() throws Exception {
        serveWithSiblings();
        String identity = get("/app.js").header("ETag");
        String gzip = get("/app.js", "Accept-Encoding: gzip").header("ETag");
        String br = get("/app.js", "Accept-Encoding: br").header("ETag");
        assertTrue(gzip.endsWith("-gz\""), gzip);
        assertTrue(br.endsWith("-br\""), br);
        assertNotEquals(identity, gzip);
        // A 304 for the encoded one carries Vary and its own tag.
        Reply notModified = get("/app.js", "Accept-Encoding: br", "If-None-Match: " + br);
        assertEquals(304, notModified.status());
        assertEquals("Accept-Encoding", notModified.header("Vary"));
        assertEquals(br, notModified.header("ETag"));
        // The client's br copy is not the identity representation.
        assertEquals(200, get("/app.js", "If-None-Match: " + br).status());
    }

    @Test
    void headOfAnEncodedFileHasItsLengthAndCoding() throws Exception {
        serveWithSiblings();
        Reply reply = head("/app.js", "Accept-Encoding: gzip");
        assertEquals("gzip", reply.header("Content-Encoding"));
        assertEquals(Integer.toString(gzip(SCRIPT).length), reply.header("Content-Length"));
        assertEquals(0, reply.body().length);
    }

    @Test
    void aRangeOfAnEncodedFileCountsEncodedBytes() throws Exception {
        serveWithSiblings();
        Reply reply = get("/app.js", "Accept-Encoding: br", "Range: bytes=1-3");
        assertEquals(206, reply.status());
        assertEquals("br", reply.header("Content-Encoding"));
        assertEquals("bytes 1-3/6", reply.header("Content-Range"));
        assertEquals("ROT", reply.text());
    }

    @Test
    void severalRangesAreServedFromTheFileItself() throws Exception {
        serveWithSiblings();
        Reply reply = get("/app.js", "Accept-Encoding: br", "Range: bytes=0-1, 4-5");
        assertEquals(206, reply.status());
        assertNull(reply.header("Content-Encoding"));
        assertTrue(reply.header("Content-Type").startsWith("multipart/byteranges"));
        assertTrue(reply.text().contains("Content-Range: bytes 0-1/" + SCRIPT.length()), reply.text());
    }

    @Test
    void aSiblingOlderThanTheFileIsStaleAndNotServed() throws Exception {
        write("app.js", SCRIPT);
        write("app.js.gz", gzip("old version"));
        Files.setLastModifiedTime(root.resolve("app.js.gz"), FileTime.from(MODIFIED.minusSeconds(60)));
        start();
        Reply reply = get("/app.js", "Accept-Encoding: gzip");
        assertNull(reply.header("Content-Encoding"));
        assertNull(reply.header("Vary"), "no usable sibling");
        assertEquals(SCRIPT, reply.text());
    }

    @Test
    void aSymbolicLinkIsNotASibling() throws Exception {
        write("app.js", SCRIPT);
        Path outside = Files.write(tempDir.resolve("secret.gz"), "secret".getBytes(StandardCharsets.UTF_8));
        Files.setLastModifiedTime(outside, FileTime.from(MODIFIED));
        Files.createSymbolicLink(root.resolve("app.js.gz"), outside);
        start();
        Reply reply = get("/app.js", "Accept-Encoding: gzip");
        assertNull(reply.header("Content-Encoding"));
        assertEquals(SCRIPT, reply.text());
    }

    @Test
    void precompressedCanBeTurnedOff() throws Exception {
        write("app.js", SCRIPT);
        write("app.js.gz", gzip(SCRIPT));
        start(StaticFiles.builder(root).precompressed(false));
        Reply reply = get("/app.js", "Accept-Encoding: gzip");
        assertNull(reply.header("Content-Encoding"));
        assertNull(reply.header("Vary"));
    }

    @Test
    void theSiblingItselfCanBeDownloaded() throws Exception {
        serveWithSiblings();
        Reply reply = get("/app.js.gz");
        assertEquals("application/gzip", reply.header("Content-Type"));
        assertNull(reply.header("Content-Encoding"));
    }

    @Test
    void anIndexFileHasSiblingsToo() throws Exception {
        write("index.html", "<p>hi</p>");
        write("index.html.gz", gzip("<p>hi</p>"));
        start();
        Reply reply = get("/", "Accept-Encoding: gzip");
        assertEquals("gzip", reply.header("Content-Encoding"));
        assertEquals("text/html; charset=utf-8", reply.header("Content-Type"));
    }
}
