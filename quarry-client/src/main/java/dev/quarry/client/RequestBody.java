package dev.quarry.client;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The content of a request: bytes, a string, a file or a stream. A body whose length is known is sent with
 * {@code Content-Length}; a stream of unknown length is sent chunked.
 *
 * <p>A body is <em>replayable</em> when it can be sent again (bytes, strings, files): only such a request may be
 * retried on a new connection after a pooled connection turned out to be closed by the server.
 *
 * <p>Thread-safety: immutable, except that a stream body is consumed by the one exchange that sends it.
 */
public abstract sealed class RequestBody {
    private static final RequestBody EMPTY = new Bytes(new byte[0]);

    private RequestBody() {}

    /** @return an empty body: no content, no {@code Content-Length} for methods that do not expect one */
    public static RequestBody empty() {
        return EMPTY;
    }

    /**
     * @param bytes the content; not copied, so it must not change until the request is sent
     * @return a replayable body of known length
     */
    public static RequestBody of(byte[] bytes) {
        return new Bytes(Objects.requireNonNull(bytes, "bytes"));
    }

    /**
     * @param text the content, encoded in UTF-8
     * @return a replayable body of known length
     */
    public static RequestBody of(String text) {
        return of(text, StandardCharsets.UTF_8);
    }

    /**
     * @param text the content
     * @param charset how to encode it
     * @return a replayable body of known length
     */
    public static RequestBody of(String text, Charset charset) {
        return new Bytes(text.getBytes(charset));
    }

    /**
     * A file, read when the request is sent (by the sending thread, never a selector thread), in pooled buffers: its
     * size does not matter for memory.
     *
     * @param file a regular file; its size is read when the request is sent
     * @return a replayable body of known length
     */
    public static RequestBody ofFile(Path file) {
        return new FileBody(Objects.requireNonNull(file, "file"));
    }

    /**
     * A stream of unknown length, sent chunked, read when the request is sent and closed after.
     *
     * @param stream the content
     * @return a body that cannot be replayed
     */
    public static RequestBody ofStream(InputStream stream) {
        return new Stream(Objects.requireNonNull(stream, "stream"), -1);
    }

    /**
     * A stream of known length, sent with {@code Content-Length}; the request fails if the stream ends early.
     *
     * @param stream the content
     * @param length how many bytes it holds
     * @return a body that cannot be replayed
     */
    public static RequestBody ofStream(InputStream stream, long length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative length: " + length);
        }
        return new Stream(Objects.requireNonNull(stream, "stream"), length);
    }

    /**
     * @return the length in bytes if known before sending (a file's is read at this call)
     * @throws IOException if a file's size cannot be read
     */
    public abstract OptionalLong length() throws IOException;

    /** @return whether the body can be sent again, for a retry */
    public abstract boolean isReplayable();

    /**
     * Opens the content for one sending.
     *
     * @return a stream of the content, closed by the sender
     * @throws IOException if a file cannot be opened
     */
    abstract InputStream open() throws IOException;

    /** @return the bytes of an in-memory body, or null */
    byte[] bytes() {
        return null;
    }

    static final class Bytes extends RequestBody {
        private final byte[] bytes;

        Bytes(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public OptionalLong length() {
            return OptionalLong.of(bytes.length);
        }

        @Override
        public boolean isReplayable() {
            return true;
        }

        @Override
        InputStream open() {
            return new java.io.ByteArrayInputStream(bytes);
        }

        @Override
        byte[] bytes() {
            return bytes;
        }

        @Override
        public String toString() {
            return "RequestBody[" + bytes.length + " bytes]";
        }
    }

    static final class FileBody extends RequestBody {
        private final Path file;

        FileBody(Path file) {
            this.file = file;
        }

        @Override
        public OptionalLong length() throws IOException {
            return OptionalLong.of(Files.size(file));
        }

        @Override
        public boolean isReplayable() {
            return true;
        }

        @Override
        InputStream open() throws IOException {
            return Files.newInputStream(file);
        }

        @Override
        public String toString() {
            return "RequestBody[file " + file + "]";
        }
    }

    static final class Stream extends RequestBody {
        private final InputStream stream;
        private final long length;

        Stream(InputStream stream, long length) {
            this.stream = stream;
            this.length = length;
        }

        @Override
        public OptionalLong length() {
            return length < 0 ? OptionalLong.empty() : OptionalLong.of(length);
        }

        @Override
        public boolean isReplayable() {
            return false;
        }

        @Override
        InputStream open() {
            return stream;
        }

        @Override
        public String toString() {
            return "RequestBody[stream" + (length < 0 ? "" : ", " + length + " bytes") + "]";
        }
    }
}
