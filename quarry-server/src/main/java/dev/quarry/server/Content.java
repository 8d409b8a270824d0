package dev.quarry.server;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Request body content, read on demand.
 */
public final class Content {
    private Content() {}

    /**
     * A piece of content: some bytes, and whether it is the last piece. A chunk may share a pooled buffer with the
     * connection: {@link #release()} it once its bytes are consumed (after that, its buffer must not be used).
     *
     * <p>Not thread-safe: one reader at a time.
     */
    public abstract static class Chunk {
        private final ByteBuffer buffer;
        private final boolean last;

        /**
         * @param buffer the bytes, in drain mode (position to limit)
         * @param last whether this is the last chunk of the content
         */
        protected Chunk(ByteBuffer buffer, boolean last) {
            this.buffer = Objects.requireNonNull(buffer, "buffer");
            this.last = last;
        }

        /** @return the bytes, position to limit */
        public ByteBuffer byteBuffer() {
            return buffer;
        }

        /** @return whether this is the last chunk */
        public boolean isLast() {
            return last;
        }

        /** @return whether this chunk has no bytes */
        public boolean isEmpty() {
            return !buffer.hasRemaining();
        }

        /** @return the number of unread bytes */
        public int remaining() {
            return buffer.remaining();
        }

        /** Releases the chunk's buffer back to its owner. Idempotent. */
        public abstract void release();

        /** @return a failure chunk's cause, or null for a data chunk */
        public Throwable failure() {
            return null;
        }

        /**
         * @param buffer bytes that need no release (not pooled)
         * @param last whether they are the last
         * @return a chunk whose release does nothing
         */
        public static Chunk of(ByteBuffer buffer, boolean last) {
            return new Chunk(buffer, last) {
                @Override
                public void release() {}
            };
        }

        /** The empty last chunk: end of content. */
        public static final Chunk EOF = of(ByteBuffer.allocate(0), true);

        /**
         * @param failure why reading failed (the client went away, the body was malformed or too large)
         * @return a last chunk that carries the failure
         */
        public static Chunk failed(Throwable failure) {
            Objects.requireNonNull(failure, "failure");
            return new Chunk(ByteBuffer.allocate(0), true) {
                @Override
                public void release() {}

                @Override
                public Throwable failure() {
                    return failure;
                }
            };
        }

        @Override
        public String toString() {
            return getClass().getSimpleName() + "{" + buffer.remaining() + " bytes" + (last ? ", last" : "")
                    + (failure() != null ? ", failed: " + failure() : "") + "}";
        }
    }
}
