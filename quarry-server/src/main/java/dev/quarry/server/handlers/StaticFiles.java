package dev.quarry.server.handlers;

import dev.quarry.core.Callback;
import dev.quarry.core.Dumpable;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpMethod;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.PreEncodedHttpField;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Handlers;
import dev.quarry.server.Request;
import dev.quarry.server.Response;
import dev.quarry.server.ResponseWrapper;
import dev.quarry.server.internal.OpenFilePermits;
import dev.quarry.server.internal.ServerResponse;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Serves the files under a root directory the way users of nginx expect.
 *
 * <ul>
 *   <li><b>Methods</b>: GET and HEAD (same head, no body); anything else is 405 with {@code Allow: GET, HEAD}.
 *   <li><b>Content-Type</b> from the extension ({@link MimeTypes}); {@code ETag} (strong, from size and modification
 *       time, see {@link Representation}) and {@code Last-Modified}; {@code Accept-Ranges: bytes}.
 *   <li><b>Conditional requests</b> (RFC 9110 §13): If-Match and If-Unmodified-Since answer 412; If-None-Match (weak
 *       comparison, lists, {@code *}) takes precedence over If-Modified-Since and answers 304 with the validators,
 *       Vary and Cache-Control and no body.
 *   <li><b>Ranges</b> (RFC 9110 §14), GET only: one range is a 206 with Content-Range; several are coalesced and sent
 *       as {@code multipart/byteranges}; none satisfiable is 416 with {@code Content-Range: bytes *}{@code /size}; an
 *       invalid field, or more than {@code maxRanges} ranges, is ignored (200, the whole content); If-Range (strong tag
 *       or exact date) that does not match also gives the whole content.
 *   <li><b>Directories</b>: {@code /dir} redirects (301) to {@code /dir/}, which serves the first index file that
 *       exists, else a listing if enabled, else 403.
 *   <li><b>Precompressed</b> {@code .br}/{@code .gz} siblings are served with Content-Encoding to clients that accept
 *       them; whenever a sibling exists the response says {@code Vary: Accept-Encoding}. Ranges then count the encoded
 *       bytes. A request for several ranges is served from the file itself, so that parts are never encoded.
 *   <li><b>Compression on the fly</b> (gzip, see {@link StaticFilesBuilder#compress}): when no sibling fits, a file
 *       of a compressible type is compressed once, on a thread that may block, and cached; its responses say
 *       {@code Vary: Accept-Encoding}; requests with a Range get ranges of the file itself.
 *   <li><b>Safe paths</b>: see {@link FileResolver}; everything refused is a 404.
 *   <li><b>Sending</b>: cached small files from memory in one write with the head; a file the cache keeps open (see
 *       {@link StaticFilesBuilder#maxOpenFiles}) is also mapped, and sent from the mapping on HTTP/1.1 (cleartext:
 *       in one gathered write with the head, then one write per socket-full; TLS: encrypted from it) and on HTTP/2
 *       (copied into DATA frames under a guard against a file truncated meanwhile);
 *       other sends use {@link Response#write(FileChannel, long, long, boolean, Callback)}, zero-copy on HTTP/1.1
 *       cleartext (a file kept open but too large to map, or one opened for the request past that bound).
 * </ul>
 *
 * <p>Mounting: as the root handler it serves {@link Request#path()}; under a route such as {@code "GET /static/*"} it
 * serves the part that {@code *} matched. The whole request path decides the redirect of directories.
 *
 * <p><b>Cache and freshness</b>: every servable file's metadata is cached (so a hit costs no system call), with its
 * bytes if it is small; a cached entry is trusted for {@code revalidateAfter} (1 s by default) and then checked again
 * on its next request, which re-reads the real path and attributes of the file and its siblings and keeps the entry
 * (and its bytes) if nothing changed. So a change shows within a second while a hot file costs a few stat calls per
 * second rather than per request. A larger file's size is also checked when it is opened (an fstat), and a mismatch
 * reloads it at once; the cache then keeps it open while its entry stays cached and unchanged, so that its next
 * requests need neither {@code open} nor a thread that may block. A file kept open is trusted for as long as its entry
 * (nginx's {@code open_file_cache_valid}): a file rewritten in place, rather than renamed into place, is seen at the
 * next check, and meanwhile a send of it may be cut short if it shrank (the connection is closed; over HTTP/2, only the
 * stream is reset). A send cut short because the file shrank also stops the cache keeping the file open, so the next
 * request opens it again and sees its new size: over HTTP/2 or TLS the JVM reports the read of the mapping past the
 * new end as a fault; over HTTP/1.1 cleartext the kernel reports it as an I/O error like any other, so a failed send
 * of a file kept open checks its size (off the selector) and a client's reset leaves the file open.
 *
 * <p>Thread-safety: immutable configuration; the cache is thread-safe. Where requests run: a request that the cache
 * answers without a system call on the file system (a small file from memory, a larger one the cache keeps open) runs
 * in place, on the thread that parsed it; one that needs the file system (a miss, a stale entry, a large file to open,
 * an index or a listing) is dispatched to a virtual thread first
 * ({@code EITHER}, see {@link StaticFilesBuilder#invocationType}).
 */
public final class StaticFiles implements AsyncHandler, Dumpable {
    private static final System.Logger LOG = System.getLogger(StaticFiles.class.getName());
    private static final PreEncodedHttpField ALLOW = new PreEncodedHttpField(HttpHeader.ALLOW, "GET, HEAD");
    private static final PreEncodedHttpField ACCEPT_RANGES = new PreEncodedHttpField(HttpHeader.ACCEPT_RANGES, "bytes");
    private static final PreEncodedHttpField VARY = new PreEncodedHttpField(HttpHeader.VARY, "Accept-Encoding");
    private static final PreEncodedHttpField TEXT_HTML =
            new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "text/html; charset=utf-8");
    private static final PreEncodedHttpField TEXT_PLAIN =
            new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0).asReadOnlyBuffer();

    private final Path root;
    private final List<String> indexFiles;
    private final boolean directoryListing;
    private final int maxRanges;
    private final long revalidateNanos;
    private final PreEncodedHttpField cacheControl;
    private final InvocationType invocationType;
    private final FileResolver resolver;
    private final FileCache cache;
    private final String description;
    private final String noListingHint;
    // The handler a request that needs the file system is dispatched to: the same handling, on a thread that may block.
    private final AsyncHandler fileSystemHandler = new AsyncHandler() {
        @Override
        public void handle(Request request, Response response, Callback callback) {
            StaticFiles.this.handle(request, response, callback, false);
        }

        @Override
        public String toString() {
            return StaticFiles.this + " (file system)";
        }
    };

    StaticFiles(StaticFilesBuilder builder, Path root) {
        this.root = root;
        this.indexFiles = builder.indexFiles;
        this.directoryListing = builder.directoryListing;
        this.maxRanges = builder.maxRanges;
        this.revalidateNanos = builder.revalidateAfter.toNanos();
        this.cacheControl = builder.cacheControl
                .map(value -> new PreEncodedHttpField(HttpHeader.CACHE_CONTROL, value))
                .orElse(null);
        this.invocationType = builder.invocationType;
        boolean caching = builder.maxCacheSize > 0;
        this.resolver = new FileResolver(
                root,
                builder.serveHiddenFiles,
                builder.precompressed,
                caching ? builder.maxCachedFileSize : -1,
                builder.mimeTypes,
                builder.compress ? builder.compressMinSize : -1,
                builder.compressMaxSize);
        this.cache = new FileCache(builder.maxCacheSize, builder.maxOpenFiles);
        this.noListingHint = "\nThis directory has no index file"
                + (indexFiles.isEmpty() ? "" : " (" + String.join(", ", indexFiles) + ")")
                + " and directory listing is off.\n"
                + builder.listingOffHint.map(hint -> hint + "\n").orElse("");
        this.description = "StaticFiles{" + root + ", index=" + indexFiles + ", listing=" + directoryListing
                + ", precompressed=" + builder.precompressed + ", gzip="
                + (builder.compress ? builder.compressMinSize + "-" + builder.compressMaxSize + "B" : "off")
                + ", hidden="
                + (builder.serveHiddenFiles ? "served" : "refused")
                + ", cache=" + builder.maxCacheSize + "B (files <= " + builder.maxCachedFileSize + "B, "
                + builder.maxOpenFiles + " open files), revalidate="
                + builder.revalidateAfter + ", maxRanges=" + maxRanges + ", " + invocationType + "}";
    }

    /**
     * @param root the directory to serve
     * @return a builder with the defaults of {@link StaticFilesBuilder}
     */
    public static StaticFilesBuilder builder(Path root) {
        return new StaticFilesBuilder(root);
    }

    /**
     * @param root the directory to serve
     * @return a handler with the defaults of {@link StaticFilesBuilder}
     */
    public static StaticFiles of(Path root) {
        return builder(root).build();
    }

    /** @return the real path of the root */
    public Path root() {
        return root;
    }

    /** @return the cache's counters */
    public CacheStatistics cacheStatistics() {
        return cache.statistics();
    }

    /** @return how many files the cache keeps open now (see {@link StaticFilesBuilder#maxOpenFiles}) */
    int openFiles() {
        return cache.openFiles();
    }

    /** @return the file the cache keeps open for the file a request path names, or null (for tests) */
    OpenFile openFileOf(String path) {
        String key = resolver.key(path);
        StaticResource cached = key == null ? null : cache.peek(key);
        return cached == null ? null : cached.identity.openFile();
    }

    @Override
    public InvocationType invocationType() {
        return invocationType;
    }

    @Override
    public void handle(Request request, Response response, Callback callback) {
        if (Invocable.isNonBlockingInvocation() && !answersInPlace(request)) {
            Handlers.invoke(fileSystemHandler, request, response, callback);
            return;
        }
        handle(request, response, callback, false);
    }

    /**
     * Whether a request can be answered without a system call on the file system: only then may it run on a thread
     * that must not block. Allocation-free for the common case (a hit on a small cached file).
     */
    private boolean answersInPlace(Request request) {
        if (invocationType == InvocationType.BLOCKING) {
            return false;
        }
        String method = request.method();
        boolean head = HttpMethod.HEAD.is(method);
        if (!HttpMethod.GET.is(method) && !head) {
            return true; // 405
        }
        String rest = request.pathParams().get("*");
        String key = resolver.key(rest != null ? "/" + rest : request.path());
        if (key == null) {
            return true; // 404
        }
        if (request.path().endsWith("/")) {
            return false; // index files and listings
        }
        if (key.isEmpty()) {
            return true; // the redirect of the root to "/"
        }
        StaticResource cached = cache.peek(key);
        if (cached == null || System.nanoTime() - cached.checkedNanos >= revalidateNanos) {
            return false;
        }
        if (head && !cached.compressible) {
            return true;
        }
        // serve() may still choose another representation (for ranges) and dispatch if its bytes are neither in memory
        // nor in a file kept open (or if several ranges need a file of their own).
        int accepted = cached.hasVariants() ? AcceptEncoding.accepted(request.headers()) : 0;
        if (cached.needsCompression(accepted)) {
            return false;
        }
        if (head) {
            return true;
        }
        Representation chosen = cached.select(accepted, true);
        return chosen.content != null || chosen.hasOpenFile();
    }

    private void handle(Request request, Response response, Callback callback, boolean retried) {
        String method = request.method();
        if (!HttpMethod.GET.is(method) && !HttpMethod.HEAD.is(method)) {
            response.headers().put(ALLOW);
            error(response, HttpStatus.METHOD_NOT_ALLOWED_405, callback);
            return;
        }
        String rest = request.pathParams().get("*");
        String key = resolver.key(rest != null ? "/" + rest : request.path());
        if (key == null) {
            error(response, HttpStatus.NOT_FOUND_404, callback);
            return;
        }
        boolean slash = request.path().endsWith("/");
        if (!slash) {
            Lookup found = key.isEmpty() ? new Lookup.Directory(root) : lookup(key);
            if (found == null) {
                Handlers.invoke(fileSystemHandler, request, response, callback); // evicted since answersInPlace()
                return;
            }
            switch (found) {
                case StaticResource resource -> serve(request, response, callback, resource, retried);
                case Lookup.Directory directory -> redirectToDirectory(request, response, callback);
                case Lookup.Missing missing -> error(response, HttpStatus.NOT_FOUND_404, callback);
            }
            return;
        }
        for (String index : indexFiles) {
            // Only reached on a thread that may block (answersInPlace() dispatches every path ending with "/").
            if (lookup(key.isEmpty() ? index : key + "/" + index) instanceof StaticResource resource) {
                serve(request, response, callback, resource, retried);
                return;
            }
        }
        Path directory = resolver.directory(key);
        if (directory == null) {
            error(response, HttpStatus.NOT_FOUND_404, callback);
        } else if (!directoryListing) {
            error(response, HttpStatus.FORBIDDEN_403, callback, noListingHint);
        } else {
            list(request, response, callback, directory);
        }
    }

    /**
     * Finds what a key names: from the cache while fresh, else from the file system (and caches it). On a thread that
     * must not block it never reads the file system: a cached entry is used even if it just went stale (it is checked
     * again on the next request that may block), and a missing one returns null.
     */
    private Lookup lookup(String key) {
        StaticResource cached = cache.get(key);
        if (cached != null && System.nanoTime() - cached.checkedNanos < revalidateNanos) {
            cache.onHit();
            return cached;
        }
        if (Invocable.isNonBlockingInvocation()) {
            if (cached != null) {
                cache.onHit();
            }
            return cached;
        }
        Lookup found = resolver.resolve(key, cached);
        if (found == cached) {
            cache.onHit(); // checked again: unchanged
            return found;
        }
        if (cached == null) {
            cache.onMiss();
        } else {
            cache.onInvalidation();
        }
        if (found instanceof StaticResource resource) {
            cache.put(resource);
        } else if (cached != null) {
            cache.remove(cached);
        }
        return found;
    }

    private void serve(Request request, Response response, Callback callback, StaticResource found, boolean retried) {
        StaticResource resource = found;
        HttpFields fields = request.headers();
        boolean head = HttpMethod.HEAD.is(request.method());
        ByteRanges ranges = null;
        if (!head) { // RFC 9110 §14.2: Range is defined for GET only
            int index = fields.indexOf(HttpHeader.RANGE);
            if (index >= 0) {
                ranges = ByteRanges.parse(fields.field(index).value());
                if (ranges != null && ranges.count() > maxRanges) {
                    LOG.log(Level.DEBUG, () -> "ignoring a Range of more than " + maxRanges + " ranges for " + request);
                    ranges = null;
                }
            }
        }
        int accepted = resource.hasVariants() ? AcceptEncoding.accepted(fields) : 0;
        if (ranges != null && ranges.count() > 1) {
            accepted = 0; // multipart parts are never encoded: serve them from the file itself
        }
        // Ranges count the bytes of the file or of a precompressed sibling, never bytes compressed on the fly: those
        // could differ after a restart with another zlib while their strong ETag stayed the same.
        boolean onTheFly = ranges == null;
        if (onTheFly && resource.needsCompression(accepted)) {
            if (Invocable.isNonBlockingInvocation()) {
                Handlers.invoke(fileSystemHandler, request, response, callback); // replaced since answersInPlace()
                return;
            }
            try {
                resource = compress(resource);
            } catch (IOException x) {
                cache.remove(found);
                LOG.log(Level.DEBUG, () -> "cannot read " + found.identity.path + ": " + x);
                error(response, HttpStatus.NOT_FOUND_404, callback);
                return;
            }
            if (resource == null) {
                // Changed since it was cached: forget it and look again, once.
                cache.remove(found);
                if (!retried) {
                    handle(request, response, callback, true);
                } else {
                    callback.failed(new IOException(found.identity.path + " keeps changing while being compressed"));
                }
                return;
            }
        }
        Representation representation = resource.select(accepted, onTheFly);
        long now = System.currentTimeMillis() / 1000;
        Preconditions.Outcome outcome =
                Preconditions.evaluate(fields, true, representation.etag, representation.modifiedSeconds, now);
        if (outcome == Preconditions.Outcome.PRECONDITION_FAILED) {
            error(response, HttpStatus.PRECONDITION_FAILED_412, callback);
            return;
        }
        if (outcome == Preconditions.Outcome.NOT_MODIFIED) {
            addValidators(response.headers(), resource, representation);
            // RFC 9110 §8.6: a 304 may carry the Content-Length of the 200 it stands for, and no other.
            response.headers().put(HttpHeader.CONTENT_LENGTH, Long.toString(representation.size));
            response.status(HttpStatus.NOT_MODIFIED_304);
            response.write(true, EMPTY.duplicate(), callback);
            return;
        }
        if (ranges != null) {
            int ifRange = fields.indexOf(HttpHeader.IF_RANGE);
            if (ifRange >= 0
                    && !Preconditions.ifRangeMatches(
                            fields.field(ifRange).value(), representation.etag, representation.modifiedSeconds, now)) {
                ranges = null; // the client's part is of another version: send it all
            }
        }
        List<ByteRanges.ByteRange> satisfiable = ranges == null ? null : ranges.resolve(representation.size);
        if (satisfiable != null && satisfiable.isEmpty()) {
            addValidators(response.headers(), resource, representation);
            response.headers().put(HttpHeader.CONTENT_RANGE, "bytes */" + representation.size);
            error(response, HttpStatus.RANGE_NOT_SATISFIABLE_416, callback);
            return;
        }
        FileChannel file = null;
        OpenFile shared = null;
        // Several ranges are sent by MultipartRanges, which closes the file it is given: those get a file of their own.
        boolean multipart = satisfiable != null && satisfiable.size() > 1;
        if (!head && representation.content == null && !multipart) {
            shared = representation.acquireOpenFile(); // no file system access: fine where the request was parsed
            if (shared != null && (!shared.channel().isOpen() || shared.faulted())) {
                // A reader of the shared channel was interrupted (FileChannel is interruptible, and an interrupt
                // closes the channel for every user), or a send faulted reading its mapping (the file shrank in
                // place): forget it, and open the file again below, which checks its size. Volatile reads per send,
                // where asking the channel its size (an fstat) would also notice, but at a system call each.
                shared.release();
                cache.forgetClosed(representation, shared);
                shared = null;
            }
            if (shared != null) {
                file = shared.channel();
            }
        }
        if (!head && representation.content == null && file == null) {
            if (Invocable.isNonBlockingInvocation()) {
                Handlers.invoke(fileSystemHandler, request, response, callback); // replaced since answersInPlace()
                return;
            }
            Callback done = callback;
            if (!OpenFilePermits.acquire(request, () -> Handlers.invoke(fileSystemHandler, request, response, done))) {
                // This connection's other responses keep as many files open as it may (HTTP/2): served, from the
                // start, once one of them closes its file.
                return;
            }
            callback = OpenFilePermits.releasing(request, callback);
            try {
                file = FileChannel.open(representation.path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
                if (file.size() != representation.size) {
                    // Changed since it was cached: forget it and look again, once.
                    close(file);
                    cache.remove(resource);
                    if (!retried) {
                        handle(request, response, callback, true);
                    } else {
                        callback.failed(new IOException(representation.path + " keeps changing while being served"));
                    }
                    return;
                }
            } catch (IOException x) {
                close(file);
                cache.remove(resource);
                LOG.log(Level.DEBUG, () -> "cannot open " + representation.path + ": " + x);
                error(response, HttpStatus.NOT_FOUND_404, callback);
                return;
            }
            if (!multipart) {
                shared = cache.keepOpen(resource, representation, file); // null: not kept, closed after this send
            }
        }
        HttpFields out = response.headers();
        addValidators(out, resource, representation);
        out.put(resource.contentType);
        if (representation.contentEncodingField != null) {
            out.put(representation.contentEncodingField);
        }
        out.put(ACCEPT_RANGES);
        boolean handedOver = false; // once the send has the file, it is the send's to release or close
        try {
            if (satisfiable == null) {
                out.put(HttpHeader.CONTENT_LENGTH, Long.toString(representation.size));
                if (head) {
                    response.write(true, EMPTY.duplicate(), callback);
                } else {
                    handedOver = true;
                    send(request, response, representation, file, shared, 0, representation.size, callback);
                }
            } else if (satisfiable.size() == 1) {
                ByteRanges.ByteRange range = satisfiable.get(0);
                response.status(HttpStatus.PARTIAL_CONTENT_206);
                out.put(HttpHeader.CONTENT_RANGE, range.contentRange(representation.size));
                out.put(HttpHeader.CONTENT_LENGTH, Long.toString(range.length()));
                handedOver = true;
                send(request, response, representation, file, shared, range.first(), range.length(), callback);
            } else {
                String boundary = MultipartRanges.boundary();
                String partType = resource.contentType.value();
                response.status(HttpStatus.PARTIAL_CONTENT_206);
                out.put(HttpHeader.CONTENT_TYPE, MultipartRanges.contentType(boundary));
                out.put(
                        HttpHeader.CONTENT_LENGTH,
                        Long.toString(
                                MultipartRanges.contentLength(satisfiable, partType, representation.size, boundary)));
                handedOver = true;
                MultipartRanges.send(
                        response,
                        satisfiable,
                        partType,
                        representation.size,
                        boundary,
                        representation.content,
                        file,
                        callback);
            }
        } catch (RuntimeException x) {
            if (!handedOver) {
                finish(file, shared);
            }
            callback.failed(x);
        }
    }

    /**
     * Compresses the file with gzip, on a thread that may block, and caches the result with the resource.
     *
     * @return the resource with its compressed representation, or null if the file changed since it was cached
     */
    private StaticResource compress(StaticResource resource) throws IOException {
        Representation identity = resource.identity;
        byte[] bytes = identity.content != null ? identity.content : FileResolver.read(identity);
        if (bytes == null) {
            return null;
        }
        byte[] gzipped = Gzip.compress(bytes);
        // Content that does not shrink (mislabelled as text) is sent as is, and remembered as such.
        Representation compressed = gzipped.length < bytes.length ? identity.gzipped(gzipped) : identity;
        StaticResource updated = resource.withCompressed(compressed);
        cache.replace(resource, updated);
        LOG.log(Level.DEBUG, () -> "compressed " + identity.path + ": " + bytes.length + " -> " + gzipped.length);
        return updated;
    }

    private void addValidators(HttpFields out, StaticResource resource, Representation representation) {
        if (resource.hasVariants()) {
            out.put(VARY);
        }
        out.put(representation.etagField);
        out.put(representation.lastModifiedField);
        if (cacheControl != null) {
            out.put(cacheControl);
        }
    }

    /**
     * Sends one region, from memory or zero-copy from the file, which is released (a file the cache keeps open) or
     * closed when done.
     */
    private static void send(
            Request request,
            Response response,
            Representation representation,
            FileChannel file,
            OpenFile shared,
            long position,
            long count,
            Callback callback) {
        if (representation.content != null) {
            response.write(true, ByteBuffer.wrap(representation.content, (int) position, (int) count), callback);
            return;
        }
        // A wrapper may override the file write (to throttle, to transform): it gets the file, as it always did; so
        // does every response when an access log wraps them all. A read of a mapped file truncated meanwhile faults.
        // HTTP/1.1 hands the mapping to the kernel (which returns EFAULT), copies a region that fits its output buffer
        // into it inside the writer's catch-all (the fault fails this send's callback), or, over TLS, gives it to the
        // engine, whose fault the TLS connection turns into an I/O error. HTTP/2 (cleartext or TLS) copies it into
        // its DATA frames under a guard that fails only this stream: the server's own response, told it is a mapping.
        //
        // On HTTP/1.1 cleartext the region goes with its head in one gathered write, then one write per socket-full,
        // whatever its size, rather than head then sendfile: each JDK transferTo is an fstat, a copy_file_range that
        // fails for a socket and a sendfile (three calls per socket-full instead of one), and the reader of what
        // sendfile queued spent about twice the CPU per request of a reader of what the kernel copied (10 MiB over
        // loopback, where the reader was the bottleneck: BENCHMARKS.md, "Round 2, fifth stop").
        boolean http2 = request.version() == HttpVersion.HTTP_2;
        ByteBuffer mapped = shared != null
                        && !(response instanceof ResponseWrapper)
                        && (!http2 || response instanceof ServerResponse)
                ? shared.mapped(position, count)
                : null;
        FileSendCallback sending =
                new FileSendCallback(file, shared, representation.path, position + count, !http2, callback);
        try {
            if (mapped != null && http2) {
                ((ServerResponse) response).writeFileMapping(true, mapped, sending);
            } else if (mapped != null) {
                response.write(true, mapped, sending);
            } else {
                response.write(file, position, count, true, sending);
            }
        } catch (RuntimeException | Error x) {
            sending.release(); // the write will not complete the callback that would have
            throw x;
        }
    }

    /** A response is done with its file: gives back its reference to a file the cache keeps open, else closes it. */
    static void finish(FileChannel file, OpenFile shared) {
        if (shared != null) {
            shared.release();
        } else {
            close(file);
        }
    }

    /** Redirects {@code /dir} to {@code /dir/}, keeping the query, as a path-absolute reference. */
    private static void redirectToDirectory(Request request, Response response, Callback callback) {
        String target = request.target();
        String location;
        if (target.startsWith("/")) {
            int query = target.indexOf('?');
            location = query < 0 ? target + "/" : target.substring(0, query) + "/" + target.substring(query);
        } else {
            // Absolute-form target: rebuild the path from its decoded form.
            StringBuilder path = new StringBuilder();
            for (String segment : request.path().split("/")) {
                if (!segment.isEmpty()) {
                    path.append('/').append(DirectoryListing.encodeSegment(segment));
                }
            }
            location = path + "/" + request.query().map(q -> "?" + q).orElse("");
        }
        // "//host/dir/" would be a network-path reference, to another site: keep a single leading slash.
        int start = 0;
        while (start + 1 < location.length() && location.charAt(start + 1) == '/') {
            start++;
        }
        response.headers().put(HttpHeader.LOCATION, location.substring(start));
        error(response, HttpStatus.MOVED_PERMANENTLY_301, callback);
    }

    private void list(Request request, Response response, Callback callback, Path directory) {
        byte[] page;
        try {
            page = DirectoryListing.render(directory, request.path(), resolver);
        } catch (IOException x) {
            LOG.log(Level.DEBUG, () -> "cannot list " + directory + ": " + x);
            error(response, HttpStatus.FORBIDDEN_403, callback);
            return;
        }
        response.headers().put(TEXT_HTML);
        response.headers().put(HttpHeader.CONTENT_LENGTH, Integer.toString(page.length));
        response.write(true, ByteBuffer.wrap(page), callback);
    }

    private static void error(Response response, int status, Callback callback) {
        error(response, status, callback, "");
    }

    /** An error with a plain-text body: the status line, then {@code detail} (empty, or lines ending with LF). */
    private static void error(Response response, int status, Callback callback, String detail) {
        byte[] body = (status + " " + HttpStatus.reason(status) + "\n" + detail).getBytes(StandardCharsets.UTF_8);
        response.status(status);
        response.headers().remove(HttpHeader.CONTENT_ENCODING);
        response.headers().put(TEXT_PLAIN);
        response.headers().put(HttpHeader.CONTENT_LENGTH, Integer.toString(body.length));
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    private static void close(FileChannel file) {
        if (file != null) {
            try {
                file.close();
            } catch (IOException x) {
                LOG.log(Level.DEBUG, "closing " + file + " failed", x);
            }
        }
    }

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        out.append(indent).append(description).append('\n');
        out.append(indent).append("  ").append(resolver.toString()).append('\n');
        out.append(indent).append("  ").append(cache.toString()).append(' ');
        out.append(cacheStatistics().toString()).append('\n');
    }

    @Override
    public String toString() {
        return description;
    }
}
