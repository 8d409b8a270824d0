package dev.quarry.core.thread;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An atomic int alone on its cache line, for a counter that several threads write often (the pool's busy count), so
 * that its traffic does not slow down reads of unrelated fields allocated next to it.
 *
 * <p>Thread-safety: atomic. Cost: O(1), lock-free.
 */
final class PaddedCounter extends PaddedCounterValue {
    @SuppressWarnings("unused")
    private long p10, p11, p12, p13, p14, p15, p16, p17;

    int get() {
        return (int) VALUE.getVolatile(this);
    }

    void set(int value) {
        VALUE.setVolatile(this, value);
    }

    boolean compareAndSet(int expected, int value) {
        return VALUE.compareAndSet(this, expected, value);
    }

    int incrementAndGet() {
        return (int) VALUE.getAndAdd(this, 1) + 1;
    }

    int decrementAndGet() {
        return (int) VALUE.getAndAdd(this, -1) - 1;
    }

    @Override
    public String toString() {
        return Integer.toString(get());
    }
}

/** Left padding. */
abstract class PaddedCounterPad {
    @SuppressWarnings("unused")
    private long p00, p01, p02, p03, p04, p05, p06, p07;
}

/** The value, between the paddings. */
abstract class PaddedCounterValue extends PaddedCounterPad {
    static final VarHandle VALUE;

    static {
        try {
            VALUE = MethodHandles.lookup().findVarHandle(PaddedCounterValue.class, "value", int.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    @SuppressWarnings("unused") // accessed through VALUE
    private volatile int value;
}
