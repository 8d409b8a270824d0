package dev.quarry.server.handlers;

import dev.quarry.http.HttpHeader;
import dev.quarry.http.PreEncodedHttpField;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Maps request paths to files under a root, safely, and reads what the file system says about them.
 *
 * <p><b>Safety</b>, in depth (the server already rejected ambiguous paths with 400 before any handler ran):
 * <ol>
 *   <li>{@link #key} refuses, per segment of the decoded path: {@code .} and {@code ..}, NUL, backslash, and (unless
 *       allowed) hidden names starting with {@code .}; empty segments are dropped.
 *   <li>{@link #resolve} joins the key to the root, normalises, and refuses a result outside the root.
 *   <li>It then takes the real path (every symbolic link resolved, intermediate directories included) and refuses a
 *       real path outside the root's real path, or one that passes through a hidden name under the root.
 *   <li>Files are opened by their real path with {@link LinkOption#NOFOLLOW_LINKS}, so a link swapped in for the file
 *       after the check is not followed. A race on an intermediate directory remains possible for someone who can
 *       write under the root (Java has no {@code openat}); that someone could also just write files there.
 * </ol>
 * Refusals and absences are both {@link Lookup.Missing} (404): the client cannot tell a hidden or escaping file from a
 * missing one.
 *
 * <p>Thread-safety: immutable configuration; safe from any thread. Cost: a {@link #resolve} is a realpath (an lstat
 * per component) and one stat per candidate file; the cache in front of it makes that rare.
 */
final class FileResolver {
    private static final System.Logger LOG = System.getLogger(FileResolver.class.getName());
    private static final String TEXT_PLAIN = "text/plain; charset=utf-8";
    // How much of a file without extension is read to tell text from binary.
    private static final int SNIFF_LENGTH = 1024;

    private final Path root;
    private final boolean serveHidden;
    private final boolean precompressed;
    private final int maxCachedFileSize;
    private final MimeTypes mimeTypes;
    private final long compressMinSize;
    private final long compressMaxSize;
    private final Map<String, PreEncodedHttpField> contentTypes = new ConcurrentHashMap<>();

    /**
     * @param root the root's real path
     * @param serveHidden whether names starting with a dot may be served
     * @param precompressed whether to look for {@code .br} and {@code .gz} siblings
     * @param maxCachedFileSize files up to this size get their bytes read into the resource; -1 for none
     * @param mimeTypes the Content-Type table
     * @param compressMinSize files of a compressible type from this size are compressed on the fly; -1 for none
     * @param compressMaxSize ... up to this size
     */
    FileResolver(
            Path root,
            boolean serveHidden,
            boolean precompressed,
            int maxCachedFileSize,
            MimeTypes mimeTypes,
            long compressMinSize,
            long compressMaxSize) {
        this.root = root;
        this.serveHidden = serveHidden;
        this.precompressed = precompressed;
        this.maxCachedFileSize = maxCachedFileSize;
        this.mimeTypes = mimeTypes;
        this.compressMinSize = compressMinSize;
        this.compressMaxSize = compressMaxSize;
    }

    /** @return the root's real path */
    Path root() {
        return root;
    }

    /** @return whether hidden names may be served */
    boolean serveHidden() {
        return serveHidden;
    }

    /**
     * The safe relative form of a decoded request path: its segments joined by {@code /}, without leading, trailing or
     * repeated slashes.
     *
     * @param path the decoded path, starting with {@code /}
     * @return the key ({@code ""} for the root), or null if a segment is refused
     */
    String key(String path) {
        int length = path.length();
        if (length == 0 || path.charAt(0) != '/') {
            return null;
        }
        boolean canonical = true;
        int from = 1;
        while (from <= length) {
            int slash = path.indexOf('/', from);
            int to = slash < 0 ? length : slash;
            if (to == from) {
                // An empty segment: fine at the very end ("/dir/"), otherwise the key is rebuilt without it.
                canonical &= to == length;
            } else if (!safeSegment(path, from, to)) {
                return null;
            }
            from = to + 1;
        }
        if (canonical) {
            int end = path.endsWith("/") ? length - 1 : length;
            return end <= 1 ? "" : path.substring(1, end);
        }
        StringBuilder key = new StringBuilder(length);
        for (String segment : path.split("/")) {
            if (!segment.isEmpty()) {
                key.append(key.isEmpty() ? "" : "/").append(segment);
            }
        }
        return key.toString();
    }

    private boolean safeSegment(String path, int from, int to) {
        char first = path.charAt(from);
        if (first == '.') {
            int length = to - from;
            if (length == 1 || (length == 2 && path.charAt(from + 1) == '.') || !serveHidden) {
                return false;
            }
        }
        for (int i = from; i < to; i++) {
            char c = path.charAt(i);
            if (c == 0 || c == '\\') {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads what {@code key} names, from the file system.
     *
     * @param key a key from {@link #key}
     * @param previous the cached resource for this key, or null: returned (with a fresh check time) if the files did
     *     not change, so that its cached bytes are kept
     * @return the resource, a directory, or missing
     */
    Lookup resolve(String key, StaticResource previous) {
        long now = System.nanoTime();
        Path real = realPath(key);
        if (real == null) {
            return Lookup.Missing.INSTANCE;
        }
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException x) {
            return Lookup.Missing.INSTANCE;
        }
        if (attributes.isDirectory()) {
            return new Lookup.Directory(real);
        }
        if (!attributes.isRegularFile()) {
            return Lookup.Missing.INSTANCE; // devices, pipes, sockets
        }
        Representation identity = Representation.of(real, attributes, null);
        Representation gzip = precompressed ? sibling(real, ".gz", "gzip", identity) : null;
        Representation brotli = precompressed ? sibling(real, ".br", "br", identity) : null;
        if (previous != null && previous.sameFilesAs(identity, gzip, brotli)) {
            previous.checkedNanos = now;
            return previous;
        }
        if (maxCachedFileSize >= 0) {
            identity = withContent(identity);
            gzip = withContent(gzip);
            brotli = withContent(brotli);
        }
        PreEncodedHttpField contentType = contentType(key, identity);
        boolean compressible = compressMinSize >= 0
                && identity.size >= compressMinSize
                && identity.size <= compressMaxSize
                && MimeTypes.isCompressible(contentType.value());
        return new StaticResource(key, contentType, identity, gzip, brotli, compressible, null, now);
    }

    /**
     * Reads a whole file, on a thread that may block.
     *
     * @param representation the file
     * @return its bytes, or null if its size is not the one cached (it changed)
     * @throws IOException if it cannot be read
     */
    static byte[] read(Representation representation) throws IOException {
        try (FileChannel channel =
                FileChannel.open(representation.path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buffer = ByteBuffer.allocate(Math.toIntExact(representation.size + 1));
            while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
                // read until full or the end of the file
            }
            if (buffer.position() != representation.size) {
                return null;
            }
            return Arrays.copyOf(buffer.array(), (int) representation.size);
        }
    }

    /**
     * @param key a key from {@link #key}
     * @return the real path of the directory it names, or null if it is not a directory under the root
     */
    Path directory(String key) {
        Path real = realPath(key);
        return real != null && Files.isDirectory(real, LinkOption.NOFOLLOW_LINKS) ? real : null;
    }

    /**
     * @param real a real path
     * @return whether it lies under the root and, unless hidden files are served, passes through no hidden name
     */
    boolean isServable(Path real) {
        if (!real.startsWith(root)) {
            return false;
        }
        if (!serveHidden) {
            for (Path name : root.relativize(real)) {
                if (name.toString().startsWith(".")) {
                    return false;
                }
            }
        }
        return true;
    }

    /** @return the real path of what the key names, or null if it does not exist or may not be served */
    private Path realPath(String key) {
        Path path;
        try {
            path = key.isEmpty() ? root : root.resolve(key).normalize();
        } catch (InvalidPathException x) {
            return null;
        }
        if (!path.startsWith(root)) {
            LOG.log(Level.DEBUG, () -> "refused '" + key + "': resolves outside the root " + root);
            return null;
        }
        Path real;
        try {
            real = path.toRealPath();
        } catch (NoSuchFileException x) {
            return null;
        } catch (IOException x) {
            // Not a directory, a link loop, no permission: nothing to serve.
            LOG.log(Level.DEBUG, () -> "cannot resolve '" + key + "': " + x);
            return null;
        }
        if (!isServable(real)) {
            LOG.log(
                    Level.DEBUG,
                    () -> "refused '" + key + "': its real path " + real + " is outside " + root + " or hidden");
            return null;
        }
        return real;
    }

    /**
     * A precompressed sibling: a regular file (a link is not followed) that is not older than the file, since an
     * older one was compressed from an older version and would serve stale content.
     */
    private static Representation sibling(Path real, String suffix, String coding, Representation identity) {
        Path path = real.resolveSibling(real.getFileName() + suffix);
        try {
            BasicFileAttributes attributes =
                    Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!attributes.isRegularFile()) {
                return null;
            }
            Representation sibling = Representation.of(path, attributes, coding);
            return sibling.modifiedNanos >= identity.modifiedNanos ? sibling : null;
        } catch (IOException x) {
            return null; // the common case: no such sibling
        }
    }

    private Representation withContent(Representation representation) {
        if (representation == null || representation.size > maxCachedFileSize) {
            return representation;
        }
        try {
            byte[] bytes = read(representation);
            // null: changed while being read; serve it from the file, cache it next time
            return bytes == null ? representation : representation.withContent(bytes);
        } catch (IOException x) {
            LOG.log(Level.DEBUG, () -> "cannot read " + representation.path + ": " + x);
            return representation;
        }
    }

    /** The type of the name; for a name without extension that is not known, from the first bytes of the file. */
    private PreEncodedHttpField contentType(String key, Representation identity) {
        String type = mimeTypes.knownType(key);
        if (type == null) {
            type = MimeTypes.hasNoExtension(key) && looksLikeText(identity) ? TEXT_PLAIN : MimeTypes.DEFAULT_TYPE;
        }
        return contentTypes.computeIfAbsent(type, t -> new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, t));
    }

    private static boolean looksLikeText(Representation identity) {
        if (identity.content != null) {
            return MimeTypes.looksLikeText(identity.content, Math.min(identity.content.length, SNIFF_LENGTH));
        }
        try (FileChannel channel =
                FileChannel.open(identity.path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer sample = ByteBuffer.allocate(SNIFF_LENGTH);
            while (sample.hasRemaining() && channel.read(sample) >= 0) {
                // read until full or the end of the file
            }
            return MimeTypes.looksLikeText(sample.array(), sample.position());
        } catch (IOException x) {
            LOG.log(Level.DEBUG, () -> "cannot read " + identity.path + ": " + x);
            return false;
        }
    }

    @Override
    public String toString() {
        return "FileResolver{" + root + (serveHidden ? ", hidden served" : "")
                + (precompressed ? ", precompressed" : "")
                + (compressMinSize >= 0 ? ", gzip " + compressMinSize + "-" + compressMaxSize + "B" : "") + "}";
    }
}
