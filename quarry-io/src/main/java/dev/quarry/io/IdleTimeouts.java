package dev.quarry.io;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.timer.HashedWheelTimer;
import dev.quarry.core.timer.IdleTimeout;
import java.time.Duration;
import java.util.Objects;

/** Factories of endpoint idle timeouts. */
public final class IdleTimeouts {
    private IdleTimeouts() {}

    /**
     * Idle timeouts on a hashed-wheel timer: activity only writes a coarse timestamp, and one timeout per idle period
     * checks it (see {@link IdleTimeout}). On expiry the connection is asked ({@link Connection#onIdleExpired()}),
     * on the timer's ticker thread: expiry handling must not block.
     *
     * @param timer the timer, shared by all endpoints
     * @return the factory
     */
    public static EndPointIdleTimeout.Factory of(HashedWheelTimer timer) {
        Objects.requireNonNull(timer, "timer");
        // Expiry only closes the endpoint or asks the connection to (a GOAWAY is an asynchronous write): never blocks,
        // so it runs on the ticker instead of costing a thread per expiry.
        return endPoint -> new TimerIdleTimeout(IdleTimeout.of(
                timer, Duration.ZERO, Invocable.task(InvocationType.NON_BLOCKING, endPoint::onIdleExpired)));
    }

    /** @return idle timeouts that never expire: for tests and for endpoints whose protocol times out itself */
    public static EndPointIdleTimeout.Factory none() {
        return endPoint -> new EndPointIdleTimeout() {
            private volatile long millis;

            @Override
            public void notIdle() {}

            @Override
            public void start() {}

            @Override
            public void stop() {}

            @Override
            public long timeoutMillis() {
                return millis;
            }

            @Override
            public void setTimeoutMillis(long timeoutMillis) {
                this.millis = timeoutMillis;
            }
        };
    }

    private record TimerIdleTimeout(IdleTimeout timeout) implements EndPointIdleTimeout {
        @Override
        public void notIdle() {
            timeout.notIdle();
        }

        @Override
        public void start() {
            timeout.start();
        }

        @Override
        public void stop() {
            timeout.stop();
        }

        @Override
        public long timeoutMillis() {
            return timeout.idleTimeout().toMillis();
        }

        @Override
        public void setTimeoutMillis(long millis) {
            timeout.setIdleTimeout(Duration.ofMillis(Math.max(0, millis)));
        }
    }
}
