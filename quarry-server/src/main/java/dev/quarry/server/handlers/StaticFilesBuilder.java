package dev.quarry.server.handlers;

import dev.quarry.core.InvocationType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Configures {@link StaticFiles}. Every setting has a default that suits a public web site:
 *
 * <table>
 *   <caption>Defaults</caption>
 *   <tr><th>setting</th><th>default</th></tr>
 *   <tr><td>{@link #indexFiles}</td><td>{@code index.html}</td></tr>
 *   <tr><td>{@link #directoryListing}</td><td>off (403 for a directory without index)</td></tr>
 *   <tr><td>{@link #precompressed}</td><td>on ({@code .br}, {@code .gz} siblings)</td></tr>
 *   <tr><td>{@link #serveHiddenFiles}</td><td>off (404 for any name starting with {@code .})</td></tr>
 *   <tr><td>{@link #maxCachedFileSize}</td><td>16 KiB</td></tr>
 *   <tr><td>{@link #maxCacheSize}</td><td>16 MiB (0 turns the cache off)</td></tr>
 *   <tr><td>{@link #maxOpenFiles}</td><td>64</td></tr>
 *   <tr><td>{@link #revalidateAfter}</td><td>1 second</td></tr>
 *   <tr><td>{@link #maxRanges}</td><td>16</td></tr>
 *   <tr><td>{@link #compress}</td><td>on (gzip, for text, JSON, JavaScript, XML, SVG, WebAssembly)</td></tr>
 *   <tr><td>{@link #compressMinSize}</td><td>1 KiB</td></tr>
 *   <tr><td>{@link #compressMaxSize}</td><td>8 MiB</td></tr>
 *   <tr><td>{@link #cacheControl}</td><td>none</td></tr>
 *   <tr><td>{@link #invocationType}</td><td>{@code EITHER}</td></tr>
 * </table>
 *
 * <p>Thread-safety: not thread-safe; build once, then share the handler.
 */
public final class StaticFilesBuilder {
    private final Path root;
    List<String> indexFiles = List.of("index.html");
    boolean directoryListing;
    boolean precompressed = true;
    boolean serveHiddenFiles;
    int maxCachedFileSize = 16 * 1024;
    long maxCacheSize = 16L * 1024 * 1024;
    int maxOpenFiles = 64;
    Duration revalidateAfter = Duration.ofSeconds(1);
    int maxRanges = 16;
    boolean compress = true;
    long compressMinSize = 1024;
    long compressMaxSize = 8L * 1024 * 1024;
    Optional<String> cacheControl = Optional.empty();
    Optional<String> listingOffHint = Optional.empty();
    MimeTypes mimeTypes = MimeTypes.defaults();
    InvocationType invocationType = InvocationType.EITHER;

    StaticFilesBuilder(Path root) {
        this.root = Objects.requireNonNull(root, "root");
    }

    /**
     * @param names the files served for a directory, tried in order (none: no index)
     * @return this
     * @throws IllegalArgumentException if a name is empty, {@code .}, {@code ..} or contains a slash, backslash or NUL
     */
    public StaticFilesBuilder indexFiles(String... names) {
        for (String name : names) {
            if (name.isEmpty()
                    || name.equals(".")
                    || name.equals("..")
                    || name.indexOf('/') >= 0
                    || name.indexOf('\\') >= 0
                    || name.indexOf(0) >= 0) {
                throw new IllegalArgumentException("index file must be a plain file name: '" + name + "'");
            }
        }
        this.indexFiles = List.of(names);
        return this;
    }

    /**
     * @param enabled whether a directory without index file is answered with an HTML listing (else 403)
     * @return this
     */
    public StaticFilesBuilder directoryListing(boolean enabled) {
        this.directoryListing = enabled;
        return this;
    }

    /**
     * The 403 for a directory without index file, when listing is off, says so in its body. This adds a line to it,
     * e.g. how the operator turns listing on: {@code quarry serve} says to start it with {@code --listing}.
     *
     * @param hint one line of plain text, without line breaks
     * @return this
     */
    public StaticFilesBuilder listingOffHint(String hint) {
        Objects.requireNonNull(hint, "hint");
        if (hint.indexOf('\n') >= 0 || hint.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("listingOffHint must be one line: '" + hint + "'");
        }
        this.listingOffHint = Optional.of(hint);
        return this;
    }

    /**
     * @param enabled whether {@code name.br} and {@code name.gz} siblings are served, with Content-Encoding, to clients
     *     that accept them
     * @return this
     */
    public StaticFilesBuilder precompressed(boolean enabled) {
        this.precompressed = enabled;
        return this;
    }

    /**
     * @param enabled whether names starting with a dot ({@code .git}, {@code .env}) may be served; off, they are 404
     * @return this
     */
    public StaticFilesBuilder serveHiddenFiles(boolean enabled) {
        this.serveHiddenFiles = enabled;
        return this;
    }

    /**
     * @param bytes files up to this size are kept in memory, 0 to 64 MiB
     * @return this
     */
    public StaticFilesBuilder maxCachedFileSize(int bytes) {
        if (bytes < 0 || bytes > 64 * 1024 * 1024) {
            throw new IllegalArgumentException("maxCachedFileSize must be 0 to 64 MiB: " + bytes);
        }
        this.maxCachedFileSize = bytes;
        return this;
    }

    /**
     * @param bytes the bound of the cache (content plus a fixed overhead per entry); 0 turns the cache off, and every
     *     request then reads the file system
     * @return this
     */
    public StaticFilesBuilder maxCacheSize(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("maxCacheSize must not be negative: " + bytes);
        }
        this.maxCacheSize = bytes;
        return this;
    }

    /**
     * How many larger files (above {@link #maxCachedFileSize}) the cache keeps open, like nginx's
     * {@code open_file_cache}: a request for one of them while its entry is fresh then costs no {@code open},
     * {@code fstat} or {@code close}, and is answered on the thread that parsed it, without a hand-over to a thread
     * that may block. A kept file closes when its entry leaves the cache or is found changed (within
     * {@link #revalidateAfter}), once the responses sending it are done; until then they send the version they
     * started with. Each costs one file descriptor.
     *
     * @param files 0 (open the file for each request) to 65536
     * @return this
     */
    public StaticFilesBuilder maxOpenFiles(int files) {
        if (files < 0 || files > 65536) {
            throw new IllegalArgumentException("maxOpenFiles must be 0 to 65536: " + files);
        }
        this.maxOpenFiles = files;
        return this;
    }

    /**
     * How long a cached file is trusted before a request checks it again (its real path, size, modification time and
     * identity, and its precompressed siblings): a change shows within this time, and a hot file costs at most a few
     * stat calls per interval instead of one per request. {@link Duration#ZERO} checks on every request.
     *
     * @param interval the interval, 0 to 1 day
     * @return this
     */
    public StaticFilesBuilder revalidateAfter(Duration interval) {
        if (interval.isNegative() || interval.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("revalidateAfter must be 0 to 1 day: " + interval);
        }
        this.revalidateAfter = interval;
        return this;
    }

    /**
     * @param max the most ranges a Range field may list; a request with more is answered with the whole content
     *     (200), as RFC 9110 §14.2 allows for too many ranges
     * @return this
     */
    public StaticFilesBuilder maxRanges(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("maxRanges must be at least 1: " + max);
        }
        this.maxRanges = max;
        return this;
    }

    /**
     * Compression on the fly, like nginx's {@code gzip on} and Caddy's {@code encode gzip}: a client that accepts gzip
     * gets a file of a compressible type (text, JSON, JavaScript, XML and SVG, WebAssembly, TTF/OTF fonts) with
     * {@code Content-Encoding: gzip}, compressed with {@link java.util.zip.Deflater} at level 6 on a thread that may
     * block (never a selector), and the result is kept in the cache with the file (it counts toward
     * {@link #maxCacheSize}) until the file changes. Responses for such files say {@code Vary: Accept-Encoding},
     * compressed or not; the compressed one has its own ETag (the file's, suffixed {@code -gzip}) and Content-Length.
     * A precompressed sibling that the client accepts wins. A request with a Range gets ranges of the file itself,
     * never of bytes compressed on the fly. Brotli and zstd are not made on the fly: the JDK has no encoder for them;
     * serve {@code .br} siblings for brotli.
     *
     * @param enabled whether to compress on the fly
     * @return this
     */
    public StaticFilesBuilder compress(boolean enabled) {
        this.compress = enabled;
        return this;
    }

    /**
     * @param bytes smaller files are sent as they are (compression would save little), 0 to 64 MiB
     * @return this
     */
    public StaticFilesBuilder compressMinSize(long bytes) {
        if (bytes < 0 || bytes > 64L * 1024 * 1024) {
            throw new IllegalArgumentException("compressMinSize must be 0 to 64 MiB: " + bytes);
        }
        this.compressMinSize = bytes;
        return this;
    }

    /**
     * @param bytes larger files are sent as they are, zero-copy (a file is compressed whole, in memory), 0 to 1 GiB
     * @return this
     */
    public StaticFilesBuilder compressMaxSize(long bytes) {
        if (bytes < 0 || bytes > 1L << 30) {
            throw new IllegalArgumentException("compressMaxSize must be 0 to 1 GiB: " + bytes);
        }
        this.compressMaxSize = bytes;
        return this;
    }

    /**
     * @param value a Cache-Control value sent with files and 304s, e.g. {@code "public, max-age=3600"} or
     *     {@code "no-cache"} (browsers then revalidate every time and get 304s)
     * @return this
     * @throws IllegalArgumentException naming the value if it is empty or has a character not allowed in a field value
     */
    public StaticFilesBuilder cacheControl(String value) {
        Objects.requireNonNull(value, "value");
        if (value.isBlank() || value.chars().anyMatch(c -> (c < 0x20 && c != '\t') || c >= 0x7F)) {
            throw new IllegalArgumentException("not a Cache-Control value: '" + value + "'");
        }
        this.cacheControl = Optional.of(value.strip());
        return this;
    }

    /**
     * @param mimeTypes the Content-Type table
     * @return this
     */
    public StaticFilesBuilder mimeTypes(MimeTypes mimeTypes) {
        this.mimeTypes = Objects.requireNonNull(mimeTypes, "mimeTypes");
        return this;
    }

    /**
     * Adds or replaces one entry of the Content-Type table, as {@link MimeTypes#with} does.
     *
     * @param extension an extension without the dot, any case, e.g. {@code "ts"}
     * @param contentType its Content-Type, e.g. {@code "text/plain"} (a {@code text/*} type gets
     *     {@code ; charset=utf-8} unless it names a charset)
     * @return this
     * @throws IllegalArgumentException naming the value if the extension or the type is malformed
     */
    public StaticFilesBuilder mimeType(String extension, String contentType) {
        this.mimeTypes = mimeTypes.with(extension, contentType);
        return this;
    }

    /**
     * How the server runs the handler. {@code EITHER} (default): a request that the cache answers without touching the
     * file system (a fresh entry whose bytes are in memory, a HEAD, a 304, a redirect, an error) is answered in place,
     * on the thread that parsed it, with a hot cache; anything that needs a system call on the file system ({@code stat},
     * {@code open}, a read, a directory listing) is dispatched to a virtual thread, since even a page-cache hit may
     * block on a slow disk or a network file system and must not stall the other connections of a selector.
     * {@code BLOCKING}: every request is dispatched. Either way, zero-copy transfers continue on the selector as the
     * socket drains ({@code sendfile} copies from the page cache only what the socket takes, as nginx does).
     *
     * @param type {@code EITHER} or {@code BLOCKING}
     * @return this
     * @throws IllegalArgumentException for {@code NON_BLOCKING}: file system calls may block
     */
    public StaticFilesBuilder invocationType(InvocationType type) {
        if (type != InvocationType.EITHER && type != InvocationType.BLOCKING) {
            throw new IllegalArgumentException("invocationType must be EITHER or BLOCKING (file system calls may block,"
                    + " so they never run on a selector thread): " + type);
        }
        this.invocationType = type;
        return this;
    }

    /**
     * @return the handler
     * @throws IllegalArgumentException if the root is not a directory
     * @throws UncheckedIOException if its real path cannot be read
     */
    public StaticFiles build() {
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException("static files root is not a directory: " + root);
        }
        Path real;
        try {
            real = root.toRealPath();
        } catch (IOException x) {
            throw new UncheckedIOException("cannot resolve the static files root " + root, x);
        }
        return new StaticFiles(this, real);
    }
}
