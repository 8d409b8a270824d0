package dev.quarry.server.internal;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;

/**
 * The blocking side of a {@link ServerResponse}'s {@code send}: a write callback that the sending thread waits on, and
 * the bytes of a short ASCII text, both reused from one blocking write to the next. A response keeps one, and an
 * HTTP/1.1 response is recycled with its exchange, so a blocking handler's {@code send(String)} allocates neither a
 * future, nor a {@code byte[]}, nor a {@code ByteBuffer} per request (112 bytes per request before).
 *
 * <p>Reuse is safe because the owner takes it for one write ({@link ServerResponse} swaps it out atomically) and gives
 * it back only once {@link #block()} saw that write complete: then nothing references it any more (the stream consumed
 * the text and completed the callback once, as {@link dev.quarry.server.Response#write} promises). A waiter that gives
 * up first (interrupted) abandons it: its owner makes a new one, and the late completion lands on this one, which
 * nobody waits on, never on the next write's. Completing it in place, before the waiter blocks, costs neither a park
 * nor an unpark.
 *
 * <p>Thread-safety: armed, filled and waited on by one thread at a time (its owner's taker); completed once per arming
 * by any thread, without blocking ({@link InvocationType#NON_BLOCKING}).
 */
final class BlockingSend implements Callback {
    /** The longest text encoded into the reused array; longer texts are encoded by the JDK, as before. */
    static final int MAX_TEXT = 512;

    private static final int PENDING = 0;
    private static final int PARKED = 1;
    private static final int COMPLETED = 2;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(BlockingSend.class, "state", int.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    @SuppressWarnings("unused") // through STATE
    private volatile int state = COMPLETED;

    // Written before the state's release to COMPLETED, read after the waiter sees it.
    private Throwable failure;
    private Thread waiter;
    private byte[] text;
    private ByteBuffer textBuffer;

    /**
     * Encodes {@code value} into this object's reused array when it is ASCII and at most {@link #MAX_TEXT} characters
     * long; the buffer is valid until this object is armed again.
     *
     * @return the bytes, or null when the text does not qualify (the caller encodes it itself)
     */
    ByteBuffer encodeAscii(String value) {
        int length = value.length();
        if (length > MAX_TEXT) {
            return null;
        }
        byte[] bytes = text;
        if (bytes == null || bytes.length < length) {
            // Sized for what is sent (small texts stay small), at least 32 bytes so that similar texts fit next time.
            bytes = new byte[Math.min(MAX_TEXT, Math.max(32, Integer.highestOneBit(Math.max(length, 1) - 1) << 1))];
        }
        for (int i = 0; i < length; i++) {
            char c = value.charAt(i);
            if (c >= 0x80) {
                return null; // UTF-8 needs more than one byte: the JDK's encoder does it
            }
            bytes[i] = (byte) c;
        }
        if (bytes != text || textBuffer == null) {
            text = bytes;
            textBuffer = ByteBuffer.wrap(bytes);
        }
        return textBuffer.clear().limit(length);
    }

    /** Prepares for one write by the calling thread, which then calls {@link #block()}. */
    void arm() {
        failure = null;
        waiter = Thread.currentThread();
        state = PENDING;
    }

    /**
     * Waits until the write completes.
     *
     * @throws IOException the write's failure, or {@link InterruptedIOException} if the thread is interrupted first
     *     (the interrupt status is kept, and this object is abandoned: see the class comment)
     */
    void block() throws IOException {
        if (state != COMPLETED && STATE.compareAndSet(this, PENDING, PARKED)) {
            while (state != COMPLETED) {
                LockSupport.park(this);
                if (state != COMPLETED && Thread.interrupted()) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while blocked in a write");
                }
            }
        }
        Throwable cause = failure;
        if (cause != null) {
            throw toIOException(cause);
        }
    }

    /** @return whether the last write completed: only then may the owner use this object again */
    boolean isCompleted() {
        return state == COMPLETED;
    }

    @Override
    public void succeeded() {
        complete(null);
    }

    @Override
    public void failed(Throwable x) {
        complete(x != null ? x : new IOException("write failed"));
    }

    private void complete(Throwable cause) {
        if (state == COMPLETED) {
            return; // a second completion: the first one counts, and the waiter may be gone already
        }
        failure = cause;
        Thread parked = waiter;
        if ((int) STATE.getAndSet(this, COMPLETED) == PARKED) {
            LockSupport.unpark(parked);
        }
    }

    @Override
    public InvocationType invocationType() {
        return InvocationType.NON_BLOCKING; // it only wakes the waiter
    }

    private static IOException toIOException(Throwable cause) {
        if (cause instanceof IOException io) {
            return io;
        }
        if (cause instanceof UncheckedIOException unchecked) {
            return unchecked.getCause();
        }
        return new IOException(cause.getMessage() == null ? cause.toString() : cause.getMessage(), cause);
    }

    @Override
    public String toString() {
        return "BlockingSend{"
                + switch (state) {
                    case PENDING -> "pending";
                    case PARKED -> "parked";
                    default -> "completed";
                }
                + "}";
    }
}
