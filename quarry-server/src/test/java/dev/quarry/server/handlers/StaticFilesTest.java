package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Router;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Files, HEAD, methods, directories, index files and listings. */
class StaticFilesTest extends StaticFilesTestSupport {

    @Test
    void servesAFileWithTypeLengthValidatorsAndAcceptRanges() throws Exception {
        write("hello.txt", "Hello, files!\n");
        start();
        Reply reply = get("/hello.txt").assertFramed();
        assertEquals(200, reply.status());
        assertEquals("Hello, files!\n", reply.text());
        assertEquals("text/plain; charset=utf-8", reply.header("Content-Type"));
        assertEquals(MODIFIED_HTTP, reply.header("Last-Modified"));
        assertTrue(reply.header("ETag").matches("\"e-[0-9a-f]+\""), reply.header("ETag"));
        assertEquals("bytes", reply.header("Accept-Ranges"));
        assertNull(reply.header("Vary"), "no precompressed sibling: no Vary");
        assertNull(reply.header("Content-Encoding"));
    }

    @ParameterizedTest
    @CsvSource({
        "index.html, text/html; charset=utf-8",
        "style.css, text/css; charset=utf-8",
        "app.js, text/javascript; charset=utf-8",
        "module.mjs, text/javascript; charset=utf-8",
        "data.json, application/json",
        "logo.svg, image/svg+xml",
        "image.png, image/png",
        "photo.jpg, image/jpeg",
        "photo.JPEG, image/jpeg",
        "anim.gif, image/gif",
        "pic.webp, image/webp",
        "favicon.ico, image/x-icon",
        "notes.txt, text/plain; charset=utf-8",
        "feed.xml, application/xml",
        "doc.pdf, application/pdf",
        "code.wasm, application/wasm",
        "font.woff2, font/woff2",
        "movie.mp4, video/mp4",
        "archive.unknownext, application/octet-stream",
        "script.py, text/plain; charset=utf-8",
        "run.sh, text/plain; charset=utf-8",
        "main.c, text/plain; charset=utf-8",
        "main.h, text/plain; charset=utf-8",
        "Main.java, text/plain; charset=utf-8",
        "lib.rs, text/plain; charset=utf-8",
        "main.go, text/plain; charset=utf-8",
        "config.yaml, text/plain; charset=utf-8",
        "config.yml, text/plain; charset=utf-8",
        "Cargo.toml, text/plain; charset=utf-8",
        "setup.ini, text/plain; charset=utf-8",
        "nginx.conf, text/plain; charset=utf-8",
        "notes.md, text/plain; charset=utf-8",
        "table.csv, text/plain; charset=utf-8",
        "README, text/plain; charset=utf-8",
        "LICENSE, text/plain; charset=utf-8",
        "Makefile, text/plain; charset=utf-8",
        "Dockerfile, text/plain; charset=utf-8",
        "subtitles.vtt, text/vtt; charset=utf-8",
    })
    void contentTypeComesFromTheExtension(String name, String type) throws Exception {
        write(name, "x");
        start();
        HttpResponse<byte[]> response = httpClient()
                .build()
                .send(
                        HttpRequest.newBuilder(server.uri().resolve("/" + name)).build(),
                        HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, response.statusCode());
        assertEquals(type, response.headers().firstValue("content-type").orElseThrow());
    }

    @Test
    void aFileWithoutExtensionIsTextWhenItsFirstBytesAreUtf8Text() throws Exception {
        write("NOTES-fr", "Café, thé\n\tet gâteaux\n");
        write("big-notes", "line of text\n".repeat(4000)); // larger than the cached size: sniffed from the file
        write("program", new byte[] {0x7F, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0});
        write("latin1", new byte[] {'c', 'a', 'f', (byte) 0xE9, '\n'});
        write("empty", "");
        start();
        assertEquals("text/plain; charset=utf-8", get("/NOTES-fr").header("Content-Type"));
        assertEquals("text/plain; charset=utf-8", get("/big-notes").header("Content-Type"));
        assertEquals("application/octet-stream", get("/program").header("Content-Type"));
        assertEquals("application/octet-stream", get("/latin1").header("Content-Type"), "not UTF-8");
        assertEquals("text/plain; charset=utf-8", get("/empty").header("Content-Type"));
    }

