package dev.quarry.server.internal.h1;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.buffer.RetainableByteBuffer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * The pooled input and output buffers of one HTTP/1.1 connection, acquired when needed and given back as soon as
 * they are empty, so that an idle connection holds no buffer.
 *
 * <p>The input buffer is kept in drain mode (the parser reads from it; a fill compacts, reads and flips); the output
 * buffer is kept in fill mode (responses are written into it, then it is flipped for the write and cleared after).
 *
 * <p>Thread-safety: {@link #input} and {@link #output} are plain fields, confined to the processing or writing thread
 * of the connection (which hands them over through the happens-before of its read and write callbacks); only the
 * final {@link #releaseAll()} may race with another thread, and it swaps each buffer out atomically. All operations
 * are O(1) and allocation-free except acquiring from the pool.
 */
final class Http1Buffers {
    /** Read-only and empty: duplicated where the parser needs a buffer and the connection holds none. */
    static final ByteBuffer EMPTY = ByteBuffer.allocate(0).asReadOnlyBuffer();

    private static final VarHandle INPUT;
    private static final VarHandle OUTPUT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            INPUT = lookup.findVarHandle(Http1Buffers.class, "input", RetainableByteBuffer.class);
            OUTPUT = lookup.findVarHandle(Http1Buffers.class, "output", RetainableByteBuffer.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final ByteBufferPool pool;
    private final int inputSize;
    private final int outputSize;
    /** Received bytes not parsed yet, in drain mode; null when there are none. */
    RetainableByteBuffer input;
    /** Response bytes not written yet, in fill mode; null when there are none. */
    RetainableByteBuffer output;

    Http1Buffers(ByteBufferPool pool, int inputSize, int outputSize) {
        this.pool = pool;
        this.inputSize = inputSize;
        this.outputSize = outputSize;
    }

    /**
     * Makes sure there is an input buffer that may be filled: acquires one if needed, and moves the unparsed bytes to
     * a fresh one if a content chunk still shares the current one.
     *
     * @param minimum the least capacity needed (the configured size wins if larger)
     */
    void ensureInput(int minimum) {
        int size = Math.max(minimum, inputSize);
        if (input == null) {
            input = pool.acquire(size, true);
            input.byteBuffer().flip(); // drain mode, empty
            return;
        }
        if (input.isRetained()) {
            // A content chunk still uses this buffer: move the unparsed bytes to a fresh one.
            RetainableByteBuffer fresh =
                    pool.acquire(Math.max(size, input.byteBuffer().remaining()), true);
            fresh.byteBuffer().put(input.byteBuffer());
            fresh.byteBuffer().flip();
            input.release();
            input = fresh;
        }
    }

    /** Acquires an output buffer of the configured size if there is none. */
    void ensureOutput() {
        if (output == null) {
            output = pool.acquire(outputSize, true);
        }
    }

    /**
     * Moves what the output buffer holds to one four times larger (for a response head that does not fit).
     *
     * @return the new output buffer's byte buffer, in fill mode
     */
    ByteBuffer growOutput() {
        ByteBuffer out = output.byteBuffer();
        RetainableByteBuffer bigger = pool.acquire(out.capacity() * 4, true);
        out.flip();
        bigger.byteBuffer().put(out);
        output.release();
        output = bigger;
        return bigger.byteBuffer();
    }

    /** @return whether received bytes wait to be parsed */
    boolean hasInput() {
        return input != null && input.byteBuffer().hasRemaining();
    }

    /** @return the unparsed input, or an empty buffer if there is none; in drain mode */
    ByteBuffer inputOrEmpty() {
        return input == null ? EMPTY.duplicate() : input.byteBuffer();
    }

    /** @return whether response bytes wait to be written */
    boolean hasPendingOutput() {
        return output != null && output.byteBuffer().position() > 0;
    }

    /** Gives the input buffer back to the pool, if any. */
    void releaseInput() {
        if (input != null) {
            input.release();
            input = null;
        }
    }

    /** Gives the output buffer back to the pool if it holds nothing to write. */
    void releaseOutputIfEmpty() {
        if (output != null && output.byteBuffer().position() == 0) {
            output.release();
            output = null;
        }
    }

    /**
     * Takes the output buffer away from the connection: the caller owns it from now on and must release it.
     *
     * @return the output buffer, or null if there is none
     */
    RetainableByteBuffer takeOutput() {
        RetainableByteBuffer taken = output;
        output = null;
        return taken;
    }

    /**
     * The final release, when the connection closes. Two threads may get here at once (the callback of the closing
     * write runs closeNow() while the processing thread leaves process()): each buffer is taken by one atomic swap,
     * so it goes back to the pool once, never twice.
     */
    void releaseAll() {
        RetainableByteBuffer in = (RetainableByteBuffer) INPUT.getAndSet(this, (RetainableByteBuffer) null);
        if (in != null) {
            in.release();
        }
        RetainableByteBuffer out = (RetainableByteBuffer) OUTPUT.getAndSet(this, (RetainableByteBuffer) null);
        if (out != null) {
            out.release();
        }
    }

    @Override
    public String toString() {
        ByteBuffer in = input == null ? null : input.byteBuffer();
        ByteBuffer out = output == null ? null : output.byteBuffer();
        return "Http1Buffers{input=" + (in == null ? "none" : in.remaining() + " unparsed") + ", output="
                + (out == null ? "none" : out.position() + " pending") + "}";
    }
}
