package dev.quarry.server.handlers;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The {@link ThrottleMXBean} of a {@link Throttle}: each setter is one atomic update of the throttle's limits.
 *
 * <p>Thread-safety: any thread (JMX calls come from RMI threads).
 */
final class ThrottleMBean implements ThrottleMXBean {
    private final Throttle throttle;

    ThrottleMBean(Throttle throttle) {
        this.throttle = throttle;
    }

    private ThrottleLimits limits() {
        return throttle.limits();
    }

    private ThrottleStatistics statistics() {
        return throttle.statistics();
    }

    @Override
    public long getGlobalRate() {
        return limits().globalRate();
    }

    @Override
    public void setGlobalRate(long bytesPerSecond) {
        throttle.update(l -> l.toBuilder().globalRate(bytesPerSecond).build());
    }

    @Override
    public long getGlobalBurst() {
        return limits().globalBurst();
    }

    @Override
    public void setGlobalBurst(long bytes) {
        throttle.update(l -> l.toBuilder().globalBurst(bytes).build());
    }

    @Override
    public long getClientRate() {
        return limits().clientRate();
    }

    @Override
    public void setClientRate(long bytesPerSecond) {
        throttle.update(l -> l.toBuilder().clientRate(bytesPerSecond).build());
    }

    @Override
    public long getClientBurst() {
        return limits().clientBurst();
    }

    @Override
    public void setClientBurst(long bytes) {
        throttle.update(l -> l.toBuilder().clientBurst(bytes).build());
    }

    @Override
    public long getRequestRate() {
        return limits().requestRate();
    }

    @Override
    public void setRequestRate(long bytesPerSecond) {
        throttle.update(l -> l.toBuilder().requestRate(bytesPerSecond).build());
    }

    @Override
    public long getRequestBurst() {
        return limits().requestBurst();
    }

    @Override
    public void setRequestBurst(long bytes) {
        throttle.update(l -> l.toBuilder().requestBurst(bytes).build());
    }

    @Override
    public int getChunkSize() {
        return limits().chunkSize();
    }

    @Override
    public void setChunkSize(int bytes) {
        throttle.update(l -> l.toBuilder().chunkSize(bytes).build());
    }

    @Override
    public int getMaxRequestsPerClient() {
        return limits().maxRequestsPerClient();
    }

    @Override
    public void setMaxRequestsPerClient(int max) {
        throttle.update(l -> l.toBuilder().maxRequestsPerClient(max).build());
    }

    @Override
    public String getAllowList() {
        return limits().allow().toString();
    }

    @Override
    public void setAllowList(String list) {
        AddressSet allow = AddressSet.parse(list);
        throttle.update(l -> l.toBuilder().allow(allow).build());
    }

    @Override
    public String getDenyList() {
        return limits().deny().toString();
    }

    @Override
    public void setDenyList(String list) {
        AddressSet deny = AddressSet.parse(list);
        throttle.update(l -> l.toBuilder().deny(deny).build());
    }

    @Override
    public long getClientIdleEvictionMillis() {
        return limits().clientIdleEviction().toMillis();
    }

    @Override
    public void setClientIdleEvictionMillis(long millis) {
        throttle.update(
                l -> l.toBuilder().clientIdleEviction(Duration.ofMillis(millis)).build());
    }

    @Override
    public String getLimits() {
        return limits().toString();
    }

    @Override
    public long getGlobalAvailable() {
        return throttle.globalBucket().available();
    }

    @Override
    public int getActiveClients() {
        return statistics().activeClients();
    }

    @Override
    public int getActiveRequests() {
        return statistics().activeRequests();
    }

    @Override
    public long getWaitingWrites() {
        return statistics().waitingWrites();
    }

    @Override
    public long getMaxWaitingWrites() {
        return statistics().maxWaitingWrites();
    }

    @Override
    public long getBytesSent() {
        return statistics().bytesSent();
    }

    @Override
    public long getThrottledMillis() {
        return TimeUnit.NANOSECONDS.toMillis(statistics().throttledNanos());
    }

    @Override
    public long getParkedWrites() {
        return statistics().parkedWrites();
    }

    @Override
    public long getThrottledRequests() {
        return statistics().throttledRequests();
    }

    @Override
    public long getUnthrottledRequests() {
        return statistics().unthrottledRequests();
    }

    @Override
    public long getDeniedRequests() {
        return statistics().deniedRequests();
    }

    @Override
    public long getTooManyRequests() {
        return statistics().tooManyRequests();
    }

    @Override
    public long getEvictedClients() {
        return statistics().evictedClients();
    }

    @Override
    public String toString() {
        return "ThrottleMBean[" + throttle + "]";
    }
}
