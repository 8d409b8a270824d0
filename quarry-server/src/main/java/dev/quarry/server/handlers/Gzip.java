package dev.quarry.server.handlers;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.zip.GZIPOutputStream;

/**
 * Compresses a file's bytes with gzip (RFC 1952) for {@link StaticFiles}: the JDK's zlib, level 6 (zlib's default
 * trade-off, as nginx's {@code gzip_comp_level} users tend to pick), a header without name or time so that the same
 * input gives the same bytes.
 *
 * <p>Thread-safety: stateless. Cost: CPU-bound, tens of MB/s per core at this level; run it where blocking is
 * allowed, never on a selector thread. Allocates the output and a {@link java.util.zip.Deflater}, ended when done.
 */
final class Gzip {
    static final int LEVEL = 6;

    private Gzip() {}

    /** @return {@code input} compressed */
    static byte[] compress(byte[] input) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(input.length / 3 + 64);
        try (GZIPOutputStream gzip = new LeveledGzipOutputStream(out)) {
            gzip.write(input);
        } catch (IOException x) {
            throw new UncheckedIOException("gzip into memory failed", x); // a ByteArrayOutputStream does not throw
        }
        return out.toByteArray();
    }

    private static final class LeveledGzipOutputStream extends GZIPOutputStream {
        LeveledGzipOutputStream(ByteArrayOutputStream out) throws IOException {
            super(out, 8192);
            def.setLevel(LEVEL);
        }
    }
}
