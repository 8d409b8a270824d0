package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The cache of small hot files: hits, freshness, invalidation, eviction. */
class FileCacheTest extends StaticFilesTestSupport {
    private static final Duration LONG = Duration.ofHours(1);

    @Test
    void aSmallFileIsServedFromMemoryAfterTheFirstRequest() throws Exception {
        write("a.txt", "first");
        start(StaticFiles.builder(root).revalidateAfter(LONG));
        assertEquals("first", get("/a.txt").text());
        assertEquals("first", get("/a.txt").text());
        CacheStatistics stats = files.cacheStatistics();
        assertEquals(1, stats.misses());
        assertEquals(1, stats.hits());
        assertEquals(1, stats.entries());
        assertEquals(StaticResource.OVERHEAD + 5, stats.bytes());
        assertEquals(0, server.statistics().fileTransfers(), "from memory, not from the file");
        // Within the interval the file system is not asked: a change is not seen yet.
        write("a.txt", "changed!");
        assertEquals("first", get("/a.txt").text());
    }

    @Test
    void aModifiedFileIsSeenWhenItIsCheckedAgain() throws Exception {
        Path file = write("a.txt", "first");
        start(StaticFiles.builder(root).revalidateAfter(Duration.ZERO));
        Reply before = get("/a.txt");
        Files.writeString(file, "second version");
        Reply after = get("/a.txt");
        assertEquals("second version", after.text());
        assertNotEquals(before.header("ETag"), after.header("ETag"));
        assertEquals(1, files.cacheStatistics().invalidations());
    }

    @Test
    void aChangeOfModificationTimeAloneIsSeen() throws Exception {
        Path file = write("a.txt", "aaaa");
        start(StaticFiles.builder(root).revalidateAfter(Duration.ZERO));
        String etag = get("/a.txt").header("ETag");
        Files.writeString(file, "bbbb");
        Files.setLastModifiedTime(file, FileTime.from(MODIFIED.plusSeconds(1)));
        Reply after = get("/a.txt");
        assertEquals("bbbb", after.text());
        assertNotEquals(etag, after.header("ETag"));
    }

    @Test
    void aFileReplacedByAnotherWithTheSameSizeAndTimeIsSeen() throws Exception {
        write("a.txt", "aaaa");
        start(StaticFiles.builder(root).revalidateAfter(Duration.ZERO));
        assertEquals("aaaa", get("/a.txt").text());
        // A deployment that preserves times (cp -p, rsync -t) and renames into place: only the inode differs.
        Path replacement = Files.writeString(tempDir.resolve("new.txt"), "bbbb");
        Files.setLastModifiedTime(replacement, FileTime.from(MODIFIED));
        Files.move(replacement, root.resolve("a.txt"), StandardCopyOption.ATOMIC_MOVE);
        assertEquals("bbbb", get("/a.txt").text());
    }

    @Test
    void aDeletedFileIsNotFoundWhenCheckedAgain() throws Exception {
        Path file = write("a.txt", "a");
        start(StaticFiles.builder(root).revalidateAfter(Duration.ZERO));
        assertEquals(200, get("/a.txt").status());
        Files.delete(file);
        assertEquals(404, get("/a.txt").status());
        assertEquals(0, files.cacheStatistics().entries());
    }

    @Test
    void anUnchangedFileStaysCachedWhenCheckedAgain() throws Exception {
        write("a.txt", "a");
        start(StaticFiles.builder(root).revalidateAfter(Duration.ZERO));
        for (int i = 0; i < 3; i++) {
            assertEquals("a", get("/a.txt").text());
        }
        CacheStatistics stats = files.cacheStatistics();
        assertEquals(1, stats.misses());
        assertEquals(2, stats.hits());
        assertEquals(0, stats.invalidations());
    }

    @Test
    void aLargerFileOpenedPerRequestWhoseSizeChangedIsReloadedAtOnce() throws Exception {
        Path file = write("big.txt", "x".repeat(50_000));
        start(StaticFiles.builder(root)
                .revalidateAfter(LONG)
                .maxCachedFileSize(1024)
                .maxOpenFiles(0));
        assertEquals(50_000, get("/big.txt").body().length);
        Files.writeString(file, "y".repeat(60_000));
        Reply reply = get("/big.txt").assertFramed();
        assertEquals(60_000, reply.body().length, "the size is checked when the file is opened");
        assertTrue(reply.text().startsWith("yyy"));
    }

