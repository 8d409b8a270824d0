package dev.quarry.core.timer;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The idle timeout of a connection or endpoint, built so that activity costs almost nothing: {@link #notIdle()} only
 * writes a timestamp read from the timer's coarse clock, and never reschedules anything. One check is scheduled on a
 * {@link HashedWheelTimer} for the idle period; when it fires, on the ticker, it compares the clock with the last
 * activity: if there was activity, it schedules itself again for the time that is left; otherwise the timeout expires
 * and {@link #onIdleExpired()} runs. So a busy connection schedules one timeout per idle period, not one per read.
 *
 * <p>The check runs on the ticker (it only compares two timestamps); the expiry action is always handed to the timer's
 * executor, with the "must not block" mark set when its {@link #invocationType() invocation type} is
 * {@link InvocationType#NON_BLOCKING}. If the action neither stops this timeout nor produces activity, it runs again
 * after another full idle period.
 *
 * <p><b>Precision:</b> activity is timestamped with the coarse clock, which lags real time by up to one tick, and
 * each check fires up to two ticks after its delay, so the timeout expires between one tick before and about three
 * ticks after the idle timeout has passed since the last activity. If the ticker stalls for longer than the idle
 * timeout (a very long GC pause, a starved machine), activity during the stall carries the time of the tick before
 * it, and the timeout may expire early by up to the stall.
 *
 * <p><b>Memory:</b> about 40 bytes per instance with compressed references (a timer reference, two longs and the
 * scheduled check), plus the one scheduled {@link Timeout} (about 48 bytes): roughly 90 bytes per connection.
 *
 * <p>Thread-safety: every method may be called from any thread. {@link #notIdle()} is O(1), lock-free and
 * allocation-free; {@link #start()}, {@link #stop()} and {@link #setIdleTimeout(Duration)} are lock-free and may race
 * with each other and with the check: the current check is replaced by one CAS, and a check that lost the race does
 * nothing.
 */
public abstract class IdleTimeout extends TickerTask implements Invocable {
    private static final VarHandle LAST_ACTIVITY;
    private static final VarHandle SCHEDULED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            LAST_ACTIVITY = lookup.findVarHandle(IdleTimeout.class, "lastActivity", long.class);
            SCHEDULED = lookup.findVarHandle(IdleTimeout.class, "scheduled", Timeout.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    /** Not started, or stopped: no check is scheduled. */
    private static final Timeout STOPPED = Timeout.sentinel(Timeout.CANCELLED);

    /** Started with no idle timeout (zero or negative): no check is scheduled until one is set. */
    private static final Timeout DISABLED = Timeout.sentinel(Timeout.CANCELLED);

    private final HashedWheelTimer timer;

    /** The idle timeout; zero means never. */
    private volatile long idleNanos;

    /** The coarse-clock time of the last activity. Accessed in opaque mode after construction: see {@link #notIdle()}. */
    private long lastActivity;

    /** The scheduled check, or {@link #STOPPED} or {@link #DISABLED}; replaced by CAS only. */
    private volatile Timeout scheduled = STOPPED;

    /**
     * Creates a stopped idle timeout with no idle period set.
     *
     * @param timer the timer whose clock timestamps activity and which runs the checks
     */
    protected IdleTimeout(HashedWheelTimer timer) {
        this.timer = Objects.requireNonNull(timer, "timer");
        this.lastActivity = timer.nanoTime();
    }

    /**
     * An idle timeout that runs {@code onIdleExpired} when it expires, where that runnable's invocation type says.
     *
     * @param timer the timer whose clock timestamps activity and which runs the checks
     * @param idleTimeout the idle period; zero or negative means never
     * @param onIdleExpired what to do when the connection was idle for the whole period
     * @return a stopped idle timeout; call {@link #start()}
     */
    public static IdleTimeout of(HashedWheelTimer timer, Duration idleTimeout, Runnable onIdleExpired) {
        IdleTimeout result = new RunnableIdleTimeout(timer, onIdleExpired);
        result.setIdleTimeout(idleTimeout);
        return result;
    }

    /**
     * Called when no activity was recorded for a whole idle period, typically to close the connection. Runs where
     * {@link #invocationType()} says; what it throws is logged.
     */
    protected abstract void onIdleExpired();

    /**
     * How {@link #onIdleExpired()} behaves; {@link InvocationType#BLOCKING} unless overridden. Either way it runs on the
     * timer's executor; a {@link InvocationType#NON_BLOCKING} action runs there with the "must not block" mark set.
     */
    @Override
    public InvocationType invocationType() {
        return InvocationType.BLOCKING;
    }

    /**
     * Records activity. O(1), lock-free, allocation-free: one {@link System#nanoTime()} and one store.
     *
     * <p>The timestamp comes from {@code System.nanoTime()}, not from the timer's coarse clock: the coarse clock only
     * advances when the ticker runs, and a ticker starved of CPU (or stopped by a GC pause) for longer than the idle
     * period would stamp fresh activity with a stale time and expire a busy connection. The extra ~20 ns is small
     * beside the read or write system call that each activity accompanies.
     *
     * <p>The write is opaque rather than volatile (no fence on any platform, a plain store on x86): the only reader is
     * the check, which needs the value to be coherent (never going back to an older write) and to become visible
     * promptly, both of which opaque mode gives; a volatile write would add a full fence per call and order nothing
     * that matters, since no ordering mode can make an activity that races with the check count as before it.
     */
    public final void notIdle() {
        LAST_ACTIVITY.setOpaque(this, System.nanoTime());
    }

    /** @return the idle period; zero means never */
    public final Duration idleTimeout() {
        return Duration.ofNanos(idleNanos);
    }

    /** @return how long since the last activity */
    public final Duration idleTime() {
        return Duration.ofNanos(Math.max(0, System.nanoTime() - (long) LAST_ACTIVITY.getOpaque(this)));
    }

    /**
     * Changes the idle period, also while started: the new period applies at once, counted from the last activity
     * (so shortening it below the time already idle expires the timeout at the next tick). If the timer was stopped,
     * this idle timeout stops too.
     *
     * @param idleTimeout the new period; zero or negative means never
     */
    public final void setIdleTimeout(Duration idleTimeout) {
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        long nanos = idleTimeout.isNegative() ? 0 : TimeUnit.NANOSECONDS.convert(idleTimeout);
        idleNanos = nanos;
        rescheduleForNewPeriod();
    }

    /**
     * Starts watching for idleness, counting from now. Does nothing if started.
     *
     * @throws IllegalStateException if the timer is stopped
     */
    public final void start() {
        LAST_ACTIVITY.setOpaque(this, System.nanoTime());
        while (scheduled == STOPPED) {
            long idle = idleNanos;
            Timeout next = idle > 0 ? timer.trySchedule(this, idle) : DISABLED;
            if (next == null) {
                throw new IllegalStateException("cannot start " + this + ": " + timer + " is stopped");
            }
            if (SCHEDULED.compareAndSet(this, STOPPED, next)) {
                // setIdleTimeout() may have run between reading the period and the CAS, and seen STOPPED.
                if (idleNanos != idle) {
                    rescheduleForNewPeriod();
                }
                return;
            }
            next.cancel();
        }
    }

    /** Stops watching: cancels the scheduled check; {@link #onIdleExpired()} will not run unless started again. */
    public final void stop() {
        Timeout current = (Timeout) SCHEDULED.getAndSet(this, STOPPED);
        current.cancel(); // a no-op for the sentinels and for a check that already fired (it will see STOPPED)
    }

    /** @return true between {@link #start()} and {@link #stop()} */
    public final boolean isStarted() {
        return scheduled != STOPPED;
    }

    /** Replaces the scheduled check by one that matches the current period. */
    private void rescheduleForNewPeriod() {
        while (true) {
            Timeout current = scheduled;
            if (current == STOPPED) {
                return;
            }
            long idle = idleNanos;
            Timeout next = DISABLED;
            if (idle > 0) {
                long idleFor = System.nanoTime() - (long) LAST_ACTIVITY.getOpaque(this);
                next = timer.trySchedule(this, idle - idleFor);
                if (next == null) {
                    next = STOPPED; // the timer stopped: nothing can be checked any more
                }
            }
            if (SCHEDULED.compareAndSet(this, current, next)) {
                current.cancel();
                if (idleNanos == idle || next == STOPPED) {
                    return;
                }
                // Another setIdleTimeout() wrote a newer period meanwhile: apply it too.
            } else {
                next.cancel();
            }
        }
    }

    /** The check, on the ticker: expire, or schedule again for the time left. */
    @Override
    final void runOnTicker() {
        Timeout current = scheduled;
        if (!current.isExpired()) {
            // Stopped or disabled (sentinels are never expired), or replaced by a newer check: this one is stale.
            return;
        }
        long idle = idleNanos;
        if (idle <= 0) {
            SCHEDULED.compareAndSet(this, current, DISABLED);
            return;
        }
        long now = System.nanoTime();
        long idleFor = now - (long) LAST_ACTIVITY.getOpaque(this);
        if (idleFor < idle) {
            replace(current, idle - idleFor);
            return;
        }
        // Start the next period before the action runs, so that the action may stop() or change this timeout, and
        // so that if it does neither, it runs again only after another full idle period.
        LAST_ACTIVITY.setOpaque(this, now);
        if (replace(current, idle)) {
            // Never on the ticker, even when non-blocking: an expiry closes a connection and fails its callbacks, work
            // whose size the ticker cannot bound, and every other timeout of the server waits while the ticker works.
            timer.execute(new Expiry());
        }
    }

    /** Schedules the next check in place of {@code current}; false if stop() or setIdleTimeout() came first. */
    private boolean replace(Timeout current, long delayNanos) {
        Timeout next = timer.trySchedule(this, delayNanos);
        if (next == null) {
            SCHEDULED.compareAndSet(this, current, STOPPED); // the timer is stopping
            return false;
        }
        if (SCHEDULED.compareAndSet(this, current, next)) {
            return true;
        }
        next.cancel();
        return false;
    }

    @Override
    public String toString() {
        Timeout current = scheduled;
        String state = current == STOPPED ? "STOPPED" : current == DISABLED ? "DISABLED" : "STARTED";
        return getClass().getSimpleName() + "@" + Integer.toHexString(hashCode()) + "{" + state + ",idleTimeout="
                + idleTimeout() + ",idleFor=" + idleTime() + "}";
    }

    /** The expiry action handed to the executor. */
    private final class Expiry implements Invocable.Task {
        @Override
        public void run() {
            onIdleExpired();
        }

        @Override
        public InvocationType invocationType() {
            return IdleTimeout.this.invocationType();
        }

        @Override
        public String toString() {
            return "onIdleExpired of " + IdleTimeout.this;
        }
    }

    /** The idle timeout of {@link #of(HashedWheelTimer, Duration, Runnable)}. */
    private static final class RunnableIdleTimeout extends IdleTimeout {
        private final Runnable action;

        RunnableIdleTimeout(HashedWheelTimer timer, Runnable action) {
            super(timer);
            this.action = Objects.requireNonNull(action, "onIdleExpired");
        }

        @Override
        protected void onIdleExpired() {
            action.run();
        }

        @Override
        public InvocationType invocationType() {
            return Invocable.invocationTypeOf(action);
        }

        @Override
        public String toString() {
            return super.toString() + "->" + action;
        }
    }
}
