package dev.quarry.bench.peers;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The TechEmpower plaintext test that every peer serves: {@code GET /plaintext} answers {@code 200} with the body
 * {@code Hello, World!}, {@code Content-Type: text/plain}, a {@code Server} header naming the peer and a {@code Date}.
 *
 * <p>Immutable constants; thread-safe. {@link #bodyBuffer()} allocates one small read-only view per call, which the
 * peers avoid on their hot paths by keeping their own pre-encoded copy.
 */
public final class Plaintext {
    /** The request path the endpoint answers. */
    public static final String PATH = "/plaintext";

    /** The response body, as text. */
    public static final String BODY = "Hello, World!";

    /** The response's {@code Content-Type}. */
    public static final String CONTENT_TYPE = "text/plain";

    private static final byte[] BODY_BYTES = BODY.getBytes(StandardCharsets.US_ASCII);

    private Plaintext() {}

    /** @return a fresh copy of the body's bytes */
    public static byte[] bodyBytes() {
        return BODY_BYTES.clone();
    }

    /** @return the body as a direct, read-only buffer positioned at its start */
    public static ByteBuffer bodyBuffer() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(BODY_BYTES.length);
        buffer.put(BODY_BYTES).flip();
        return buffer.asReadOnlyBuffer();
    }

    /** @return the body's length in bytes */
    public static int bodyLength() {
        return BODY_BYTES.length;
    }
}
