package dev.quarry.server.internal.h1;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Tracks which threads are inside a connection's processing, so that a graceful shutdown may close an idle connection
 * from another thread without racing with a request that is just being read.
 *
 * <p>One word holds the number of threads processing (low 16 bits) and a generation changed by every entry and exit
 * (above), or {@link #CLOSED_IDLE} once a graceful shutdown closed the connection while it was idle. A closer that
 * observed the word with nobody processing, checked that the connection is idle, and then wins a CAS from that same
 * word knows that no processing started or ended in between; after that, no processing can start any more.
 *
 * <p>Thread-safety: lock-free, any thread; each operation is a CAS loop on one field, allocation-free.
 */
final class ProcessingActivity {
    /** The state once closed while idle; also what {@link #quiescent()} answers when the connection is not. */
    static final long CLOSED_IDLE = -1;

    private static final long ACTIVE = 0xFFFF;
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

    /** @return true if the caller may process; false if a graceful shutdown closed the idle connection */
    boolean enter() {
        while (true) {
            long current = state;
            if (current == CLOSED_IDLE) {
                return false;
            }
            if (STATE.compareAndSet(this, current, nextGeneration(current) | ((current & ACTIVE) + 1))) {
                return true;
            }
        }
    }

    /** The caller leaves processing (after a successful {@link #enter()}). */
    void exit() {
        while (true) {
            long current = state;
            if (STATE.compareAndSet(this, current, nextGeneration(current) | ((current & ACTIVE) - 1))) {
                return;
            }
        }
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
                : (current & ACTIVE) + " processing, generation " + (current >>> 16);
    }
}
