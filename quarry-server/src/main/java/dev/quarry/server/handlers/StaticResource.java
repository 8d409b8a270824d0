package dev.quarry.server.handlers;

import dev.quarry.http.PreEncodedHttpField;

/**
 * A file that may be served, as the cache keeps it: the file and its precompressed siblings, its Content-Type, and when
 * it was last checked against the file system.
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
    volatile long checkedNanos;

    /**
     * @param key the cache key (the safe relative path)
     * @param contentType the Content-Type, from the name the client asked for
     * @param identity the file itself
     * @param gzip its {@code .gz} sibling, or null
     * @param brotli its {@code .br} sibling, or null
     * @param checkedNanos when the file system was read, from {@link System#nanoTime()}
     */
    StaticResource(
            String key,
            PreEncodedHttpField contentType,
            Representation identity,
            Representation gzip,
            Representation brotli,
            long checkedNanos) {
        this.key = key;
        this.contentType = contentType;
        this.identity = identity;
        this.gzip = gzip;
        this.brotli = brotli;
        this.checkedNanos = checkedNanos;
    }

    /** @return whether a precompressed sibling exists, so that responses vary on Accept-Encoding */
    boolean hasVariants() {
        return gzip != null || brotli != null;
    }

    /**
     * @param accepted the {@link AcceptEncoding} bits
     * @return the representation to send: br, else gzip, as accepted and available (gzip first if the client
     *     prefers it), else the file itself
     */
    Representation select(int accepted) {
        boolean br = brotli != null && (accepted & AcceptEncoding.BR) != 0;
        boolean gz = gzip != null && (accepted & AcceptEncoding.GZIP) != 0;
        if (br && !(gz && (accepted & AcceptEncoding.PREFER_GZIP) != 0)) {
            return brotli;
        }
        return gz ? gzip : identity;
    }

    /** @return whether every representation's bytes are in memory, so that serving it needs no system call */
    boolean inMemory() {
        return identity.content != null
                && (gzip == null || gzip.content != null)
                && (brotli == null || brotli.content != null);
    }

    /** @return whether these representations, just read from the file system, are the files of this resource as is */
    boolean sameFilesAs(Representation identity, Representation gzip, Representation brotli) {
        return this.identity.sameFileAs(identity)
                && (this.gzip == null ? gzip == null : this.gzip.sameFileAs(gzip))
                && (this.brotli == null ? brotli == null : this.brotli.sameFileAs(brotli));
    }

    /** @return what this entry costs the cache, in bytes */
    long cost() {
        return OVERHEAD + contentLength(identity) + contentLength(gzip) + contentLength(brotli);
    }

    private static long contentLength(Representation representation) {
        return representation == null || representation.content == null ? 0 : representation.content.length;
    }

    @Override
    public String toString() {
        return "StaticResource{" + key + ", " + identity + (gzip != null ? ", " + gzip : "")
                + (brotli != null ? ", " + brotli : "") + "}";
    }
}
