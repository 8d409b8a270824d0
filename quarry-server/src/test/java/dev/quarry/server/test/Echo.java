package dev.quarry.server.test;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Content;
import dev.quarry.server.Handler;
import dev.quarry.server.Request;
import dev.quarry.server.Response;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Handlers that describe the request they received, in both shapes: the body of the response is a few
 * {@code name: value} lines (method, target, path, query, version, authority, declared length, body length) followed
 * by {@code body: } and the request body itself. {@link #parse(RawResponse)} reads it back.
 */
public final class Echo {
    private Echo() {}

    /** @return a blocking handler that reads the whole body with the input stream and writes with the output stream */
    public static Handler blocking() {
        return (request, response) -> {
            byte[] body = request.inputStream().readAllBytes();
            response.header("Content-Type", "text/plain; charset=utf-8");
            try (OutputStream out = response.outputStream()) {
                out.write(describe(request, body));
            }
        };
    }

    /** @return a non-blocking handler that reads the body on demand and writes it with one asynchronous write */
    public static AsyncHandler async() {
        return new AsyncHandler() {
            @Override
            public void handle(Request request, Response response, Callback callback) {
                new Reader(request, response, callback).run();
            }

            @Override
            public InvocationType invocationType() {
                return InvocationType.NON_BLOCKING;
            }
        };
    }

    /** Reads on demand until the last chunk, then answers. */
    private static final class Reader implements Runnable {
        private final Request request;
        private final Response response;
        private final Callback callback;
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();

        Reader(Request request, Response response, Callback callback) {
            this.request = request;
            this.response = response;
            this.callback = callback;
        }

        @Override
        public void run() {
            while (true) {
                Content.Chunk chunk = request.read();
                if (chunk == null) {
                    request.demand(this);
                    return;
                }
                if (chunk.failure() != null) {
                    callback.failed(chunk.failure());
                    return;
                }
                ByteBuffer bytes = chunk.byteBuffer();
                byte[] copy = new byte[bytes.remaining()];
                bytes.get(copy);
                body.write(copy, 0, copy.length);
                boolean last = chunk.isLast();
                chunk.release();
                if (last) {
                    response.header("Content-Type", "text/plain; charset=utf-8");
                    response.write(true, ByteBuffer.wrap(describe(request, body.toByteArray())), callback);
                    return;
                }
            }
        }
    }

    /**
     * @param request the request
     * @param body its body
     * @return the description the echo handlers answer with
     */
    public static byte[] describe(Request request, byte[] body) {
        String text = "method: " + request.method() + "\n"
                + "target: " + request.target() + "\n"
                + "path: " + request.path() + "\n"
                + "query: " + request.query().orElse("") + "\n"
                + "version: " + request.version().asString() + "\n"
                + "authority: " + request.authority() + "\n"
                + "contentLength: " + request.contentLength() + "\n"
                + "bodyLength: " + body.length + "\n"
                + "body: ";
        byte[] head = text.getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }

    /**
     * @param response a response of an echo handler
     * @return its lines by name; {@code body} is the request body as UTF-8
     */
    public static Map<String, String> parse(RawResponse response) {
        return parse(response.text());
    }

    /**
     * @param text the body of an echo handler's response
     * @return its lines by name; {@code body} is the request body as UTF-8
     */
    public static Map<String, String> parse(String text) {
        Map<String, String> values = new LinkedHashMap<>();
        int at = 0;
        while (at < text.length()) {
            int colon = text.indexOf(": ", at);
            if (colon < 0) {
                throw new IllegalArgumentException("not an echo response: " + text);
            }
            String name = text.substring(at, colon);
            if (name.equals("body")) {
                values.put(name, text.substring(colon + 2));
                return values;
            }
            int end = text.indexOf('\n', colon);
            values.put(name, text.substring(colon + 2, end));
            at = end + 1;
        }
        throw new IllegalArgumentException("echo response without body line: " + text);
    }
}
