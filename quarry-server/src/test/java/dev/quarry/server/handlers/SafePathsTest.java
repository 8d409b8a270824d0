package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quarry.http.UriCompliance;
import dev.quarry.http.h1.HttpParserConfig;
import dev.quarry.server.HttpConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Nothing outside the root, and nothing hidden, is ever served: whatever the target, through the server's own checks
 * (400) or the handler's (404).
 */
class SafePathsTest extends StaticFilesTestSupport {
    private static final String SECRET = "TOP-SECRET-CONTENT";

    private Path outside;

    @BeforeEach
    void createFilesOutsideTheRoot() throws IOException {
        outside = Files.createDirectory(tempDir.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), SECRET);
        Files.writeString(tempDir.resolve("secret.txt"), SECRET);
        write("public.txt", "public");
        write("dir/inside.txt", "inside");
    }

    private void assertRefused(Reply reply, int status) {
        assertEquals(status, reply.status(), reply.toString());
        assertFalse(reply.text().contains(SECRET), "the secret leaked");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/../secret.txt",
                "/dir/../../secret.txt",
                "/%2e%2e/secret.txt",
                "/.%2e/secret.txt",
                "/%2e%2e%2fsecret.txt",
                "/dir%2f..%2f..%2fsecret.txt",
                "/..%5csecret.txt",
                "/public.txt%00.html",
                "/..;/secret.txt",
                "http://localhost/../secret.txt",
            })
    void ambiguousTargetsAreRejectedByTheServerBeforeTheHandler(String target) throws Exception {
        start();
        assertRefused(get(target), 400);
    }

    @Test
    void rawBackslashesAndControlCharactersAreRejected() throws Exception {
        start();
        assertRefused(exchange("GET /..\\secret.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 400);
        assertRefused(exchange("GET /public.txt\0 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 400);
    }

    /** A server configured to let ambiguous paths through: the handler must still refuse them. */
    private void startLenient() throws IOException {
        UriCompliance lenient = UriCompliance.STRICT.with(
                UriCompliance.Violation.ENCODED_SLASH,
                UriCompliance.Violation.BACKSLASH,
                UriCompliance.Violation.ENCODED_DOT_SEGMENT,
                UriCompliance.Violation.DOT_SEGMENT_WITH_PARAMETER,
                UriCompliance.Violation.ENCODED_CONTROL_CHARACTER);
        HttpConfig config = new HttpConfig(
                Optional.of("quarry"),
                true,
                HttpParserConfig.DEFAULT,
                lenient,
                16 * 1024,
                32 * 1024,
                64 * 1024,
                HttpConfig.DEFAULT.headerTimeout(),
                HttpConfig.DEFAULT.minRequestBodyRate());
        start(StaticFiles.builder(root), b -> b.httpConfig(config));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/dir%2f..%2f..%2fsecret.txt",
                "/%2e%2e%2fsecret.txt",
                "/..%2f..%2fsecret.txt",
                "/%5c..%5csecret.txt",
                "/dir%5c..%5c..%5csecret.txt",
                "/dir%2f.%2f..%2f..%2fsecret.txt",
            })
    void theHandlerRefusesWhatALenientServerLetsThrough(String target) throws Exception {
        startLenient();
        assertRefused(get(target), 404);
    }

    @Test
    void aLenientServerStillServesOrdinaryFiles() throws Exception {
        startLenient();
        assertEquals("inside", get("/dir/inside.txt").text());
        assertEquals("inside", get("/dir%2finside.txt").text(), "an encoded slash names the same file");
    }

    @Test
    void aSymbolicLinkToAFileOutsideTheRootIsNotFound() throws Exception {
        Files.createSymbolicLink(root.resolve("link.txt"), outside.resolve("secret.txt"));
        start();
        assertRefused(get("/link.txt"), 404);
        assertRefused(head("/link.txt"), 404);
    }

    @Test
    void aSymbolicLinkToADirectoryOutsideTheRootIsNotFollowed() throws Exception {
        Files.createSymbolicLink(root.resolve("escape"), outside);
        write("dir/index.html", "x");
        Files.createSymbolicLink(root.resolve("dir/up"), Path.of("../.."));
        start(StaticFiles.builder(root).directoryListing(true));
        assertRefused(get("/escape/secret.txt"), 404);
        assertRefused(get("/escape/"), 404);
        assertRefused(get("/escape"), 404);
        assertRefused(get("/dir/up/secret.txt"), 404);
        assertRefused(get("/dir/up/outside/secret.txt"), 404);
    }

    @Test
    void aSymbolicLinkInsideTheRootIsServed() throws Exception {
        Files.createSymbolicLink(root.resolve("alias.txt"), Path.of("dir/inside.txt"));
        Files.createSymbolicLink(root.resolve("alias"), Path.of("dir"));
        start();
        Reply reply = get("/alias.txt");
        assertEquals(200, reply.status());
        assertEquals("inside", reply.text());
        assertEquals("text/plain; charset=utf-8", reply.header("Content-Type"));
        assertEquals("inside", get("/alias/inside.txt").text());
    }

    @Test
    void aRootThatIsASymbolicLinkIsServed() throws Exception {
        Path link = Files.createSymbolicLink(tempDir.resolve("www-link"), root);
        start(StaticFiles.builder(link));
        assertEquals("public", get("/public.txt").text());
        assertEquals(root.toRealPath(), files.root());
    }

    @Test
    void aListingOmitsLinksThatLeaveTheRoot() throws Exception {
        Files.createSymbolicLink(root.resolve("dir/escape.txt"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(root.resolve("dir/broken.txt"), root.resolve("nothing"));
        Files.createSymbolicLink(root.resolve("dir/fine.txt"), root.resolve("public.txt"));
        start(StaticFiles.builder(root).directoryListing(true));
        String page = get("/dir/").text();
        assertFalse(page.contains("escape.txt"), page);
        assertFalse(page.contains("broken.txt"), page);
        assertTrue(page.contains("fine.txt"), page);
    }

    @Test
    void aListingShowsLinksInsideTheRootAsTheyAreServed() throws Exception {
        Files.createSymbolicLink(root.resolve("dir/alias.txt"), Path.of("inside.txt"));
        Files.createSymbolicLink(root.resolve("dir/up.txt"), Path.of("../public.txt"));
        Files.createSymbolicLink(root.resolve("dir/self"), Path.of("."));
        Files.createSymbolicLink(root.resolve("dir/escape.txt"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(root.resolve("dir/out"), outside);
        start(StaticFiles.builder(root).directoryListing(true));
        String page = get("/dir/").text();
        // Links inside the root: listed with the kind and size of their target, and each link is served.
        assertTrue(page.contains("href=\"alias.txt\""), page);
        assertTrue(page.contains("href=\"up.txt\""), page);
        assertTrue(page.contains("href=\"self/\""), "a link to a directory is listed as one: " + page);
        assertEquals("inside", get("/dir/alias.txt").text());
        assertEquals("public", get("/dir/up.txt").text());
        assertEquals(200, get("/dir/self/").status());
        assertEquals("inside", get("/dir/self/inside.txt").text());
        // Links that leave it: neither listed nor served.
        assertFalse(page.contains("escape.txt"), page);
        assertFalse(page.contains("out/"), page);
        assertRefused(get("/dir/escape.txt"), 404);
        assertRefused(get("/dir/out/"), 404);
        assertRefused(get("/dir/out/secret.txt"), 404);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/.env", "/.git/config", "/dir/.hidden", "/.well-known/x", "/.git/", "/.git"})
    void hiddenNamesAreNotFound(String target) throws Exception {
        write(".env", "KEY=" + SECRET);
        write(".git/config", SECRET);
        write("dir/.hidden", SECRET);
        write(".well-known/x", SECRET);
        start(StaticFiles.builder(root).directoryListing(true));
        assertRefused(get(target), 404);
    }

    @Test
    void aVisibleLinkToAHiddenFileIsNotFound() throws Exception {
        write(".env", SECRET);
        Files.createSymbolicLink(root.resolve("env.txt"), Path.of(".env"));
        start();
        assertRefused(get("/env.txt"), 404);
    }

    @Test
    void hiddenFilesCanBeServedWhenAllowed() throws Exception {
        write(".well-known/security.txt", "contact");
        start(StaticFiles.builder(root).serveHiddenFiles(true));
        assertEquals("contact", get("/.well-known/security.txt").text());
    }

    @Test
    void aNamedPipeIsNotServedNorOpened() throws Exception {
        Path fifo = root.resolve("fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assumeTrue(mkfifo.waitFor() == 0, "mkfifo is not available");
        start();
        // Opening a pipe with no writer would block the selector thread: it must be refused before that.
        assertRefused(get("/fifo"), 404);
        assertEquals("public", get("/public.txt").text());
    }
}
