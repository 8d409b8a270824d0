package dev.quarry.server.test;

import dev.quarry.core.InvocationType;
import dev.quarry.core.IteratingCallback;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Content;
import dev.quarry.server.Handler;
import dev.quarry.server.Request;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.SplittableRandom;

/**
 * Large bodies for transfer tests: deterministic pseudo-random content named by a seed, its SHA-256 digest, and
 * handlers of both shapes that digest an upload, stream a download or echo a body, so that tests compare lengths and
 * digests (never megabytes in an assertion message).
 */
public final class Bodies {
    private Bodies() {}

    /**
     * @param size the length
     * @param seed picks the content
     * @return {@code size} pseudo-random bytes, the same for the same seed
     */
    public static byte[] content(int size, long seed) {
        byte[] bytes = new byte[size];
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) random.nextInt(256);
        }
        return bytes;
    }

    /** @return the SHA-256 of {@code bytes}, in hex */
    public static String sha256(byte[] bytes) {
        MessageDigest digest = newDigest();
        digest.update(bytes);
        return HexFormat.of().formatHex(digest.digest());
    }

    /** @return how the digesting handlers describe an upload: {@code length:sha256} */
    public static String describe(byte[] bytes) {
        return bytes.length + ":" + sha256(bytes);
    }

    private static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException x) {
            throw new AssertionError(x);
        }
    }

    /** @return a blocking handler that answers {@code length:sha256} of the body it read from the input stream */
    public static Handler blockingDigest() {
        return (request, response) -> {
            MessageDigest digest = newDigest();
            long length = 0;
            try (DigestInputStream in = new DigestInputStream(request.inputStream(), digest)) {
                byte[] buffer = new byte[8192];
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    length += n;
                }
            }
            response.send(length + ":" + HexFormat.of().formatHex(digest.digest()));
        };
    }

    /** @return a non-blocking handler that digests the body as it is demanded, then answers {@code length:sha256} */
    public static AsyncHandler asyncDigest() {
        return AsyncHandler.nonBlocking((request, response, callback) -> new Runnable() {
            private final MessageDigest digest = newDigest();
            private long length;

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
                    length += chunk.remaining();
                    digest.update(chunk.byteBuffer());
                    boolean last = chunk.isLast();
                    chunk.release();
                    if (last) {
                        byte[] answer = (length + ":" + HexFormat.of().formatHex(digest.digest()))
                                .getBytes(StandardCharsets.US_ASCII);
                        response.write(true, ByteBuffer.wrap(answer), callback);
                        return;
                    }
                }
            }
        }.run());
    }

    /**
     * @return a blocking handler that writes {@code size} bytes of {@code seed}'s content (query parameters) through
     *     the output stream, in writes of varying sizes
     */
    public static Handler blockingDownload() {
        return (request, response) -> {
            byte[] content = content(size(request), seed(request));
            SplittableRandom sizes = new SplittableRandom(7);
            try (OutputStream out = response.outputStream()) {
                for (int at = 0; at < content.length; ) {
                    int n = Math.min(content.length - at, 1 + sizes.nextInt(100_000));
                    out.write(content, at, n);
                    at += n;
                }
            }
        };
    }

    /**
     * @return a non-blocking handler that writes {@code size} bytes of {@code seed}'s content in 64 KiB asynchronous
     *     writes, each started when the previous one completed; with {@code length=true} it declares the length
     */
    public static AsyncHandler asyncDownload() {
        return AsyncHandler.nonBlocking((request, response, callback) -> {
            byte[] content = content(size(request), seed(request));
            if (request.queryParameter("length").isPresent()) {
                response.header("Content-Length", String.valueOf(content.length));
            }
            new IteratingCallback() {
                private int at;

                @Override
                protected Action process() {
                    if (at == content.length) {
                        return Action.SUCCEEDED;
                    }
                    int n = Math.min(64 * 1024, content.length - at);
                    ByteBuffer slice = ByteBuffer.wrap(content, at, n);
                    at += n;
                    response.write(at == content.length, slice, this);
                    return Action.SCHEDULED;
                }

                @Override
                protected void onCompleteSuccess() {
                    callback.succeeded();
                }

                @Override
                protected void onCompleteFailure(Throwable cause) {
                    callback.failed(cause);
                }

                @Override
                public InvocationType invocationType() {
                    return InvocationType.NON_BLOCKING;
                }
            }.iterate();
        });
    }

    /** @return a blocking handler that copies the body to the response */
    public static Handler blockingEcho() {
        return (request, response) -> {
            try (OutputStream out = response.outputStream()) {
                request.inputStream().transferTo(out);
            }
        };
    }

    /**
     * @return a non-blocking handler that writes each chunk of the body as it is read, without copying it, and
     *     demands the next chunk only when that write completed: back pressure both ways
     */
    public static AsyncHandler asyncEcho() {
        return AsyncHandler.nonBlocking((request, response, callback) -> new IteratingCallback() {
            private Content.Chunk writing;
            private boolean done;

            @Override
            protected Action process() {
                release();
                if (done) {
                    return Action.SUCCEEDED;
                }
                Content.Chunk chunk = request.read();
                if (chunk == null) {
                    request.demand(this::iterate);
                    return Action.IDLE;
                }
                if (chunk.failure() != null) {
                    throw new IllegalStateException("reading the body failed", chunk.failure());
                }
                writing = chunk;
                done = chunk.isLast();
                response.write(done, chunk.byteBuffer(), this);
                return Action.SCHEDULED;
            }

            private void release() {
                if (writing != null) {
                    writing.release();
                    writing = null;
                }
            }

            @Override
            protected void onCompleteSuccess() {
                callback.succeeded();
            }

            @Override
            protected void onCompleteFailure(Throwable cause) {
                release();
                callback.failed(cause);
            }

            @Override
            public InvocationType invocationType() {
                return InvocationType.NON_BLOCKING;
            }
        }.iterate());
    }

    private static int size(Request request) {
        return Integer.parseInt(request.queryParameter("size").orElseThrow());
    }

    private static long seed(Request request) {
        return Long.parseLong(request.queryParameter("seed").orElse("1"));
    }
}
