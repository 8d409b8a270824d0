package dev.quarry.server.handlers;

import dev.quarry.http.PreEncodedHttpField;

/**
 * A file that may be served, as the cache keeps it: the file and its precompressed siblings, its Content-Type, whether
 * it is compressed on the fly (and, once it was, the compressed bytes), and when it was last checked against the file
 * system.
 *
 * <p>Thread-safety: immutable but for {@link #checkedNanos}, a volatile time stamp that revalidation moves forward.
 */
final class StaticResource implements Lookup {
    /** What an entry costs in the cache besides its content: the objects and pre-encoded fields, roughly. */
    static final int OVERHEAD = 512;

    final String key;
    final PreEncodedHttpField contentType;
    final Representation identity;
    final Representation gzip;
    final Representation brotli;
    /** Whether a client that accepts gzip gets the file compressed on the fly (when no sibling fits). */
    final boolean compressible;
    /** The file compressed on the fly, once it was; the identity if that was not smaller; null before. */
    final Representation compressed;

    volatile long checkedNanos;

    /**
     * @param key the cache key (the safe relative path)
     * @param contentType the Content-Type, from the name the client asked for
     * @param identity the file itself
     * @param gzip its {@code .gz} sibling, or null
     * @param brotli its {@code .br} sibling, or null
     * @param compressible whether it is compressed on the fly for clients that accept gzip
     * @param compressed the file compressed on the fly, or the identity if that was not smaller, or null before
     * @param checkedNanos when the file system was read, from {@link System#nanoTime()}
     */
    StaticResource(
            String key,
            PreEncodedHttpField contentType,
            Representation identity,
            Representation gzip,
            Representation brotli,
            boolean compressible,
            Representation compressed,
            long checkedNanos) {
        this.key = key;
        this.contentType = contentType;
        this.identity = identity;
        this.gzip = gzip;
        this.brotli = brotli;
        this.compressible = compressible;
        this.compressed = compressed;
        this.checkedNanos = checkedNanos;
    }

    /** @return this resource with the result of its compression on the fly */
    StaticResource withCompressed(Representation compressed) {
        return new StaticResource(key, contentType, identity, gzip, brotli, compressible, compressed, checkedNanos);
    }

    /**
     * @return whether responses vary on Accept-Encoding: a precompressed sibling exists, or the file is compressed on
     *     the fly
     */
    boolean hasVariants() {
        return gzip != null || brotli != null || compressible;
    }

    /**
     * @param accepted the {@link AcceptEncoding} bits
     * @param onTheFly whether the file compressed on the fly may be chosen (not for ranges: see {@link StaticFiles})
     * @return the representation to send: br, else gzip, as accepted and available (gzip first if the client
     *     prefers it); else, if the client accepts gzip, the file compressed on the fly once it was; else the file
     */
    Representation select(int accepted, boolean onTheFly) {
        Representation sibling = selectSibling(accepted);
        if (sibling == identity && onTheFly && compressed != null && (accepted & AcceptEncoding.GZIP) != 0) {
            return compressed;
        }
        return sibling;
    }

    /** @return whether {@link #select} would choose the file compressed on the fly, which is not made yet */
    boolean needsCompression(int accepted) {
        return compressible
                && compressed == null
                && (accepted & AcceptEncoding.GZIP) != 0
                && selectSibling(accepted) == identity;
    }

    private Representation selectSibling(int accepted) {
        boolean br = brotli != null && (accepted & AcceptEncoding.BR) != 0;
        boolean gz = gzip != null && (accepted & AcceptEncoding.GZIP) != 0;
        if (br && !(gz && (accepted & AcceptEncoding.PREFER_GZIP) != 0)) {
            return brotli;
        }
        return gz ? gzip : identity;
    }

    /** @return whether {@code representation} is one of this resource's files (the file or a sibling) */
    boolean holds(Representation representation) {
        return representation == identity || representation == gzip || representation == brotli;
    }

    /** @return whether these representations, just read from the file system, are the files of this resource as is */
    boolean sameFilesAs(Representation identity, Representation gzip, Representation brotli) {
        return this.identity.sameFileAs(identity)
                && (this.gzip == null ? gzip == null : this.gzip.sameFileAs(gzip))
                && (this.brotli == null ? brotli == null : this.brotli.sameFileAs(brotli));
    }

    /** @return what this entry costs the cache, in bytes */
    long cost() {
        return OVERHEAD
                + contentLength(identity)
                + contentLength(gzip)
                + contentLength(brotli)
                + (compressed == identity ? 0 : contentLength(compressed));
    }

    private static long contentLength(Representation representation) {
        return representation == null || representation.content == null ? 0 : representation.content.length;
    }

    @Override
    public String toString() {
        return "StaticResource{" + key + ", " + identity + (gzip != null ? ", " + gzip : "")
                + (brotli != null ? ", " + brotli : "") + (compressed != null ? ", compressed " + compressed : "")
                + "}";
    }
}
