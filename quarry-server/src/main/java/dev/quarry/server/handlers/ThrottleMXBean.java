package dev.quarry.server.handlers;

/**
 * The management view of a {@link Throttle}: its limits, readable and writable at run time (as in the throttling
 * article, where the bucket's capacity was a JMX attribute), and its statistics. Rates are in bytes per second and 0
 * means unlimited; bursts are in bytes and 0 means the default. A setter that is given an invalid value throws {@link
 * IllegalArgumentException} naming it, and changes nothing.
 *
 * <p>Get one with {@link Throttle#mxBean()} and register it yourself, e.g. as
 * {@code dev.quarry:type=Throttle,name=downloads}; the throttle registers nothing.
 */
public interface ThrottleMXBean {

    /** @return bytes per second for all clients together, 0 if unlimited */
    long getGlobalRate();

    /** @param bytesPerSecond the new global rate, 0 for unlimited */
    void setGlobalRate(long bytesPerSecond);

    /** @return the global burst, 0 for the default */
    long getGlobalBurst();

    /** @param bytes the new global burst, 0 for the default */
    void setGlobalBurst(long bytes);

    /** @return bytes per second per client address, 0 if unlimited */
    long getClientRate();

    /** @param bytesPerSecond the new per-client rate, 0 for unlimited */
    void setClientRate(long bytesPerSecond);

    /** @return the per-client burst, 0 for the default */
    long getClientBurst();

    /** @param bytes the new per-client burst, 0 for the default */
    void setClientBurst(long bytes);

    /** @return bytes per second per request, 0 if unlimited */
    long getRequestRate();

    /** @param bytesPerSecond the new per-request rate, 0 for unlimited; applies to requests in flight too */
    void setRequestRate(long bytesPerSecond);

    /** @return the per-request burst, 0 for the default */
    long getRequestBurst();

    /** @param bytes the new per-request burst, 0 for the default */
    void setRequestBurst(long bytes);

    /** @return the largest piece of content written at once */
    int getChunkSize();

    /** @param bytes the new chunk size */
    void setChunkSize(int bytes);

    /** @return requests of one client in flight at once, 0 for no cap */
    int getMaxRequestsPerClient();

    /** @param max the new cap, 0 for none */
    void setMaxRequestsPerClient(int max);

    /** @return the allow list (never throttled), comma-separated CIDR blocks */
    String getAllowList();

    /** @param list the new allow list, comma- or space-separated addresses and CIDR blocks */
    void setAllowList(String list);

    /** @return the deny list (403), comma-separated CIDR blocks */
    String getDenyList();

    /** @param list the new deny list */
    void setDenyList(String list);

    /** @return how long an idle client's bucket is kept, in milliseconds */
    long getClientIdleEvictionMillis();

    /** @param millis the new eviction delay, positive */
    void setClientIdleEvictionMillis(long millis);

    /** @return all limits in one readable line */
    String getLimits();

    /** @return the tokens in the global bucket now (negative while writes are queued on it) */
    long getGlobalAvailable();

    /** @return client buckets held now */
    int getActiveClients();

    /** @return throttled requests in flight */
    int getActiveRequests();

    /** @return writes parked on the timer now */
    long getWaitingWrites();

    /** @return the most writes parked at once */
    long getMaxWaitingWrites();

    /** @return content bytes written through the throttle */
    long getBytesSent();

    /** @return the sum of every park's duration, in milliseconds */
    long getThrottledMillis();

    /** @return how many times a write was parked */
    long getParkedWrites();

    /** @return requests throttled */
    long getThrottledRequests();

    /** @return requests of allow-listed clients */
    long getUnthrottledRequests();

    /** @return requests answered 403 */
    long getDeniedRequests();

    /** @return requests answered 429 */
    long getTooManyRequests();

    /** @return client buckets evicted */
    long getEvictedClients();
}
