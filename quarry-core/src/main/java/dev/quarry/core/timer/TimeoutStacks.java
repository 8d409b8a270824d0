package dev.quarry.core.timer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One stripe of the lock-free multi-producer, single-consumer stacks through which other threads talk to the ticker:
 * newly scheduled timeouts (linked by {@link Timeout#next}) and timeouts cancelled while in the wheel (linked by
 * {@link Timeout#nextCancelled}), plus the count of timeouts cancelled through this stripe. Producers push with one
 * CAS; the ticker takes a whole stack with one CAS, so it never contends per element. Intrusive: the timeout is the
 * node, nothing else is allocated.
 *
 * <p>A timer has several stripes and a scheduling thread picks one by its thread id, so that threads on different
 * cores push, pop and count on different cache lines: with a single head, every schedule and cancel would move that
 * line between cores, which is most of what a lock costs. A timeout remembers its stripe, because a pop must happen
 * where the push did.
 *
 * <p>The pending stack also supports popping a cancelled timeout that is still on top, so that the common
 * "schedule, then cancel soon after" pattern of request and idle timeouts leaves nothing behind for the ticker.
 * There is no ABA hazard: a timeout is pushed at most once in its life, so once it left the top of the stack it can
 * never be there again and a CAS that expects it fails.
 *
 * <p>The heads are written by every thread that uses the stripe, so the stripe is padded on both sides (padding by
 * class hierarchy: the JVM lays out superclass fields first), away from other stripes and from the timer's read-mostly
 * fields such as its coarse clock; the pending head and the counter, which a schedule-then-cancel touches together,
 * share a line.
 *
 * <p>Thread-safety: push and pop from any thread; {@link #takePending()} and {@link #takeCancelled()} only by the
 * ticker; {@link #terminate()} and {@link #reopen()} by the timer's life cycle (under its lock).
 */
final class TimeoutStacks extends TimeoutStacksPad2 {
    private static final VarHandle PENDING;
    private static final VarHandle CANCELLED;
    private static final VarHandle COUNT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            PENDING = lookup.findVarHandle(PendingHead.class, "pendingHead", Timeout.class);
            CANCELLED = lookup.findVarHandle(CancelledHead.class, "cancelledHead", Timeout.class);
            COUNT = lookup.findVarHandle(PendingHead.class, "cancelledCount", long.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    /** Marks a stopped timer: a push that finds it fails, which makes "check running, then push" atomic. */
    private static final Timeout TERMINATED = Timeout.sentinel(Timeout.CANCELLED);

    /**
     * Pushes a newly scheduled timeout. O(1), lock-free, allocation-free.
     *
     * @return false if the timer is stopped (the timeout was not pushed)
     */
    boolean push(Timeout timeout) {
        Timeout head = (Timeout) PENDING.getVolatile(this);
        while (true) {
            if (head == TERMINATED) {
                return false;
            }
            timeout.next = head; // published by the CAS below
            Timeout witness = (Timeout) PENDING.compareAndExchange(this, head, timeout);
            if (witness == head) {
                return true;
            }
            head = witness;
        }
    }

    /**
     * Called by the thread whose CAS cancelled {@code timeout}: tells the ticker to unlink it from the wheel, or takes
     * it off the pending stack if it is on top; and counts it. O(1), lock-free, allocation-free.
     */
    void cancelled(Timeout timeout, boolean bucketed) {
        if (bucketed) {
            pushCancelled(timeout);
        } else {
            popCancelled(timeout);
        }
        COUNT.getAndAdd(this, 1L);
    }

    /** @return how many timeouts were cancelled through this stripe */
    long cancelledCount() {
        return (long) COUNT.getVolatile(this);
    }

    /**
     * Pops {@code cancelled} if it is on top of the pending stack, and then every cancelled timeout that this uncovers.
     * Called by the thread that won the CAS to CANCELLED; if the timeout is not on top, the ticker drops it instead
     * when it takes the stack.
     */
    void popCancelled(Timeout cancelled) {
        Timeout top = cancelled;
        while (PENDING.getVolatile(this) == top) {
            Timeout below = top.next;
            if (!PENDING.compareAndSet(this, top, below)) {
                return;
            }
            // Popped: nobody else can reach it any more, so drop its link lest a kept handle retain the stack below.
            top.next = null;
            if (below == null || below.state() != Timeout.CANCELLED) {
                return;
            }
            top = below;
        }
    }

    /** Ticker only: takes the whole pending stack, newest first; null if empty or terminated. */
    Timeout takePending() {
        // A CAS rather than a getAndSet, because stop() terminates the stack from another thread and an
        // unconditional swap could reopen it. Each failed CAS means a push succeeded, so this cannot spin for long.
        Timeout head = (Timeout) PENDING.getVolatile(this);
        while (head != null && head != TERMINATED) {
            Timeout witness = (Timeout) PENDING.compareAndExchange(this, head, (Timeout) null);
            if (witness == head) {
                return head;
            }
            head = witness;
        }
        return null;
    }

    /** Any thread, when the timer stops: takes the pending stack and makes every later push fail. */
    Timeout terminate() {
        Timeout taken = (Timeout) PENDING.getAndSet(this, TERMINATED);
        return taken == TERMINATED ? null : taken;
    }

    /** Before a ticker starts: accepts pushes again after {@link #terminate()}. */
    void reopen() {
        PENDING.compareAndSet(this, TERMINATED, (Timeout) null);
    }

    /** @return whether {@link #terminate()} was called and not yet undone by {@link #reopen()} */
    boolean isTerminated() {
        return PENDING.getVolatile(this) == TERMINATED;
    }

    /** Pushes a timeout that was cancelled while in the wheel, for the ticker to unlink. O(1), lock-free. */
    void pushCancelled(Timeout timeout) {
        Timeout head = (Timeout) CANCELLED.getVolatile(this);
        while (true) {
            timeout.nextCancelled = head;
            Timeout witness = (Timeout) CANCELLED.compareAndExchange(this, head, timeout);
            if (witness == head) {
                return;
            }
            head = witness;
        }
    }

    /** Ticker only: takes the whole cancelled stack, newest first; null if empty. */
    Timeout takeCancelled() {
        return (Timeout) CANCELLED.getAndSet(this, (Timeout) null);
    }
}

/** Padding before the pending head. Never instantiated on its own. */
@SuppressWarnings("unused")
abstract class TimeoutStacksPad0 {
    private int p; // fills the gap after a 12-byte header, which a subclass field could otherwise take
    private long p00, p01, p02, p03, p04, p05, p06, p07;
    private long p08, p09, p10, p11, p12, p13, p14, p15;
}

/** The head of the stack of newly scheduled timeouts and the cancelled count: written by the stripe's threads. */
abstract class PendingHead extends TimeoutStacksPad0 {
    volatile Timeout pendingHead;
    volatile long cancelledCount;

    @SuppressWarnings("unused")
    private int gap; // with compressed oops, fills the alignment gap after the head so no other field shares it
}

/** Padding between the two heads. */
@SuppressWarnings("unused")
abstract class TimeoutStacksPad1 extends PendingHead {
    private long p00, p01, p02, p03, p04, p05, p06, p07;
    private long p08, p09, p10, p11, p12, p13, p14, p15;
}

/** The head of the stack of timeouts cancelled while in the wheel. */
abstract class CancelledHead extends TimeoutStacksPad1 {
    volatile Timeout cancelledHead;

    @SuppressWarnings("unused")
    private int gap;
}

/** Padding after the cancelled head. */
@SuppressWarnings("unused")
abstract class TimeoutStacksPad2 extends CancelledHead {
    private long p00, p01, p02, p03, p04, p05, p06, p07;
    private long p08, p09, p10, p11, p12, p13, p14, p15;
}