    @Test
    void aFileKeptOpenThatIsRewrittenInPlaceIsSeenWhenCheckedAgain() throws Exception {
        Path file = write("big.txt", "x".repeat(50_000));
        // Trusted for revalidateAfter like every entry (no fstat per send): zero here, so checked on every request.
        start(StaticFiles.builder(root).revalidateAfter(Duration.ZERO).maxCachedFileSize(1024));
        assertEquals(50_000, get("/big.txt").body().length);
        Files.writeString(file, "y".repeat(60_000));
        Reply reply = get("/big.txt").assertFramed();
        assertEquals(60_000, reply.body().length);
        assertTrue(reply.text().startsWith("yyy"));
    }

    @Test
    void aSiblingThatAppearsIsSeenWhenCheckedAgain() throws Exception {
        write("app.js", "js");
        start(StaticFiles.builder(root).revalidateAfter(Duration.ZERO));
        assertNull(get("/app.js", "Accept-Encoding: gzip").header("Content-Encoding"));
        write("app.js.gz", new byte[] {31, -117, 8, 0});
        assertEquals("gzip", get("/app.js", "Accept-Encoding: gzip").header("Content-Encoding"));
    }

    @Test
    void theCacheCanBeTurnedOff() throws Exception {
        Path file = write("a.txt", "first");
        start(StaticFiles.builder(root).maxCacheSize(0));
        assertEquals("first", get("/a.txt").text());
        Files.writeString(file, "second");
        assertEquals("second", get("/a.txt").text());
        assertEquals(0, files.cacheStatistics().entries());
        if (!overTls()) { // over TLS files are read and encrypted, never transferred zero-copy
            assertEquals(2, server.statistics().fileTransfers(), "no bytes in memory: every file is transferred");
        }
    }

    @Test
    void theCacheStaysWithinItsBound() throws Exception {
        for (int i = 0; i < 20; i++) {
            write("f" + i + ".txt", "z".repeat(1000));
        }
        long bound = 4 * (StaticResource.OVERHEAD + 1000);
        start(StaticFiles.builder(root).maxCacheSize(bound));
        for (int i = 0; i < 20; i++) {
            assertEquals(1000, get("/f" + i + ".txt").body().length);
        }
        CacheStatistics stats = files.cacheStatistics();
        assertTrue(stats.bytes() <= bound, stats.toString());
        assertEquals(4, stats.entries());
        assertEquals(16, stats.evictions());
    }

    // --- the CLOCK policy, on the cache itself ---

    private StaticResource resource(FileResolver resolver, String name) throws Exception {
        write(name, "z".repeat(1000));
        return (StaticResource) resolver.resolve(name, null);
    }

    @Test
    void aRecentlyUsedEntryGetsASecondChance() throws Exception {
        FileResolver resolver = new FileResolver(root.toRealPath(), false, false, 4096, MimeTypes.defaults(), -1, 0);
        FileCache cache = new FileCache(3L * (StaticResource.OVERHEAD + 1000), 0);
        StaticResource a = resource(resolver, "a");
        StaticResource b = resource(resolver, "b");
        cache.put(a);
        cache.put(b);
        cache.put(resource(resolver, "c"));
        assertSame(a, cache.get("a")); // referenced
        cache.put(resource(resolver, "d")); // the hand spares a, evicts b
        assertSame(a, cache.get("a"));
        assertNull(cache.get("b"));
        assertNotNull(cache.get("c"));
        assertNotNull(cache.get("d"));
        assertEquals(1, cache.statistics().evictions());
        assertTrue(cache.toString().contains("3 entries"), cache.toString());
    }

    @Test
    void anEntryLargerThanTheWholeCacheIsNotCached() throws Exception {
        FileResolver resolver = new FileResolver(root.toRealPath(), false, false, 4096, MimeTypes.defaults(), -1, 0);
        FileCache cache = new FileCache(1000, 0);
        cache.put(resource(resolver, "a"));
        assertNull(cache.get("a"));
        assertEquals(0, cache.statistics().bytes());
    }

    @Test
    void aVersionTooBigToCacheReplacesTheCachedOne() throws Exception {
        FileResolver resolver = new FileResolver(root.toRealPath(), false, false, 4096, MimeTypes.defaults(), -1, 0);
        FileCache cache = new FileCache(StaticResource.OVERHEAD + 1500, 0);
        StaticResource small = resource(resolver, "a");
        cache.put(small);
        assertSame(small, cache.get("a"));
        write("a", "z".repeat(2000));
        cache.put((StaticResource) resolver.resolve("a", small));
        assertNull(cache.get("a"), "the old version is gone");
        assertEquals(0, cache.statistics().bytes());
        assertEquals(0, cache.statistics().entries());
    }
}
