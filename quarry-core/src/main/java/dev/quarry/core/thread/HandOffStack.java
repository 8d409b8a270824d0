package dev.quarry.core.thread;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A lock-free LIFO stack (Treiber stack) of {@link Waiter}s: threads that wait for a task to be handed to them
 * directly. The most recently idle thread is handed the next task, which keeps its cache hot and lets the threads at
 * the bottom stay idle long enough to time out.
 *
 * <p>ABA: a classic Treiber stack of reused nodes can corrupt itself when a node is popped and pushed again between
 * another thread's read of {@code head.next} and its CAS. Here every waiter is pushed at most once (a thread allocates
 * a new one for each idle period) and the garbage collector never reuses the address of a reachable object, so a CAS
 * that sees the same head also sees the same {@code next}.
 *
 * <p>Cancelled waiters are not unlinked from the middle (which a Treiber stack cannot do safely); they are skipped by
 * {@link #offer(Runnable)}, dropped from the top by {@link #push(Waiter)}, and unlinked by their owner when they are
 * on top. Because a thread pool only starts a thread after {@code offer} drained the stack, the cancelled waiters left
 * behind are at most the threads that exited since then, bounded by the maximum thread count.
 *
 * <p>Thread-safety: every method may be called from any thread. Cost: O(1) per push and per successful hand-off, plus
 * one step per cancelled waiter skipped; lock-free; allocation-free. The head is padded against false sharing.
 */
final class HandOffStack extends HandOffStackHead {
    @SuppressWarnings("unused")
    private long p10, p11, p12, p13, p14, p15, p16, p17;

    /**
     * Publishes {@code waiter}; its thread must re-check for work afterwards, since a producer that looked before the
     * push did not see it.
     *
     * @param waiter a waiter never pushed before
     */
    void push(Waiter waiter) {
        for (; ; ) {
            Waiter top = head();
            // Drop cancelled waiters on top as we go: nobody else needs them and it keeps the stack short.
            while (top != null && top.isCancelled()) {
                casHead(top, top.next);
                top = head();
            }
            waiter.next = top;
            if (casHead(top, waiter)) {
                return;
            }
        }
    }

    /**
     * Hands {@code task} to the most recently pushed waiter that still waits.
     *
     * @param task the task
     * @return whether a waiter took it; false when no waiter waits
     */
    boolean offer(Runnable task) {
        return offer(task, false);
    }

    /**
     * Hands {@code task} to the most recently pushed waiter that still waits, marking the hand-off as carrying a wake
     * token or not.
     *
     * @param task the task
     * @param wakeToken the value of the waiter's {@link Waiter#wakeToken}
     * @return whether a waiter took it; false when no waiter waits
     */
    boolean offer(Runnable task, boolean wakeToken) {
        for (; ; ) {
            Waiter top = head();
            if (top == null) {
                return false;
            }
            if (casHead(top, top.next)) {
                // Popping made this thread the waiter's only producer, so the plain write cannot race.
                top.wakeToken = wakeToken;
                if (top.tryHandOff(task)) {
                    return true;
                }
            }
        }
    }

    /**
     * Unlinks {@code waiter} if it is on top; called by its owner after cancelling it.
     *
     * @param waiter a cancelled waiter
     */
    void unlinkIfTop(Waiter waiter) {
        casHead(waiter, waiter.next);
    }

    /** @return whether no waiter is on the stack (cancelled ones included) */
    boolean isEmpty() {
        return head() == null;
    }

    /**
     * Visits the waiters that still wait, top first. Weakly consistent: waiters pushed or taken during the walk may or
     * may not be seen. Walking is safe because {@code next} never changes after a push.
     *
     * @param action what to do with each waiting waiter
     */
    void forEachWaiting(Consumer<Waiter> action) {
        for (Waiter waiter = head(); waiter != null; waiter = waiter.next) {
            if (waiter.isWaiting()) {
                action.accept(waiter);
            }
        }
    }

    /** @return the number of waiters that still wait; O(n), for statistics and dumps */
    int waiting() {
        int[] count = new int[1];
        forEachWaiting(waiter -> count[0]++);
        return count[0];
    }

    /** @return the threads of the waiters that still wait, top first; O(n), for dumps */
    List<Thread> waitingThreads() {
        List<Thread> threads = new ArrayList<>();
        forEachWaiting(waiter -> threads.add(waiter.thread));
        return threads;
    }

    @Override
    public String toString() {
        return "HandOffStack{waiting=" + waiting() + "}";
    }
}

/** Left padding of the stack's head. */
abstract class HandOffStackPad {
    @SuppressWarnings("unused")
    private long p00, p01, p02, p03, p04, p05, p06, p07;
}

/** The head, between the paddings. */
abstract class HandOffStackHead extends HandOffStackPad {
    private static final VarHandle HEAD;

    static {
        try {
            HEAD = MethodHandles.lookup().findVarHandle(HandOffStackHead.class, "head", Waiter.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    @SuppressWarnings("unused") // accessed through HEAD
    private volatile Waiter head;

    final Waiter head() {
        return (Waiter) HEAD.getVolatile(this);
    }

    final boolean casHead(Waiter expected, Waiter value) {
        return HEAD.compareAndSet(this, expected, value);
    }
}
