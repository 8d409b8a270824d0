package dev.quarry.core.timer;

/**
 * A task that a {@link HashedWheelTimer} always runs on its ticker thread, whatever it would do next: it must be
 * short and never block, and dispatches any further work itself. {@link IdleTimeout}'s check is one: it only compares
 * two timestamps, so running it in place saves a thread hand-off per check and an extra object per instance.
 */
abstract class TickerTask {

    /** Runs on the ticker thread; exceptions are logged by the timer. */
    abstract void runOnTicker();
}
