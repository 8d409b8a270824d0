package dev.quarry.io;

/** Factories of endpoint idle timeouts. */
public final class IdleTimeouts {
    private IdleTimeouts() {}

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
}