    @Test
    void extraContentTypesCanBeConfigured() throws Exception {
        write("image.avif", "x");
        write("page.tmpl", "x");
        write("app.ts", "x");
        start(StaticFiles.builder(root)
                .mimeTypes(MimeTypes.defaults().with("TMPL", "text/html; charset=utf-8"))
                .mimeType("ts", "text/plain"));
        assertEquals("image/avif", get("/image.avif").header("Content-Type"));
        assertEquals("text/html; charset=utf-8", get("/page.tmpl").header("Content-Type"));
        assertEquals("text/plain; charset=utf-8", get("/app.ts").header("Content-Type"), "text gets its charset");
    }

    @Test
    void headHasTheHeadOfGetWithoutBody() throws Exception {
        write("page.html", "<p>hello</p>");
        start();
        Reply get = get("/page.html");
        Reply head = head("/page.html");
        assertEquals(200, head.status());
        assertEquals(0, head.body().length, "no body");
        Map<String, Object> getHeaders = new HashMap<>(get.headers());
        Map<String, Object> headHeaders = new HashMap<>(head.headers());
        getHeaders.remove("date");
        headHeaders.remove("date");
        assertEquals(getHeaders, headHeaders);
        assertEquals("12", head.header("Content-Length"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"POST", "PUT", "DELETE", "OPTIONS", "PATCH"})
    void otherMethodsAre405WithAllow(String method) throws Exception {
        write("a.txt", "a");
        start();
        Reply reply = request(method, "/a.txt", "Content-Length: 0");
        assertEquals(405, reply.status());
        assertEquals("GET, HEAD", reply.header("Allow"));
    }

    @Test
    void missingFilesAre404() throws Exception {
        start();
        assertEquals(404, get("/nope.txt").status());
        assertEquals(404, get("/no/such/dir/").status());
    }

    @Test
    void aFileAskedForAsADirectoryIs404() throws Exception {
        write("a.txt", "a");
        start();
        assertEquals(404, get("/a.txt/").status());
        assertEquals(404, get("/a.txt/index.html").status());
    }

    @Test
    void anEmptyFileIsServedWithLengthZero() throws Exception {
        write("empty.txt", "");
        start();
        Reply reply = get("/empty.txt").assertFramed();
        assertEquals(200, reply.status());
        assertEquals("0", reply.header("Content-Length"));
    }

    @Test
    void aDirectoryWithoutSlashRedirectsToItWithSlashKeepingTheQuery() throws Exception {
        write("docs/index.html", "docs");
        start();
        Reply reply = get("/docs?lang=en&x=%20");
        assertEquals(301, reply.status());
        assertEquals("/docs/?lang=en&x=%20", reply.header("Location"));
        Reply encoded = get("/my%20docs");
        assertEquals(404, encoded.status());
        Files.createDirectory(root.resolve("my docs"));
        assertEquals("/my%20docs/", get("/my%20docs").header("Location"), "the raw path, still encoded");
    }

    @Test
    void aRedirectNeverLeadsToAnotherHost() throws Exception {
        Files.createDirectory(root.resolve("evil.example"));
        start();
        Reply reply = get("//evil.example");
        assertEquals(301, reply.status());
        assertEquals("/evil.example/", reply.header("Location"));
    }

    @Test
    void aDirectoryServesItsIndexFile() throws Exception {
        write("index.html", "root index");
        write("docs/index.html", "docs index");
        start();
        Reply rootReply = get("/");
        assertEquals(200, rootReply.status());
        assertEquals("root index", rootReply.text());
        assertEquals("text/html; charset=utf-8", rootReply.header("Content-Type"));
        assertEquals("docs index", get("/docs/").text());
    }

    @Test
    void indexFilesAreTriedInOrder() throws Exception {
        write("a/index.htm", "htm");
        write("b/index.htm", "htm");
        write("b/default.txt", "default");
        start(StaticFiles.builder(root).indexFiles("default.txt", "index.htm"));
        assertEquals("htm", get("/a/").text());
        assertEquals("default", get("/b/").text());
    }

    @Test
    void aDirectoryWithoutIndexIs403WhenListingIsOff() throws Exception {
        write("docs/a.txt", "a");
        start();
        assertEquals(403, get("/docs/").status());
        assertEquals(403, get("/").status());
    }

    @Test
    void aListingShowsDirectoriesFirstThenFilesSortedWithSizes() throws Exception {
        write("dir/b.txt", "bb");
        write("dir/a.txt", "a");
        write("dir/z/inner.txt", "z");
        write("dir/.secret", "hidden");
        start(StaticFiles.builder(root).directoryListing(true));
        Reply reply = get("/dir/").assertFramed();
        assertEquals(200, reply.status());
        assertEquals("text/html; charset=utf-8", reply.header("Content-Type"));
        String page = reply.text();
        int z = page.indexOf("href=\"z/\"");
        int a = page.indexOf("href=\"a.txt\"");
        int b = page.indexOf("href=\"b.txt\"");
        assertTrue(z > 0 && z < a && a < b, page);
        assertTrue(page.contains("href=\"../\""), "a link to the parent");
        assertTrue(page.contains("<td class=\"n\" title=\"2 bytes\">2 B</td>"), "the size of b.txt: " + page);
        assertFalse(page.contains("secret"), "hidden files are not listed");
        assertTrue(page.contains("<title>Index of /dir/</title>"), page);
    }

    @Test
    void aListingShowsSizesForPeopleWithTheExactCountOnHover() throws Exception {
        write("dir/one.txt", "1");
        write("dir/small.bin", new byte[1229]);
        write("dir/large.bin", new byte[3565158]);
        start(StaticFiles.builder(root).directoryListing(true));
        String page = get("/dir/").text();
        assertTrue(page.contains("title=\"1 byte\">1 B<"), page);
        assertTrue(page.contains("title=\"1229 bytes\">1.2 KiB<"), page);
        assertTrue(page.contains("title=\"3565158 bytes\">3.4 MiB<"), page);
    }

    @ParameterizedTest
    @CsvSource({
        "0, 0 B",
        "1023, 1023 B",
        "1024, 1.0 KiB",
        "1536, 1.5 KiB",
        "1048524, 1023.9 KiB",
        "1048575, 1.0 MiB",
        "1073741824, 1.0 GiB",
        "9223372036854775807, 8.0 EiB"
    })
    void humanSizesUseBinaryUnitsWithOneDecimal(long bytes, String expected) {
        assertEquals(expected, DirectoryListing.humanSize(bytes));
    }

    @Test
    void aDirectoryWithoutIndexExplainsWhyItIs403() throws Exception {
        write("docs/a.txt", "a");
        start(StaticFiles.builder(root).listingOffHint("Start it with --listing."));
        Reply reply = get("/docs/").assertFramed();
        assertEquals(403, reply.status());
        assertEquals(
                "403 Forbidden\n\nThis directory has no index file (index.html) and directory listing is off.\n"
                        + "Start it with --listing.\n",
                reply.text());
    }

    @Test
    void aListingEscapesNamesInTextAndLinks() throws Exception {
        String name = "<script>&\"'.txt";
        write("dir/" + name, "x");
        write("dir/javascript:alert(1)", "x");
        start(StaticFiles.builder(root).directoryListing(true));
        String page = get("/dir/").text();
        assertFalse(page.contains("<script>"), "no markup from a file name");
        assertTrue(page.contains(">&lt;script&gt;&amp;&quot;&#39;.txt</a>"), page);
        assertTrue(page.contains("href=\"%3Cscript%3E%26%22%27.txt\""), page);
        assertTrue(page.contains("href=\"javascript%3Aalert%281%29\""), "no scheme in a link: " + page);
        // And the link works.
        Reply file = get("/dir/%3Cscript%3E%26%22%27.txt");
        assertEquals(200, file.status());
        assertEquals("x", file.text());
    }

    @Test
    void aFileWithAPercentSignInItsNameIsServedAndItsListedLinkWorks() throws Exception {
        write("dir/100%.txt", "all of it");
        write("dir/50% off/sale.txt", "sale");
        start(StaticFiles.builder(root).directoryListing(true));
        Reply file = get("/dir/100%25.txt");
        assertEquals(200, file.status(), file.toString());
        assertEquals("all of it", file.text());
        String page = get("/dir/").text();
        assertTrue(page.contains("href=\"100%25.txt\""), page);
        assertTrue(page.contains("href=\"50%25%20off/\""), page);
        assertEquals("sale", get("/dir/50%25%20off/sale.txt").text());
        assertEquals(200, get("/dir/50%25%20off/").status(), "the link of the listed directory");
    }

    @Test
    void aPercentSignBeforeTwoHexDigitsStaysAmbiguous() throws Exception {
        write("50%41.txt", "x");
        start();
        // "%2541" decodes to "%41", which a second decoder would read as "A": the server refuses it by default.
        assertEquals(400, get("/50%2541.txt").status());
    }

    @Test
    void aListingEscapesTheRequestPathInItsTitle() throws Exception {
        Files.createDirectories(root.resolve("a&b"));
        start(StaticFiles.builder(root).directoryListing(true));
        String page = get("/a&b/").text();
        assertTrue(page.contains("<title>Index of /a&amp;b/</title>"), page);
    }

    @Test
    void aListingAnswersHeadWithoutBody() throws Exception {
        write("dir/a.txt", "a");
        start(StaticFiles.builder(root).directoryListing(true));
        Reply get = get("/dir/");
        Reply head = head("/dir/");
        assertEquals(200, head.status());
        assertEquals(0, head.body().length);
        assertEquals(get.header("Content-Length"), head.header("Content-Length"));
    }

    @Test
    void cacheControlIsSentWhenConfigured() throws Exception {
        write("a.css", "a");
        start(StaticFiles.builder(root).cacheControl("public, max-age=3600"));
        assertEquals("public, max-age=3600", get("/a.css").header("Cache-Control"));
        String etag = get("/a.css").header("ETag");
        assertEquals(
                "public, max-age=3600", get("/a.css", "If-None-Match: " + etag).header("Cache-Control"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "no-cache\r\nSet-Cookie: x=1", "max-age=\u00e9"})
    void aCacheControlThatIsNotAFieldValueIsRefused(String value) {
        IllegalArgumentException x = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> StaticFiles.builder(root).cacheControl(value));
        assertTrue(x.getMessage().contains("Cache-Control"), x.getMessage());
    }

    @Test
    void underARouteItServesWhatTheWildcardMatched() throws Exception {
        write("app.js", "js");
        write("index.html", "index");
        StaticFiles handler = StaticFiles.of(root);
        Router router = new Router()
                .route("GET /static/*", handler)
                .route(
                        "GET /hello",
                        AsyncHandler.nonBlocking((req, res, cb) ->
                                res.write(true, java.nio.ByteBuffer.wrap("hi".getBytes(StandardCharsets.UTF_8)), cb)));
        startServer(router, b -> b);
        assertEquals("js", get("/static/app.js").text());
        assertEquals("index", get("/static/").text());
        Reply redirect = get("/static");
        assertEquals(301, redirect.status());
        assertEquals("/static/", redirect.header("Location"));
        assertEquals("hi", get("/hello").text());
        assertEquals(404, get("/static/hello").status());
    }

    @Test
    void theJdkClientDownloadsFilesOverOneConnection() throws Exception {
        byte[] small = "small".getBytes(StandardCharsets.UTF_8);
        byte[] large = new byte[300_000];
        new java.util.Random(1).nextBytes(large);
        write("small.bin", small);
        write("large.bin", large);
        start();
        HttpClient client = httpClient().version(HttpClient.Version.HTTP_1_1).build();
        for (int i = 0; i < 3; i++) {
            for (String name : new String[] {"small.bin", "large.bin"}) {
                HttpResponse<byte[]> response = client.send(
                        HttpRequest.newBuilder(URI.create(server.uri() + name)).build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                assertEquals(200, response.statusCode());
                assertArrayEquals(name.equals("small.bin") ? small : large, response.body(), name);
            }
        }
        assertEquals(1, server.statistics().http1Connections(), "one persistent connection");
    }

    @Test
    void toStringAndDumpDescribeTheConfiguration() throws Exception {
        StaticFiles handler = StaticFiles.builder(root).directoryListing(true).build();
        assertTrue(handler.toString().contains("listing=true"), handler.toString());
        assertTrue(handler.dump().contains("FileCache"), handler.dump());
    }
}
