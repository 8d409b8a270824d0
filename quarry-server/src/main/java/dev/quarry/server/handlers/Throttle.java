package dev.quarry.server.handlers;

import dev.quarry.core.Dumpable;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.LifeCycle;
import dev.quarry.core.throttle.NanoClock;
import dev.quarry.core.throttle.TokenBucket;
import dev.quarry.core.timer.HashedWheelTimer;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * The live state of bandwidth throttling, shared by every {@link ThrottleHandler} that uses it: the current
 * {@link ThrottleLimits}, the global token bucket, one bucket per client address, the timer on which waiting writes
 * park, and statistics. Limits change at run time with {@link #limits(ThrottleLimits)}, {@link #update} or the
 * {@link #mxBean()}: the global bucket changes at once, client and request buckets at their next chunk (requests in
 * flight included).
 *
 * <pre>{@code
 * Throttle throttle = Throttle.builder()
 *         .limits(ThrottleLimits.builder()
 *                 .globalRate(ThrottleLimits.parseRate("20MiB/s"))
 *                 .requestRate(ThrottleLimits.parseRate("20KiB/s"))
 *                 .build())
 *         .build();                                  // its own timer, until stop()
 * Server server = Server.builder().http(8080).handler(new ThrottleHandler(throttle, files)).build().start();
 * }</pre>
 *
 * <p><b>Client buckets</b> live in a map keyed by the client's IP address (Unix-domain clients share one key). An
 * entry lives while the client has requests in flight; once it has none, has been idle for
 * {@link ThrottleLimits#clientIdleEviction()} and its bucket is full again, a sweep on the timer evicts it. The sweep
 * runs only while the map is not empty, on the timer's executor (it never blocks), in O(clients).
 *
 * <p><b>Timer</b>: pass the server's (or any started) {@link HashedWheelTimer} to the builder to share it; otherwise
 * the throttle starts its own (one daemon thread), which {@link #stop()} stops. Writes parked when the timer stops
 * never resume: their connections are closed by the server's shutdown or idle timeout.
 *
 * <p>Thread-safety: every method may be called from any thread. Admission is O(1) and lock-free (a map lookup and a
 * CAS); a lock only serialises changes of the limits.
 */
public final class Throttle implements LifeCycle, Dumpable {
    private static final System.Logger LOG = System.getLogger(Throttle.class.getName());
    private static final String UNIX_CLIENT = "unix-domain";
    private static final int DUMPED_CLIENTS = 20;

    private final ConcurrentHashMap<Object, ClientThrottle> clients = new ConcurrentHashMap<>();
    private final ThrottleCounters counters = new ThrottleCounters();
    private final AtomicBoolean sweepScheduled = new AtomicBoolean();
    private final Invocable.Task sweep = Invocable.task(InvocationType.NON_BLOCKING, this::sweep);
    private final ReentrantLock updateLock = new ReentrantLock();
    private final NanoClock clock;
    private final HashedWheelTimer timer;
    private final boolean ownTimer;
    private final TokenBucket global;
    private final ThrottleMBean mxBean = new ThrottleMBean(this);
    private volatile ThrottleLimits limits;

    private Throttle(Builder builder) {
        this.clock = builder.clock;
        this.limits = builder.limits;
        this.global = TokenBucket.builder()
                .rate(ThrottleLimits.bucketRate(limits.globalRate()))
                .capacity(limits.globalCapacity())
                .clock(clock)
                .build();
        if (builder.timer != null) {
            this.timer = builder.timer;
            this.ownTimer = false;
        } else {
            this.timer =
                    HashedWheelTimer.builder().name("quarry-throttle-timer").build();
            this.ownTimer = true;
            timer.start();
        }
    }

    /** @return a builder: no limits, its own timer */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * @param limits the limits
     * @return a throttle with its own timer
     */
    public static Throttle of(ThrottleLimits limits) {
        return builder().limits(limits).build();
    }

    /** @return the limits in force */
    public ThrottleLimits limits() {
        return limits;
    }

    /**
     * Replaces the limits; see the class comment for when each takes effect.
     *
     * @param limits the new limits
     */
    public void limits(ThrottleLimits limits) {
        Objects.requireNonNull(limits, "limits");
        updateLock.lock();
        try {
            apply(limits);
        } finally {
            updateLock.unlock();
        }
    }

    /**
     * Changes the limits atomically with respect to other changes, e.g.
     * {@code throttle.update(l -> l.toBuilder().requestRate(1 << 20).build())}.
     *
     * @param change computes the new limits from the current ones; may throw to refuse (nothing changes then)
     * @return the new limits
     */
    public ThrottleLimits update(UnaryOperator<ThrottleLimits> change) {
        Objects.requireNonNull(change, "change");
        updateLock.lock();
        try {
            ThrottleLimits next = Objects.requireNonNull(change.apply(limits), "the new limits");
            apply(next);
            return next;
        } finally {
            updateLock.unlock();
        }
    }

    private void apply(ThrottleLimits next) {
        ThrottleLimits previous = limits;
        limits = next;
        if (previous.globalRate() != next.globalRate() || previous.globalCapacity() != next.globalCapacity()) {
            global.reconfigure(ThrottleLimits.bucketRate(next.globalRate()), next.globalCapacity());
        }
        LOG.log(Level.DEBUG, () -> "throttle limits now " + next);
    }

    /** @return the global bucket, shared by all throttled requests */
    public TokenBucket globalBucket() {
        return global;
    }

    /** @return the counters now */
    public ThrottleStatistics statistics() {
        return counters.snapshot(clients.size());
    }

    /** @return the management view, with writable limits; not registered anywhere */
    public ThrottleMXBean mxBean() {
        return mxBean;
    }

    /** @return the timer on which waiting writes park */
    public HashedWheelTimer timer() {
        return timer;
    }

    NanoClock clock() {
        return clock;
    }

    ThrottleCounters counters() {
        return counters;
    }

    // --- admission --------------------------------------------------------------------------------------------------

    /** What {@link #admit} decided: a status to answer (403, 429) or a request to throttle (or not, if null). */
    record Admission(int status, RequestThrottle request) {
        static final Admission DENIED = new Admission(403, null);
        static final Admission TOO_MANY = new Admission(429, null);
        static final Admission UNTHROTTLED = new Admission(0, null);
    }

    /**
     * Decides what happens to a request: denied, too many in flight for its client, passed through (allow-listed, or
     * without a response body), or throttled; in the last case the caller must {@link RequestThrottle#release()} it
     * when the request ends.
     *
     * @param remote the client's address
     * @param bodiless whether the response has no body whatever the handler writes (HEAD): pacing it would only delay
     *     the head and hold the client's slot
     */
    Admission admit(SocketAddress remote, boolean bodiless) {
        ThrottleLimits current = limits;
        if (current.deny().contains(remote)) {
            counters.deniedRequests.increment();
            return Admission.DENIED;
        }
        if (bodiless || current.allow().contains(remote)) {
            counters.unthrottledRequests.increment();
            return Admission.UNTHROTTLED;
        }
        ClientThrottle client = null;
        if (current.tracksClients()) {
            client = acquireClient(clientKey(remote), current);
            if (client == null) {
                counters.tooManyRequests.increment();
                return Admission.TOO_MANY;
            }
        }
        counters.throttledRequests.increment();
        counters.activeRequests.incrementAndGet();
        return new Admission(0, new RequestThrottle(this, client, current));
    }

    private static Object clientKey(SocketAddress remote) {
        if (remote instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress();
        }
        return UNIX_CLIENT;
    }

    private ClientThrottle acquireClient(Object key, ThrottleLimits current) {
        while (true) {
            ClientThrottle client = clients.get(key);
            if (client == null) {
                client = clients.computeIfAbsent(key, k -> new ClientThrottle(k, current, clock));
            }
            switch (client.tryAcquire(current.maxRequestsPerClient())) {
                case ClientThrottle.ACQUIRED -> {
                    scheduleSweep();
                    return client;
                }
                case ClientThrottle.FULL -> {
                    return null;
                }
                default -> clients.remove(key, client); // evicted under our feet: make a fresh one
            }
        }
    }

    /** A throttled request ended (its handler completed): free its client's slot. */
    void onRequestEnd(ClientThrottle client) {
        counters.activeRequests.decrementAndGet();
        if (client != null) {
            client.release();
        }
    }

    // --- eviction ---------------------------------------------------------------------------------------------------

    private void scheduleSweep() {
        if (sweepScheduled.get() || !sweepScheduled.compareAndSet(false, true)) {
            return;
        }
        long idle = limits.clientIdleEviction().toNanos();
        long period = Math.clamp(idle / 4, TimeUnit.MILLISECONDS.toNanos(10), TimeUnit.SECONDS.toNanos(15));
        try {
            timer.schedule(sweep, period, TimeUnit.NANOSECONDS);
        } catch (IllegalStateException x) {
            sweepScheduled.set(false);
            LOG.log(Level.DEBUG, () -> "no client eviction: " + x.getMessage());
        }
    }

    /** Evicts the idle clients; runs on the timer's executor (and in tests). */
    void sweep() {
        long now = clock.nanoTime();
        long idle = limits.clientIdleEviction().toNanos();
        for (ClientThrottle client : clients.values()) {
            if (client.tryEvict(now, idle)) {
                clients.remove(client.key(), client);
                counters.evictedClients.increment();
            }
        }
        sweepScheduled.set(false);
        // A client added after the loop scheduled nothing (the flag was still set): look again.
        if (!clients.isEmpty()) {
            scheduleSweep();
        }
    }

    // --- life cycle -------------------------------------------------------------------------------------------------

    /** Starts the throttle's own timer again after {@link #stop()}; does nothing with a shared timer. */
    @Override
    public void start() {
        if (ownTimer) {
            timer.start();
        }
    }

    /** Stops the throttle's own timer; does nothing with a shared timer (its owner stops it). */
    @Override
    public void stop() {
        if (ownTimer) {
            timer.stop();
        }
    }

    @Override
    public boolean isRunning() {
        return timer.isRunning();
    }

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        out.append(toString()).append(System.lineSeparator());
        out.append(indent).append("+- ").append(limits.toString()).append(System.lineSeparator());
        out.append(indent).append("+- global ").append(global.toString()).append(System.lineSeparator());
        out.append(indent).append("+- ").append(statistics().toString()).append(System.lineSeparator());
        int shown = 0;
        for (ClientThrottle client : clients.values()) {
            if (shown++ == DUMPED_CLIENTS) {
                out.append(indent)
                        .append("+- ... ")
                        .append(Integer.toString(clients.size() - DUMPED_CLIENTS))
                        .append(" more clients")
                        .append(System.lineSeparator());
                break;
            }
            out.append(indent).append("+- ").append(client.toString()).append(System.lineSeparator());
        }
    }

    @Override
    public String toString() {
        return "Throttle{" + limits + ", clients=" + clients.size() + ", requests=" + counters.activeRequests.get()
                + ", waitingWrites=" + counters.waitingWrites.get() + (ownTimer ? ", own timer" : "") + "}";
    }

    /** Configures a {@link Throttle}. Not thread-safe. */
    public static final class Builder {
        private ThrottleLimits limits = ThrottleLimits.NONE;
        private HashedWheelTimer timer;
        private NanoClock clock = NanoClock.SYSTEM;

        private Builder() {}

        /**
         * @param limits the initial limits; none unless set
         * @return this
         */
        public Builder limits(ThrottleLimits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * @param timer a started timer to share (e.g. {@code Server.timer()}); its owner stops it. Without one the
         *     throttle starts its own
         * @return this
         */
        public Builder timer(HashedWheelTimer timer) {
            this.timer = Objects.requireNonNull(timer, "timer");
            return this;
        }

        /**
         * @param clock the clock of the buckets and of eviction; tests may simulate time
         * @return this
         */
        public Builder clock(NanoClock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** @return the throttle, its own timer started if it has one */
        public Throttle build() {
            return new Throttle(this);
        }
    }
}
