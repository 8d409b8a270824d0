package dev.quarry.server.h2;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpFields;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Content;
import dev.quarry.server.Handler;
import dev.quarry.server.Handlers;
import dev.quarry.server.Request;
import dev.quarry.server.Response;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;

/**
 * The same few handlers in both shapes — blocking ({@link Handler}, streams) and asynchronous ({@link AsyncHandler},
 * demand and callbacks) — so that a test can run one scenario through each.
 */
final class TestHandlers {
    private TestHandlers() {}

    /** Which handler shape a route uses. */
    enum Shape {
        BLOCKING,
        ASYNC
    }

    /** A greeting naming the protocol version. */
    static AsyncHandler hello(Shape shape) {
        return switch (shape) {
            case BLOCKING -> blocking((req, res) -> res.send(shape + " hello over " + req.version()));
            case ASYNC ->
                AsyncHandler.nonBlocking(
                        (req, res, cb) -> res.write(true, utf8(shape + " hello over " + req.version()), cb));
        };
    }

    /** Echoes the request body as it arrives (streaming both ways, so back pressure runs both ways). */
    static AsyncHandler echo(Shape shape) {
        return switch (shape) {
            case BLOCKING ->
                blocking((req, res) -> {
                    try (InputStream in = req.inputStream();
                            OutputStream out = res.outputStream()) {
                        in.transferTo(out);
                    }
                });
            case ASYNC -> AsyncHandler.nonBlocking((req, res, cb) -> new AsyncEcho(req, res, cb).run());
        };
    }

    /** {@code ?size=N&seed=S}: N pseudo-random octets from seed S (as {@link Http2ServerTestSupport#randomBytes}). */
    static AsyncHandler download(Shape shape) {
        return switch (shape) {
            case BLOCKING ->
                blocking((req, res) -> {
                    byte[] body = body(req);
                    try (OutputStream out = res.outputStream()) {
                        for (int at = 0; at < body.length; at += 65_536) {
                            out.write(body, at, Math.min(65_536, body.length - at));
                        }
                    }
                });
            case ASYNC ->
                AsyncHandler.nonBlocking((req, res, cb) -> {
                    byte[] body = body(req);
                    new AsyncWriter(res, ByteBuffer.wrap(body), 65_536, cb).run();
                });
        };
    }

    /** Answers {@code trailers} with trailers {@code x-digest} (SHA-256 of the body) and {@code x-count}. */
    static AsyncHandler withTrailers(Shape shape) {
        return switch (shape) {
            case BLOCKING ->
                blocking((req, res) -> {
                    byte[] body = "body with trailers".getBytes(StandardCharsets.UTF_8);
                    res.trailers(
                            () -> new HttpFields().add("x-digest", sha256(body)).add("x-count", "1"));
                    try (OutputStream out = res.outputStream()) {
                        out.write(body);
                    }
                });
            case ASYNC ->
                AsyncHandler.nonBlocking((req, res, cb) -> {
                    byte[] body = "body with trailers".getBytes(StandardCharsets.UTF_8);
                    res.trailers(
                            () -> new HttpFields().add("x-digest", sha256(body)).add("x-count", "1"));
                    res.write(true, ByteBuffer.wrap(body), cb);
                });
        };
    }

    static AsyncHandler blocking(Handler handler) {
        return Handlers.blocking(handler);
    }

    private static byte[] body(Request req) {
        int size = Integer.parseInt(req.queryParameter("size").orElse("0"));
        long seed = Long.parseLong(req.queryParameter("seed").orElse("1"));
        byte[] body = new byte[size];
        new Random(seed).nextBytes(body);
        return body;
    }

    static ByteBuffer utf8(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException x) {
            throw new AssertionError(x);
        }
    }

    /** Reads a chunk, writes a copy, and only reads the next one when that write completed. */
    private static final class AsyncEcho implements Runnable {
        private final Request request;
        private final Response response;
        private final Callback callback;
        private final Callback next;

        AsyncEcho(Request request, Response response, Callback callback) {
            this.request = request;
            this.response = response;
            this.callback = callback;
            this.next = Callback.from(InvocationType.NON_BLOCKING, this, callback::failed);
        }

        @Override
        public void run() {
            Content.Chunk chunk = request.read();
            if (chunk == null) {
                request.demand(this);
                return;
            }
            if (chunk.failure() != null) {
                callback.failed(chunk.failure());
                return;
            }
            ByteBuffer copy = ByteBuffer.allocate(chunk.remaining());
            copy.put(chunk.byteBuffer()).flip();
            boolean last = chunk.isLast();
            chunk.release();
            if (last) {
                response.write(true, copy, callback);
            } else {
                response.write(false, copy, next);
            }
        }
    }

    /** Writes {@code content} in slices, each after the previous write completed. */
    private static final class AsyncWriter implements Runnable {
        private final Response response;
        private final ByteBuffer content;
        private final int slice;
        private final Callback callback;
        private final Callback next;

        AsyncWriter(Response response, ByteBuffer content, int slice, Callback callback) {
            this.response = response;
            this.content = content;
            this.slice = slice;
            this.callback = callback;
            this.next = Callback.from(InvocationType.NON_BLOCKING, this, callback::failed);
        }

        @Override
        public void run() {
            int length = Math.min(slice, content.remaining());
            ByteBuffer part = content.slice(content.position(), length);
            content.position(content.position() + length);
            boolean last = !content.hasRemaining();
            response.write(last, part, last ? callback : next);
        }
    }
}
