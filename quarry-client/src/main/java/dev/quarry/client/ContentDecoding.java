package dev.quarry.client;

import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpVersion;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.zip.GZIPInputStream;

/**
 * Transparent {@code gzip} decoding (RFC 9110 §8.4.1.3), as browsers and OkHttp do it: when the client decodes content
 * and the application did not set {@code Accept-Encoding} itself, the request offers {@code gzip}, and a response
 * whose only coding is {@code gzip} reaches the application decoded, without {@code Content-Encoding} and
 * {@code Content-Length} (which described the encoded bytes). An application that sets its own
 * {@code Accept-Encoding} receives the content as sent.
 */
final class ContentDecoding {
    private ContentDecoding() {}

    /** @return whether the request offers gzip on behalf of the application */
    static boolean offersGzip(HttpClient client, HttpRequest request) {
        return client.decodesContent() && !request.headers().contains(HttpHeader.ACCEPT_ENCODING);
    }

    /** Builds the response the application sees: decoded when the client offered gzip and the server used it. */
    static HttpResponse response(
            HttpClient client,
            HttpRequest request,
            HttpVersion version,
            int status,
            String reason,
            HttpFields headers,
            HttpFields trailers,
            ResponseContent content) {
        if (!offersGzip(client, request) || !isGzip(headers) || !hasContent(request, status)) {
            return new HttpResponse(
                    request, version, status, reason, headers.asImmutable(), trailers, content, content);
        }
        HttpFields decodedHeaders = new HttpFields();
        headers.forEach(field -> {
            if (!field.is(HttpHeader.CONTENT_ENCODING) && !field.is(HttpHeader.CONTENT_LENGTH)) {
                decodedHeaders.add(field);
            }
        });
        InputStream decoded = new LazyGzipStream(content);
        return new HttpResponse(
                request, version, status, reason, decodedHeaders.asImmutable(), trailers, content, decoded);
    }

    private static boolean isGzip(HttpFields headers) {
        String coding = headers.get(HttpHeader.CONTENT_ENCODING).orElse("");
        String name = coding.strip().toLowerCase(Locale.ROOT);
        return name.equals("gzip") || name.equals("x-gzip");
    }

    private static boolean hasContent(HttpRequest request, int status) {
        return !request.method().equals("HEAD") && status != 204 && status != 304;
    }

    /**
     * Opens the gzip stream on the first read, not when the head arrives: {@link GZIPInputStream}'s constructor reads
     * the gzip header, which would block the thread delivering the response (and fail on an empty body).
     */
    private static final class LazyGzipStream extends InputStream {
        private final ResponseContent encoded;
        private InputStream decoded;

        LazyGzipStream(ResponseContent encoded) {
            this.encoded = encoded;
        }

        private InputStream decoded() throws IOException {
            if (decoded == null) {
                try {
                    decoded = new GZIPInputStream(encoded, 8192);
                } catch (java.util.zip.ZipException x) {
                    throw new IOException("the response's gzip content is invalid: " + x.getMessage(), x);
                }
            }
            return decoded;
        }

        @Override
        public int read() throws IOException {
            return decoded().read();
        }

        @Override
        public int read(byte[] bytes, int offset, int length) throws IOException {
            try {
                int n = decoded().read(bytes, offset, length);
                if (n < 0) {
                    // Read the encoded stream to its end (trailing bytes after the gzip member are an error), so that
                    // the connection is reused.
                    if (encoded.read() >= 0) {
                        throw new IOException("the response has bytes after its gzip content");
                    }
                }
                return n;
            } catch (java.util.zip.ZipException x) {
                throw new IOException("the response's gzip content is invalid: " + x.getMessage(), x);
            }
        }

        @Override
        public void close() {
            encoded.close();
        }
    }
}
