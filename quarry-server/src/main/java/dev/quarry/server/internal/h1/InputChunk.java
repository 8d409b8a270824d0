package dev.quarry.server.internal.h1;

import dev.quarry.core.buffer.RetainableByteBuffer;
import dev.quarry.server.Content;
import java.nio.ByteBuffer;

/**
 * Request content that shares the connection's input buffer (no copy); releasing it releases the buffer's extra
 * reference, so the connection knows it may reuse the buffer ({@link Http1Buffers#ensureInput}).
 *
 * <p>Thread-safety: owned by one reader at a time, like any chunk; {@link #release()} is idempotent for that owner.
 */
final class InputChunk extends Content.Chunk {
    private RetainableByteBuffer owner;

    /**
     * @param slice the content bytes, a slice of the owner's buffer
     * @param owner the input buffer, already retained once for this chunk
     */
    InputChunk(ByteBuffer slice, RetainableByteBuffer owner) {
        super(slice, false);
        this.owner = owner;
    }

    @Override
    public void release() {
        RetainableByteBuffer current = owner;
        if (current != null) {
            owner = null;
            current.release();
        }
    }
}
