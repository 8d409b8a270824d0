package dev.quarry.server.internal.h1;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.http.h1.HttpGenerator;
import dev.quarry.io.EndPoint;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The {@code 100 Continue} owed to a request that carries {@code Expect: 100-continue}, and its race with the final
 * response head. The 100 goes out when the handler first asks for content (RFC 9110 10.1.1); the handler may commit its
 * response on another thread at that very moment. Written blindly, the two would either overlap (one write at a time
 * per endpoint: a {@link java.nio.channels.WritePendingException}) or leave the 100 after the final head, which HTTP/1.1
 * cannot carry (RFC 9110 15.2: interim responses come before the final one). One atomic state decides, without a lock:
 *
 * <ul>
 *   <li>a demand writes the 100 only while no head was committed ({@code EXPECTED -> WRITING});
 *   <li>a head committed first means no 100, ever ({@code EXPECTED -> COMMITTED}): the client learns from the final
 *       response alone that its body is not wanted;
 *   <li>the head's first write, if it comes while the 100's write is in flight, is handed to the 100's completion
 *       ({@code WRITING -> HEAD_WAITING}), which writes it: the head goes out after the 100, never beside it.
 * </ul>
 *
 * <p>Cost: made on a connection's first request with the expectation, and kept. Requests without it never reach this
 * class: the connection's parts check one plain field ({@link Http1Request#expectation}, null then) and do nothing
 * more. With it, each transition is one CAS, and the 100 costs one buffer wrapping the shared bytes.
 *
 * <p>Thread-safety: {@link #expect()} and {@link #clear()} by the connection's processing thread between exchanges; the
 * rest by the exchange's reader and writer threads, and the completion of the 100's write, on any thread.
 */
final class ContinueGate implements Callback {
    private static final byte[] CONTINUE = HttpGenerator.continueBytes();
    /** No 100 owed: none was expected, the content came without it, or it was written. */
    private static final int NONE = 0;
    /** The client waits for the 100; neither a demand nor a head came yet. */
    private static final int EXPECTED = 1;
    /** A demand is writing the 100. */
    private static final int WRITING = 2;
    /** The 100 is being written and the final head's write waits for it ({@link #waitingCallback}). */
    private static final int HEAD_WAITING = 3;
    /** The final head was committed before any demand: no 100 will be sent. */
    private static final int COMMITTED = 4;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(ContinueGate.class, "state", int.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final Http1Connection connection;
    private final EndPoint endPoint;
    private final Executor executor;
    private volatile int state;
    // The head's write that waits for the 100: written before the CAS to HEAD_WAITING, read after the swap that sees
    // it, which orders them.
    private Callback waitingCallback;
    private ByteBuffer[] waitingBuffers;

    ContinueGate(Http1Connection connection, EndPoint endPoint, Executor executor) {
        this.connection = connection;
        this.endPoint = endPoint;
        this.executor = executor;
    }

    /** The exchange that starts expects a 100 before it sends its content; on the processing thread. */
    void expect() {
        waitingCallback = null;
        waitingBuffers = null;
        state = EXPECTED;
    }

    /** The exchange finished; on the processing thread. Its head was written, so no 100 can be in flight. */
    void clear() {
        state = NONE;
    }

    /** @return whether the client still waits for the 100 (no demand, no head, no content yet) */
    boolean isOwed() {
        return state == EXPECTED;
    }

    /** Content came without the 100, as a client may send it (RFC 9110 10.1.1): no 100 is due any more. */
    void onContent() {
        STATE.compareAndSet(this, EXPECTED, NONE);
    }

    /**
     * A demand for content: writes the 100 if it is still owed and no head was committed; its completion then asks
     * the connection for the content.
     *
     * @return whether the 100 is being written (the caller waits for it instead of asking for content itself)
     */
    boolean onDemand() {
        if (!STATE.compareAndSet(this, EXPECTED, WRITING)) {
            return false;
        }
        endPoint.write(this, ByteBuffer.wrap(CONTINUE));
        return true;
    }

    /**
     * The final head is being committed.
     *
     * @return whether it comes before the content was asked for: the 100 will never be sent, and the body not read
     */
    boolean onCommit() {
        return STATE.compareAndSet(this, EXPECTED, COMMITTED);
    }

    /**
     * A write of the response, which may carry its head: if the 100 is being written, hands it to the 100's completion.
     *
     * @return true if the write was taken and goes out after the 100; false if the caller writes now
     */
    boolean deferWrite(Callback callback, ByteBuffer[] buffers) {
        // One response write at a time (HttpStream's contract): no other write waits already.
        while (state == WRITING) {
            waitingCallback = callback;
            waitingBuffers = buffers;
            if (STATE.compareAndSet(this, WRITING, HEAD_WAITING)) {
                return true;
            }
        }
        // The 100 was written meanwhile (or was never due): nothing waits.
        waitingCallback = null;
        waitingBuffers = null;
        return false;
    }

    /**
     * @return whether no 100 is in flight, so that a response may wait in the output buffer for a later flush (which
     *     does not go through {@link #deferWrite})
     */
    boolean isSettled() {
        int now = state;
        return now == NONE || now == COMMITTED;
    }

    /** The 100 was written: the content may come, and a head that waited goes out. */
    @Override
    public void succeeded() {
        int was = (int) STATE.getAndSet(this, NONE);
        connection.onContinueWritten();
        if (was == HEAD_WAITING) {
            writeWaitingHead();
        }
    }

    @Override
    public void failed(Throwable failure) {
        int was = (int) STATE.getAndSet(this, NONE);
        connection.onWriteFailed(failure);
        if (was == HEAD_WAITING) {
            Callback callback = waitingCallback;
            waitingCallback = null;
            waitingBuffers = null;
            callback.failed(failure);
        }
    }

    @Override
    public InvocationType invocationType() {
        // Asking for content never blocks; a waiting head whose callback may block is handed to the executor.
        return InvocationType.NON_BLOCKING;
    }

    private void writeWaitingHead() {
        Callback callback = waitingCallback;
        ByteBuffer[] buffers = waitingBuffers;
        waitingCallback = null;
        waitingBuffers = null;
        InvocationType type = callback.invocationType();
        if (type != InvocationType.NON_BLOCKING && Invocable.isNonBlockingInvocation()) {
            // This thread must not block (a selector completed the 100's write, say), and a write that completes at
            // once runs the handler's callback here: let a thread that may block write it.
            try {
                executor.execute(Invocable.task(type, () -> endPoint.write(callback, buffers)));
            } catch (RejectedExecutionException x) {
                callback.failed(x); // the server is stopping
            }
            return;
        }
        endPoint.write(callback, buffers);
    }

    @Override
    public String toString() {
        return "ContinueGate{"
                + switch (state) {
                    case NONE -> "none";
                    case EXPECTED -> "expected";
                    case WRITING -> "writing 100";
                    case HEAD_WAITING -> "writing 100, head waiting";
                    default -> "committed without 100";
                }
                + "}";
    }
}
