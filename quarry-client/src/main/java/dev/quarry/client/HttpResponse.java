package dev.quarry.client;

import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * A response: status, header fields, and a body that is streamed from the connection with back pressure.
 *
 * <p>The response is available as soon as its head arrived; its content is read with {@link #body()} (an
 * {@link InputStream}: the connection reads from the network only as fast as the stream is read) or whole with
 * {@link #asBytes()}, {@link #asString()} or {@link #toFile(Path)}. Reading the content to its end returns the
 * connection to its pool; {@link #close()} before the end closes the connection instead. Close every response you do
 * not read to the end (try-with-resources); the whole-body helpers close it themselves.
 *
 * <p>Thread-safety: the status and fields may be read from any thread; the content is read by one thread at a time.
 */
public final class HttpResponse implements AutoCloseable {
    private final HttpRequest request;
    private final HttpVersion version;
    private final int status;
    private final String reason;
    private final HttpFields headers;
    private final HttpFields trailers;
    private final ResponseContent content;
    private final InputStream stream; // content, or content decoded

    HttpResponse(
            HttpRequest request,
            HttpVersion version,
            int status,
            String reason,
            HttpFields headers,
            HttpFields trailers,
            ResponseContent content,
            InputStream stream) {
        this.request = request;
        this.version = version;
        this.status = status;
        this.reason = reason;
        this.headers = headers;
        this.trailers = trailers;
        this.content = content;
        this.stream = stream;
    }

    /** @return the request this response answers */
    public HttpRequest request() {
        return request;
    }

    /** @return the version of the response */
    public HttpVersion version() {
        return version;
    }

    /** @return the status code */
    public int status() {
        return status;
    }

    /** @return the reason phrase, possibly empty */
    public String reason() {
        return reason;
    }

    /** @return the header fields (immutable) */
    public HttpFields headers() {
        return headers;
    }

    /**
     * @return the trailer fields of chunked content (immutable once the content was read to its end; empty before and
     *     when there are none)
     */
    public HttpFields trailers() {
        return content.isComplete() ? trailers.asImmutable() : new HttpFields().asImmutable();
    }

    /**
     * The content as a stream, read from the network on demand (and decoded when the client decoded gzip for the
     * application: see {@link HttpClient.Builder#contentDecoding(boolean)}). Close it (or the response) if you stop
     * before its end.
     *
     * @return the stream; the same one on every call
     */
    public InputStream body() {
        return stream;
    }

    /**
     * Reads the whole content into memory and closes the response.
     *
     * @return the bytes
     * @throws IOException if the exchange fails or times out
     */
    public byte[] asBytes() throws IOException {
        try (content) {
            return stream.readAllBytes();
        }
    }

    /**
     * Reads the whole content as text, in the charset of {@code Content-Type} (UTF-8 if none or unknown), and closes
     * the response.
     *
     * @return the text
     * @throws IOException if the exchange fails or times out
     */
    public String asString() throws IOException {
        return new String(asBytes(), charset());
    }

    /**
     * Writes the content to a file as it arrives (never more than one network buffer in memory) and closes the
     * response. The file is created or replaced.
     *
     * @param file where to write
     * @return {@code file}
     * @throws IOException if the exchange fails or the file cannot be written; the file may then hold part of the
     *     content
     */
    public Path toFile(Path file) throws IOException {
        try (content;
                FileChannel channel = FileChannel.open(
                        file,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE)) {
            if (stream != content) {
                try (OutputStream out = Channels.newOutputStream(channel)) {
                    stream.transferTo(out);
                }
                return file;
            }
            while (content.next(chunk -> {
                while (chunk.hasRemaining()) {
                    channel.write(chunk);
                }
            })) {
                // next chunk
            }
        }
        return file;
    }

    /**
     * Copies the content to a stream as it arrives and closes the response.
     *
     * @param out where to copy; not closed
     * @return the number of bytes copied
     * @throws IOException if the exchange fails or {@code out} does
     */
    public long transferTo(OutputStream out) throws IOException {
        try (content) {
            return stream.transferTo(out);
        }
    }

    /** @return the length of the content the application reads, if the server declared it (and it is not decoded) */
    OptionalLong contentLength() {
        try {
            return headers.get(HttpHeader.CONTENT_LENGTH)
                    .map(value -> OptionalLong.of(Long.parseLong(value.strip())))
                    .orElse(OptionalLong.empty());
        } catch (NumberFormatException x) {
            return OptionalLong.empty();
        }
    }

    /** Closes the response: if its content was not read to the end, its connection is closed rather than reused. */
    @Override
    public void close() {
        content.close();
    }

    private Charset charset() {
        String type = headers.get(HttpHeader.CONTENT_TYPE).orElse("");
        int index = type.toLowerCase(Locale.ROOT).indexOf("charset=");
        if (index < 0) {
            return StandardCharsets.UTF_8;
        }
        String name = type.substring(index + 8).split("[;,\\s]", 2)[0].replace("\"", "");
        try {
            return Charset.forName(name);
        } catch (IllegalCharsetNameException | UnsupportedCharsetException x) {
            return StandardCharsets.UTF_8;
        }
    }

    @Override
    public String toString() {
        return "HttpResponse{" + version + " " + status + " " + reason + ", " + request + "}";
    }
}
