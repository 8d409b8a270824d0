package dev.quarry.server.internal.h1;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Who processes a connection: one thread at a time, so that a graceful shutdown may close an idle connection from
 * another thread without racing with a request that is just being read, and so that two threads never parse, handle
 * or release the connection's buffers at once.
 *
 * <p>Processing is asked for from several threads: a read wake-up, an exchange completed on a handler's thread, a
 * flushed write. A wake-up may come while another thread is still inside: over TLS, a fill interest registered from
 * inside processing completes at once, on another thread, when the TLS layer already holds bytes for the reader; on
 * any endpoint, an exchange completed asynchronously resumes processing while the thread that started it may not have
 * left yet. Such a call is never run alongside, nor dropped: it marks processing as asked for again, and the thread
 * inside goes round once more before it leaves (the call's bytes, or the next pipelined request, are then its to
 * process).
 *
 * <p>One word holds whether a thread is processing ({@code ACTIVE}), whether processing was asked for again meanwhile
 * ({@code AGAIN}), and a generation changed by every entry and exit (above), or {@link #CLOSED_IDLE} once a graceful
 * shutdown closed the connection while it was idle. A closer that observed the word with nobody processing, checked
 * that the connection is idle, and then wins a CAS from that same word knows that no processing started or ended in
 * between; after that, no processing can start any more.
 *
 * <p>Thread-safety: lock-free, any thread; each operation is a CAS loop on one field, allocation-free.
 */
final class ProcessingActivity {
    /** The state once closed while idle; also what {@link #quiescent()} answers when the connection is not. */
    static final long CLOSED_IDLE = -1;

    private static final long ACTIVE = 1;
    private static final long AGAIN = 2;
    private static final long GENERATIONS = (1L << 46) - 1;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(ProcessingActivity.class, "state", long.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    @SuppressWarnings("unused") // accessed through STATE
    private volatile long state;

    /**
     * @return true if the caller processes now; false if another thread is processing (it goes round once more before
     *     it leaves: the caller's reason to process is its now) or a graceful shutdown closed the idle connection
     */
    boolean enter() {
        while (true) {
            long current = state;
            if (current == CLOSED_IDLE) {
                return false;
            }
            if ((current & ACTIVE) != 0) {
                if ((current & AGAIN) != 0 || STATE.compareAndSet(this, current, current | AGAIN)) {
                    return false;
                }
            } else if (STATE.compareAndSet(this, current, nextGeneration(current) | ACTIVE)) {
                return true;
            }
        }
    }

    /**
     * The caller leaves processing (after {@link #enter()} returned true), unless processing was asked for again
     * while it was inside.
     *
     * @return true if the caller must go round once more: it is still the one processing; false once it left
     */
    boolean exit() {
        while (true) {
            long current = state;
            if ((current & AGAIN) != 0) {
                if (STATE.compareAndSet(this, current, nextGeneration(current) | ACTIVE)) {
                    return true;
                }
            } else if (STATE.compareAndSet(this, current, nextGeneration(current))) {
                return false;
            }
        }
    }

    /**
     * Whether a thread is processing now (between its {@link #enter()} and the {@link #exit()} that lets it leave). A
     * volatile read: a thread that wrote a flag (say, that the connection closed) before calling this, and a processing
     * thread that reads the flag after its {@code enter()} or {@code exit()} (each a CAS on the same word), cannot both
     * miss each other.
     *
     * @return true if a thread is inside processing
     */
    boolean isProcessing() {
        long current = state;
        return current != CLOSED_IDLE && (current & ACTIVE) != 0;
    }

    /**
     * @return the state to pass to {@link #closeIfUnchanged} if no thread is processing and the connection is not
     *     closed yet; {@link #CLOSED_IDLE} otherwise
     */
    long quiescent() {
        long current = state;
        return (current & ACTIVE) != 0 ? CLOSED_IDLE : current;
    }

    /**
     * @param observed what {@link #quiescent()} returned
     * @return whether the connection is now closed for good: no processing started or ended since {@code observed}
     */
    boolean closeIfUnchanged(long observed) {
        return STATE.compareAndSet(this, observed, CLOSED_IDLE);
    }

    private static long nextGeneration(long state) {
        return ((state >>> 16) + 1 & GENERATIONS) << 16;
    }

    @Override
    public String toString() {
        long current = state;
        return current == CLOSED_IDLE
                ? "closed while idle"
                : ((current & ACTIVE) != 0 ? "processing" : "not processing")
                        + ((current & AGAIN) != 0 ? " (again)" : "") + ", generation " + (current >>> 16);
    }
}
