package dev.quarry.server;

import dev.quarry.http.HttpException;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.MediaType;
import dev.quarry.http.MultipartParser;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A {@code multipart/form-data} request body (RFC 7578: HTML forms with {@code enctype="multipart/form-data"}, file
 * uploads), read and stored part by part: a part up to {@link MultipartConfig#memoryThreshold()} bytes stays in
 * memory, a larger one is streamed to a temporary file. Close it (try-with-resources) when the handler is done: that
 * deletes the temporary files not {@linkplain Part#moveTo(Path) moved} elsewhere.
 *
 * <pre>{@code
 * try (Multipart form = Multipart.parse(request)) {
 *     String title = form.value("title").orElse("");
 *     Multipart.Part photo = form.part("photo").orElseThrow();
 *     photo.moveTo(uploads.resolve(UUID.randomUUID() + ".jpg")); // never trust photo.filename() as a path
 * }
 * }</pre>
 *
 * <p>Reading blocks (it uses {@link Request#inputStream()} and writes files): call it from a {@link Handler}, which
 * runs on a virtual thread. Errors are {@link HttpException}s that the server answers with their status: 415 for
 * another Content-Type, 400 for a missing boundary or malformed content, 413 past a limit of
 * {@link MultipartConfig}; if parsing fails, the files written so far are deleted before the exception leaves.
 *
 * <p>Thread-safety: not thread-safe; confined to the handler.
 */
public final class Multipart implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Multipart.class.getName());
    private static final int READ_SIZE = 16 * 1024;

    private final List<Part> parts;
    private boolean closed;

    private Multipart(List<Part> parts) {
        this.parts = List.copyOf(parts);
    }

    /**
     * Reads the body with {@link MultipartConfig#DEFAULT}, blocking.
     *
     * @param request the request, with a {@code multipart/form-data} Content-Type
     * @return the parts; close it
     * @throws HttpException 400, 413 or 415 naming the problem
     * @throws IOException if reading the body or writing a temporary file fails
     */
    public static Multipart parse(Request request) throws IOException {
        return parse(request, MultipartConfig.DEFAULT);
    }

    /**
     * Reads the body, blocking.
     *
     * @param request the request, with a {@code multipart/form-data} Content-Type
     * @param config the limits and where large parts go
     * @return the parts; close it
     * @throws HttpException 400, 413 or 415 naming the problem
     * @throws IOException if reading the body or writing a temporary file fails
     */
    public static Multipart parse(Request request, MultipartConfig config) throws IOException {
        String contentType = request.headers()
                .get(HttpHeader.CONTENT_TYPE)
                .orElseThrow(() -> new HttpException(
                        HttpStatus.UNSUPPORTED_MEDIA_TYPE_415,
                        "expected multipart/form-data, the request has no Content-Type"));
        String boundary = MultipartParser.boundary(MediaType.parse(contentType));
        if (request.contentLength() > config.limits().maxTotalSize()) {
            throw new HttpException(
                    HttpStatus.CONTENT_TOO_LARGE_413,
                    "multipart body larger than " + config.limits().maxTotalSize() + " bytes");
        }
        Collector collector = new Collector(config);
        try {
            MultipartParser parser = new MultipartParser(boundary, config.limits(), collector);
            byte[] buffer = new byte[READ_SIZE];
            // Closed on every path: the stream holds a chunk of the connection's pooled buffer until then.
            try (InputStream in = request.inputStream()) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    parser.parse(buffer, 0, n);
                }
            }
            parser.finish();
            return new Multipart(collector.parts);
        } catch (Throwable x) {
            collector.discard(x);
            throw x;
        }
    }

    /** @return every part, in order */
    public List<Part> parts() {
        return parts;
    }

    /**
     * @param name a form field name
     * @return the first part of that name
     */
    public Optional<Part> part(String name) {
        for (Part part : parts) {
            if (part.name().equals(name)) {
                return Optional.of(part);
            }
        }
        return Optional.empty();
    }

    /**
     * @param name a form field name
     * @return every part of that name (e.g. {@code <input type="file" multiple>}), in order
     */
    public List<Part> parts(String name) {
        return parts.stream().filter(p -> p.name().equals(name)).toList();
    }

    /**
     * The text of a form field that is not a file.
     *
     * @param name a form field name
     * @return the text of the first part of that name without a file name, decoded with its charset (UTF-8 unless its
     *     Content-Type names another)
     * @throws UncheckedIOException if the part is in a file that cannot be read
     */
    public Optional<String> value(String name) {
        for (Part part : parts) {
            if (part.name().equals(name) && part.filename().isEmpty()) {
                try {
                    return Optional.of(part.asString());
                } catch (IOException x) {
                    throw new UncheckedIOException(x);
                }
            }
        }
        return Optional.empty();
    }

    /** Deletes the temporary files of the parts that were not moved. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Part part : parts) {
            part.delete();
        }
    }

    @Override
    public String toString() {
        return "Multipart" + parts;
    }

    /** One part: a form field or a file, its content in memory or in a temporary file. */
    public static final class Part {
        private final MultipartParser.PartHead head;
        private final byte[] memory;
        private final long size;
        private Path file;
        private boolean moved;

        private Part(MultipartParser.PartHead head, byte[] memory, long size, Path file) {
            this.head = head;
            this.memory = memory;
            this.size = size;
            this.file = file;
        }

        /** @return the form field name */
        public String name() {
            return head.name();
        }

        /**
         * @return the file name the client sent ({@code filename*} preferred), if the part is a file; a name to show,
         *     never a path to use: it may contain anything, {@code ../} included
         */
        public Optional<String> filename() {
            return head.filename();
        }

        /** @return the part's Content-Type, {@code text/plain} when it has none */
        public String contentType() {
            return head.contentType();
        }

        /** @return every header field of the part */
        public HttpFields headers() {
            return head.headers();
        }

        /** @return the number of content bytes */
        public long size() {
            return size;
        }

        /** @return whether the content is in memory rather than in a temporary file */
        public boolean isInMemory() {
            return file == null;
        }

        /** @return the temporary file that holds the content, if it is not in memory; deleted by {@code close()} */
        public Optional<Path> path() {
            return Optional.ofNullable(file);
        }

        /**
         * @return a new stream over the content
         * @throws IOException if the temporary file cannot be opened
         */
        public InputStream inputStream() throws IOException {
            return file == null ? new ByteArrayInputStream(memory, 0, (int) size) : Files.newInputStream(file);
        }

        /**
         * @return the content
         * @throws IOException if the temporary file cannot be read
         */
        public byte[] bytes() throws IOException {
            return file == null ? Arrays.copyOf(memory, (int) size) : Files.readAllBytes(file);
        }

        /**
         * @return the content as text, decoded with the charset of its Content-Type, else UTF-8 (malformed bytes
         *     replaced)
         * @throws IOException if the temporary file cannot be read
         */
        public String asString() throws IOException {
            Charset charset = StandardCharsets.UTF_8;
            try {
                charset = MediaType.parse(contentType()).charset().orElse(charset);
            } catch (HttpException x) {
                // A Content-Type this server cannot interpret: the field is still text; RFC 7578 §4.4 says UTF-8.
            }
            return file == null ? new String(memory, 0, (int) size, charset) : Files.readString(file, charset);
        }

        /**
         * Moves the content to {@code target}: a rename of the temporary file where possible, else a copy. The
         * target must not exist. After this, {@link Multipart#close()} leaves the content where it is.
         *
         * @param target where the content goes
         * @throws IOException if the target exists or cannot be written
         */
        public void moveTo(Path target) throws IOException {
            if (file == null) {
                Files.write(target, Arrays.copyOf(memory, (int) size), StandardOpenOption.CREATE_NEW);
            } else {
                Files.move(file, target);
                file = target;
                moved = true;
            }
        }

        private void delete() {
            if (file != null && !moved) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException x) {
                    LOG.log(Level.WARNING, "cannot delete the temporary file of multipart part '" + name() + "'", x);
                }
            }
        }

        @Override
        public String toString() {
            return "Part{" + name() + filename().map(f -> ", file " + f).orElse("") + ", " + contentType() + ", " + size
                    + " bytes" + (file == null ? "" : " in " + file) + "}";
        }
    }

    /** Stores the parts as the parser reports them, on the reading thread. */
    private static final class Collector implements MultipartParser.Listener {
        private final MultipartConfig config;
        private final List<Part> parts = new ArrayList<>();
        private MultipartParser.PartHead head;
        private byte[] memory = new byte[0];
        private long size;
        private Path file;
        private OutputStream out;

        Collector(MultipartConfig config) {
            this.config = config;
        }

        @Override
        public void onPartBegin(MultipartParser.PartHead head) {
            this.head = head;
            this.memory = new byte[Math.min(1024, config.memoryThreshold())];
            this.size = 0;
        }

        @Override
        public void onPartContent(byte[] bytes, int offset, int length) throws IOException {
            if (out == null && size + length > config.memoryThreshold()) {
                file = config.tempDirectory().isPresent()
                        ? Files.createTempFile(config.tempDirectory().get(), "quarry-multipart-", ".part")
                        : Files.createTempFile("quarry-multipart-", ".part");
                out = Files.newOutputStream(file);
                out.write(memory, 0, (int) size);
                memory = null;
            }
            if (out != null) {
                out.write(bytes, offset, length);
            } else {
                if (size + length > memory.length) {
                    memory = Arrays.copyOf(
                            memory, (int) Math.min(config.memoryThreshold(), Math.max(size + length, size * 2)));
                }
                System.arraycopy(bytes, offset, memory, (int) size, length);
            }
            size += length;
        }

        @Override
        public void onPartEnd() throws IOException {
            if (out != null) {
                out.close();
                out = null;
            }
            parts.add(new Part(head, memory, size, file));
            head = null;
            memory = null;
            file = null;
        }

        /** Parsing failed: deletes every file written so far; a failure to do so is added to {@code failure}. */
        void discard(Throwable failure) {
            try {
                if (out != null) {
                    out.close();
                }
                if (file != null) {
                    Files.deleteIfExists(file);
                }
            } catch (IOException x) {
                failure.addSuppressed(x);
            }
            for (Part part : parts) {
                part.delete();
            }
        }
    }
}
