package dev.quarry.core.strategy;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Who is producing, packed in one int so that every transition is a single CAS: at most one thread runs the
 * producer at a time; a thread that finds production busy leaves a "produce again" mark instead of waiting, so no
 * work is missed and nobody blocks; and at most one dispatch of production is pending in an executor.
 *
 * <p>Lock-free; allocation-free. Shared by the strategies of this package.
 */
final class ProductionState {
    private static final int PRODUCING = 1;
    private static final int REPRODUCE = 2; // someone asked for production while it was busy: produce again
    private static final int PENDING = 4; // a dispatch of production is queued in an executor

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(ProductionState.class, "state", int.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;

    /**
     * Takes production, or, if another thread has it, asks that thread to produce again.
     *
     * @return true if the caller now owns production
     */
    boolean tryStartProducing() {
        while (true) {
            int current = state;
            if ((current & PRODUCING) == 0) {
                if (STATE.compareAndSet(this, current, current | PRODUCING)) {
                    return true;
                }
            } else if ((current & REPRODUCE) != 0 || STATE.compareAndSet(this, current, current | REPRODUCE)) {
                return false;
            }
        }
    }

    /**
     * Like {@link #tryStartProducing()} for a dispatched production: also clears the pending mark, in the same CAS,
     * so that a new dispatch may be requested as soon as this one has started.
     *
     * @return true if the caller now owns production
     */
    boolean tryStartPendingProduction() {
        while (true) {
            int current = state;
            int next = current & ~PENDING;
            boolean owns = (current & PRODUCING) == 0;
            next |= owns ? PRODUCING : REPRODUCE;
            if (STATE.compareAndSet(this, current, next)) {
                return owns;
            }
        }
    }

    /**
     * Called by the owner when the producer returned no task: gives production up, unless someone asked for more in
     * the meantime, in which case the owner must produce again.
     *
     * @return true if production was given up; false if the caller still owns it and must call the producer again
     */
    boolean tryStopProducing() {
        while (true) {
            int current = state;
            int next = (current & REPRODUCE) != 0 ? current & ~REPRODUCE : current & ~PRODUCING;
            if (STATE.compareAndSet(this, current, next)) {
                return (current & REPRODUCE) == 0;
            }
        }
    }

    /**
     * Gives production up without producing again, clearing any "produce again" mark: used by execute-produce-consume
     * before the owner eats its task, because the owner tries to produce again once it has eaten, and a dispatched
     * thread may produce meanwhile.
     */
    void releaseProduction() {
        while (true) {
            int current = state;
            if (STATE.compareAndSet(this, current, current & ~(PRODUCING | REPRODUCE))) {
                return;
            }
        }
    }

    /**
     * Marks a dispatch as pending.
     *
     * @return true if the caller must now dispatch; false if a dispatch is already pending
     */
    boolean trySetPending() {
        while (true) {
            int current = state;
            if ((current & PENDING) != 0) {
                return false;
            }
            if (STATE.compareAndSet(this, current, current | PENDING)) {
                return true;
            }
        }
    }

    /** Clears the pending mark, when a dispatch could not be executed. */
    void clearPending() {
        while (true) {
            int current = state;
            if (STATE.compareAndSet(this, current, current & ~PENDING)) {
                return;
            }
        }
    }

    /** @return whether a thread owns production right now */
    boolean isProducing() {
        return (state & PRODUCING) != 0;
    }

    /** @return whether a dispatch is pending */
    boolean isPending() {
        return (state & PENDING) != 0;
    }

    @Override
    public String toString() {
        int current = state;
        if (current == 0) {
            return "IDLE";
        }
        StringBuilder builder = new StringBuilder();
        if ((current & PRODUCING) != 0) {
            builder.append("PRODUCING");
        }
        if ((current & REPRODUCE) != 0) {
            builder.append(builder.isEmpty() ? "" : "|").append("REPRODUCE");
        }
        if ((current & PENDING) != 0) {
            builder.append(builder.isEmpty() ? "" : "|").append("PENDING");
        }
        return builder.toString();
    }
}
