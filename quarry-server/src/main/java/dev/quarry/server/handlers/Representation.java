package dev.quarry.server.handlers;

import dev.quarry.http.HttpHeader;
import dev.quarry.http.PreEncodedHttpField;
import dev.quarry.server.internal.DateField;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * One file that can answer a request: the file itself, or a precompressed sibling ({@code .br}, {@code .gz}) with its
 * content coding. Holds its validators, pre-encoded, and its bytes when small enough to be cached.
 *
 * <p>The entity tag is strong, {@code "<size hex>-<mtime ns hex>[-br|-gz|-gzip]"}: strong because byte ranges and
 * If-Range need a strong validator (RFC 9110 §13.1.5) and the bytes served are exactly the file's; derived from size
 * and modification time like nginx's, so that no content is hashed; the coding suffix gives each representation its
 * own tag (§8.8.3): {@code -br} and {@code -gz} for precompressed siblings (from the sibling's own size and time),
 * {@code -gzip} for the file compressed on the fly (from the file's). Caveat, shared with nginx: a change that keeps both size and modification time (to the nanosecond, on
 * file systems that keep them) is not seen.
 *
 * <p>Thread-safety: immutable but for the {@link OpenFile} the cache may keep for it (volatile; set and cleared under
 * the cache's lock, read lock-free). The content array is never written after construction.
 */
final class Representation {
    final Path path;
    final String coding;
    final long size;
    final long modifiedNanos;
    final long modifiedSeconds;
    final Object fileKey;
    final String etag;
    final PreEncodedHttpField etagField;
    final PreEncodedHttpField lastModifiedField;
    final PreEncodedHttpField contentEncodingField;
    final byte[] content;
    // The file kept open while the resource is cached (see FileCache#keepOpen), or null.
    private volatile OpenFile openFile;

    private Representation(
            Path path,
            String coding,
            long size,
            long modifiedNanos,
            Object fileKey,
            String etag,
            PreEncodedHttpField etagField,
            PreEncodedHttpField lastModifiedField,
            byte[] content) {
        this.path = path;
        this.coding = coding;
        this.size = size;
        this.modifiedNanos = modifiedNanos;
        this.modifiedSeconds = Math.floorDiv(modifiedNanos, 1_000_000_000L);
        this.fileKey = fileKey;
        this.etag = etag;
        this.etagField = etagField;
        this.lastModifiedField = lastModifiedField;
        this.contentEncodingField =
                coding == null ? null : new PreEncodedHttpField(HttpHeader.CONTENT_ENCODING, coding);
        this.content = content;
    }

    /**
     * @param path the file's real path
     * @param attributes its attributes
     * @param coding {@code "br"}, {@code "gzip"} or null for the file itself
     */
    static Representation of(Path path, BasicFileAttributes attributes, String coding) {
        long size = attributes.size();
        long nanos = attributes.lastModifiedTime().to(TimeUnit.NANOSECONDS);
        String suffix = coding == null ? "" : coding.equals("gzip") ? "-gz" : "-" + coding;
        String etag = "\"" + Long.toHexString(size) + "-" + Long.toHexString(nanos) + suffix + "\"";
        long seconds = Math.floorDiv(nanos, 1_000_000_000L);
        String lastModified = DateField.format(ZonedDateTime.ofInstant(Instant.ofEpochSecond(seconds), ZoneOffset.UTC));
        return new Representation(
                path,
                coding,
                size,
                nanos,
                attributes.fileKey(),
                etag,
                new PreEncodedHttpField(HttpHeader.ETAG, etag),
                new PreEncodedHttpField(HttpHeader.LAST_MODIFIED, lastModified),
                null);
    }

    /** @return this representation holding {@code bytes}, which must be the whole file */
    Representation withContent(byte[] bytes) {
        if (bytes.length != size) {
            throw new IllegalArgumentException(
                    "content of " + bytes.length + " bytes for " + path + " of " + size + " bytes");
        }
        return new Representation(
                path, coding, size, modifiedNanos, fileKey, etag, etagField, lastModifiedField, bytes);
    }

    /**
     * @param gzipped this file's content compressed with gzip
     * @return the representation that sends them, with {@code Content-Encoding: gzip} and this tag suffixed
     *     {@code -gzip}
     */
    Representation gzipped(byte[] gzipped) {
        String tag = etag.substring(0, etag.length() - 1) + "-gzip\"";
        return new Representation(
                path,
                "gzip",
                gzipped.length,
                modifiedNanos,
                fileKey,
                tag,
                new PreEncodedHttpField(HttpHeader.ETAG, tag),
                lastModifiedField,
                gzipped);
    }

    /**
     * Takes a reference to the file the cache keeps open for this representation, if it does. Lock-free, allocation-free
     * and without a system call, so that it may run on a selector.
     *
     * @return the open file, acquired (the caller releases it when its send is done), or null
     */
    OpenFile acquireOpenFile() {
        OpenFile current = openFile;
        return current != null && current.acquire() ? current : null;
    }

    /** @return the file the cache keeps open for this representation, or null (for tests) */
    OpenFile openFile() {
        return openFile;
    }

    /** @return whether the cache keeps the file open */
    boolean hasOpenFile() {
        OpenFile current = openFile;
        return current != null && current.isOpen();
    }

    /** Under the cache's lock: the file the cache keeps open from now on. */
    void keepOpen(OpenFile file) {
        openFile = file;
    }

    /**
     * Under the cache's lock: the cache no longer keeps the file open (the entry left the cache or changed); the file
     * closes once the responses sending it are done.
     *
     * @return whether a file was kept open
     */
    boolean forgetOpenFile() {
        OpenFile current = openFile;
        if (current == null) {
            return false;
        }
        openFile = null;
        current.release();
        return true;
    }

    /** @return whether both describe the same file in the same state: path, size, time and identity (inode) */
    boolean sameFileAs(Representation other) {
        return other != null
                && size == other.size
                && modifiedNanos == other.modifiedNanos
                && path.equals(other.path)
                && Objects.equals(fileKey, other.fileKey);
    }

    @Override
    public String toString() {
        return "Representation{" + path + (coding == null ? "" : ", " + coding) + ", " + size + " bytes, " + etag
                + (content != null ? ", cached" : "") + (openFile != null ? ", open" : "") + "}";
    }
}
