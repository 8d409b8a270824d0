package dev.quarry.io;

/**
 * The idle timeout of one endpoint: activity only records a timestamp; the check runs on the timer.
 */
public interface EndPointIdleTimeout {

    /** Records activity. Must be cheap: it runs on every read and write. */
    void notIdle();

    /** Starts watching. */
    void start();

    /** Stops watching, for good. */
    void stop();

    /** @return the timeout in milliseconds; 0 or less for none */
    long timeoutMillis();

    /** @param millis the new timeout in milliseconds; 0 or less for none */
    void setTimeoutMillis(long millis);

    /** Creates the idle timeout of an endpoint, which it calls back on expiry. */
    interface Factory {
        EndPointIdleTimeout create(SocketEndPoint endPoint);
    }
}
