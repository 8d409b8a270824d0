package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.quarry.http.BadMessageException;
import dev.quarry.http.UriCompliance;
import dev.quarry.http.UriPath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;

/**
 * Coverage-guided fuzz target for the file resolver (Jazzer), replayed from
 * {@code src/test/resources/dev/quarry/server/handlers/FileResolverJazzerTestInputs/} by {@code mvn verify}.
 *
 * <p>The resolver serves a temporary tree built once per JVM: files, a hidden directory and a hidden file, a sibling
 * directory outside the root whose name starts like the root's, and symbolic links that point inside, outside, and at
 * themselves. Input layout: byte 0 holds flags (bit 0: hidden names are served; bit 1: the rest is a raw request path
 * that {@link UriPath} decodes first, with every ambiguity allowed, else it is the decoded path itself), the rest is
 * the path in UTF-8.
 */
class FileResolverJazzerTest {

    /** The tree, built on first use: a fuzzing run calls the target millions of times. */
    private static final class Tree {
        static final Path BASE;
        static final Path ROOT;
        static final Path OUTSIDE;
        static final FileResolver STRICT;
        static final FileResolver HIDDEN;

        static {
            try {
                BASE = Files.createTempDirectory("quarry-fuzz-files").toRealPath();
                ROOT = Files.createDirectories(BASE.resolve("root"));
                OUTSIDE = Files.createDirectories(BASE.resolve("root-outside"));
                Files.writeString(OUTSIDE.resolve("secret.txt"), "outside");
                Files.writeString(ROOT.resolve("index.html"), "<p>index</p>");
                Files.createDirectories(ROOT.resolve("a/c"));
                Files.writeString(ROOT.resolve("a/b.txt"), "b");
                Files.writeString(ROOT.resolve("a/b.txt.gz"), "not really gzip");
                Files.createDirectories(ROOT.resolve(".hidden"));
                Files.writeString(ROOT.resolve(".hidden/secret.txt"), "hidden");
                Files.createDirectories(ROOT.resolve("a/.git"));
                Files.writeString(ROOT.resolve("a/.git/config"), "hidden");
                Files.writeString(ROOT.resolve("a/.env"), "hidden");
                Files.writeString(ROOT.resolve("noext"), "plain text");
                Files.createSymbolicLink(ROOT.resolve("link-out"), Path.of("../root-outside"));
                Files.createSymbolicLink(ROOT.resolve("a/file-out"), Path.of("../../root-outside/secret.txt"));
                Files.createSymbolicLink(ROOT.resolve("a/up"), Path.of(".."));
                Files.createSymbolicLink(ROOT.resolve("a/in"), Path.of("b.txt"));
                Files.createSymbolicLink(ROOT.resolve("to-hidden"), Path.of(".hidden"));
                Files.createSymbolicLink(ROOT.resolve("loop"), Path.of("loop"));
                Files.createSymbolicLink(ROOT.resolve("absolute-out"), OUTSIDE);
                STRICT = new FileResolver(ROOT, false, true, 4096, MimeTypes.defaults(), -1, 0);
                HIDDEN = new FileResolver(ROOT, true, true, 4096, MimeTypes.defaults(), 16, 1 << 20);
            } catch (IOException x) {
                throw new UncheckedIOException(x);
            }
        }
    }

    private static final UriCompliance ALL = UriCompliance.of("ALL", EnumSet.allOf(UriCompliance.Violation.class));

    /**
     * Any path: the key is null or canonical and free of dot segments, NUL and backslashes (and of hidden names unless
     * served); what it resolves to, through any link, is a real path under the root (and not hidden unless served).
     */
    @FuzzTest
    void resolvedFilesStayUnderTheRoot(byte[] input) {
        if (input.length < 1) {
            return;
        }
        FileResolver resolver = (input[0] & 1) != 0 ? Tree.HIDDEN : Tree.STRICT;
        String path = new String(input, 1, input.length - 1, StandardCharsets.UTF_8);
        if ((input[0] & 2) != 0) {
            try {
                path = UriPath.decode(path, ALL);
            } catch (BadMessageException rejected) {
                return;
            }
        }
        String key = resolver.key(path);
        if (key == null) {
            return;
        }
        checkKey(key, resolver.serveHidden());
        Lookup lookup = resolver.resolve(key, null);
        switch (lookup) {
            case StaticResource resource -> {
                checkServable(resolver, resource.identity.path, key);
                if (resource.gzip != null) {
                    checkServable(resolver, resource.gzip.path, key);
                }
            }
            case Lookup.Directory directory -> checkServable(resolver, directory.path(), key);
            case Lookup.Missing missing -> {}
        }
        Path directory = resolver.directory(key);
        if (directory != null) {
            checkServable(resolver, directory, key);
        }
    }

    private static void checkKey(String key, boolean serveHidden) {
        if (key.isEmpty()) {
            return;
        }
        assertFalse(key.startsWith("/") || key.endsWith("/") || key.contains("//"), key);
        for (String segment : key.split("/", -1)) {
            assertFalse(segment.equals(".") || segment.equals(".."), key);
            assertFalse(segment.indexOf('\0') >= 0 || segment.indexOf('\\') >= 0, key);
            assertTrue(serveHidden || !segment.startsWith("."), key);
        }
    }

    private static void checkServable(FileResolver resolver, Path path, String key) {
        Path real;
        try {
            real = path.toRealPath();
        } catch (IOException x) {
            fail("served a path that does not resolve: " + path + " for '" + key + "'", x);
            return;
        }
        assertEquals(real, path, "served paths are real paths");
        assertTrue(real.startsWith(Tree.ROOT), () -> "escaped the root: " + real + " for '" + key + "'");
        if (!resolver.serveHidden()) {
            for (Path name : Tree.ROOT.relativize(real)) {
                assertFalse(name.toString().startsWith("."), () -> "served hidden " + real + " for '" + key + "'");
            }
        }
    }
}
