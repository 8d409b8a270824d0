package dev.quarry.server;

import dev.quarry.http.FormData;
import dev.quarry.http.HttpException;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.MediaType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Reads an {@code application/x-www-form-urlencoded} request body (what an HTML form posts by default) into
 * {@link FormData}: blocking with {@link #read(Request)} in a {@link Handler}, or asynchronously with
 * {@link #readAsync(Request, FormConfig)} in an {@link AsyncHandler}.
 *
 * <p>Errors are {@link HttpException}s, which the server answers with their status when the handler lets them out:
 * 415 if the Content-Type is another one (a request without Content-Type is read as a form) or names an unknown
 * charset, 413 past {@link FormConfig#maxSize()} or {@link FormConfig#maxFields()}, 400 for a malformed
 * percent-escape or bytes invalid in the charset. The charset is the Content-Type's {@code charset} parameter, else
 * {@link FormConfig#charset()}.
 *
 * <p>Cost: the body is held once in a byte array (at most {@code maxSize}), then decoded.
 */
public final class Forms {
    private static final String FORM = "application/x-www-form-urlencoded";

    private Forms() {}

    /**
     * Reads the body with {@link FormConfig#DEFAULT}, blocking.
     *
     * @param request the request
     * @return the fields
     * @throws HttpException 400, 413 or 415 naming the problem
     * @throws IOException if reading fails
     */
    public static FormData read(Request request) throws IOException {
        return read(request, FormConfig.DEFAULT);
    }

    /**
     * Reads the body, blocking: for a {@link Handler}, which runs where it may block.
     *
     * @param request the request
     * @param config the limits and the default charset
     * @return the fields
     * @throws HttpException 400, 413 or 415 naming the problem
     * @throws IOException if reading fails
     */
    public static FormData read(Request request, FormConfig config) throws IOException {
        Charset charset = charset(request, config);
        byte[] body = new byte[initialCapacity(request, config)];
        int size = 0;
        // Closed on every path: the stream holds a chunk of the connection's pooled buffer until then.
        try (InputStream in = request.inputStream()) {
            while (true) {
                if (size == body.length) {
                    if (size > config.maxSize()) {
                        throw tooLarge(config);
                    }
                    body = Arrays.copyOf(body, (int) Math.min((long) config.maxSize() + 1, Math.max(64L, size * 2L)));
                }
                int n = in.read(body, size, body.length - size);
                if (n < 0) {
                    break;
                }
                size += n;
            }
        }
        if (size > config.maxSize()) {
            throw tooLarge(config);
        }
        return FormData.parse(body, 0, size, charset, config.maxFields());
    }

    /**
     * Reads the body without blocking, with {@link Request#read()} and {@link Request#demand(Runnable)}: for an
     * {@link AsyncHandler}. The future completes on the thread that delivered the last chunk, possibly an I/O thread:
     * a stage that may block must use an {@code ...Async} method of the future with an executor.
     *
     * @param request the request
     * @param config the limits and the default charset
     * @return the fields, or a failure: an {@link HttpException} (400, 413, 415) or the read failure
     */
    public static CompletableFuture<FormData> readAsync(Request request, FormConfig config) {
        CompletableFuture<FormData> result = new CompletableFuture<>();
        try {
            new AsyncReader(request, config, charset(request, config), result).run();
        } catch (Throwable x) {
            result.completeExceptionally(x);
        }
        return result;
    }

    private static Charset charset(Request request, FormConfig config) {
        Optional<String> contentType = request.headers().get(HttpHeader.CONTENT_TYPE);
        if (contentType.isEmpty()) {
            return config.charset();
        }
        MediaType type = MediaType.parse(contentType.get());
        if (!type.is(FORM)) {
            throw new HttpException(
                    HttpStatus.UNSUPPORTED_MEDIA_TYPE_415,
                    "expected " + FORM + ", not " + type.type() + "/" + type.subtype());
        }
        Charset charset = type.charset().orElse(config.charset());
        if (request.contentLength() > config.maxSize()) {
            throw tooLarge(config);
        }
        return charset;
    }

    private static int initialCapacity(Request request, FormConfig config) {
        long length = request.contentLength();
        // One more than the limit leaves room to detect an undeclared body that is too large.
        return (int)
                (length >= 0 ? Math.min(length + 1, config.maxSize() + 1L) : Math.min(1024, config.maxSize() + 1L));
    }

    private static HttpException tooLarge(FormConfig config) {
        return new HttpException(
                HttpStatus.CONTENT_TOO_LARGE_413, "form body larger than " + config.maxSize() + " bytes");
    }

    /** Reads chunks as they arrive; runs as the demand callback, so it never blocks. One reader at a time. */
    private static final class AsyncReader implements Runnable {
        private final Request request;
        private final FormConfig config;
        private final Charset charset;
        private final CompletableFuture<FormData> result;
        private byte[] body;
        private int size;

        AsyncReader(Request request, FormConfig config, Charset charset, CompletableFuture<FormData> result) {
            this.request = request;
            this.config = config;
            this.charset = charset;
            this.result = result;
            this.body = new byte[initialCapacity(request, config)];
        }

        @Override
        public void run() {
            try {
                while (true) {
                    Content.Chunk chunk = request.read();
                    if (chunk == null) {
                        request.demand(this);
                        return;
                    }
                    try {
                        if (chunk.failure() != null) {
                            result.completeExceptionally(chunk.failure());
                            return;
                        }
                        int n = chunk.remaining();
                        if ((long) size + n > config.maxSize()) {
                            result.completeExceptionally(tooLarge(config));
                            return;
                        }
                        if (size + n > body.length) {
                            body = Arrays.copyOf(body, Math.min(config.maxSize(), Math.max(size + n, size * 2)));
                        }
                        chunk.byteBuffer().get(body, size, n);
                        size += n;
                        if (chunk.isLast()) {
                            result.complete(FormData.parse(body, 0, size, charset, config.maxFields()));
                            return;
                        }
                    } finally {
                        chunk.release();
                    }
                }
            } catch (Throwable x) {
                result.completeExceptionally(x);
            }
        }
    }
}
