package dev.quarry.server.internal.tls;

import dev.quarry.core.timer.HashedWheelTimer;
import dev.quarry.core.timer.Timeout;
import dev.quarry.io.TlsConnectionFactory;
import dev.quarry.server.TlsCertificatesMXBean;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Reloads the certificates of one HTTPS listener from their files: on request ({@link #reload()}, from the API or
 * JMX), and, when a watch interval is set, whenever a look at the files finds one changed. A reload reads every file
 * and makes a new SSL context before anything changes, then hands it to the connector's {@link TlsConnectionFactory}
 * in one volatile write: new handshakes use it, connections already made keep their engines and so their
 * certificates. Files that cannot be used leave the certificates in use in place.
 *
 * <p>The watcher's look runs on the timer's executor (a virtual thread, off every selector): it only reads file
 * attributes, and reads the files when they changed.
 *
 * <p>Thread-safety: reloads are serialized by a lock (they are rare and read files); the counters are atomic.
 */
public final class CertificateReloader implements TlsCertificatesMXBean {
    private static final System.Logger LOG = System.getLogger(CertificateReloader.class.getName());

    private final List<CertificateSource> sources;
    private final boolean requireSni;
    private final TlsConnectionFactory factory;
    private final Supplier<String> listener;
    private final Optional<Duration> watchInterval;
    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicLong reloads = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile LoadedCertificates current;
    private volatile String lastFailure = "";
    // What the files looked like at the last reload tried, good or bad: a bad file is tried again only once it changes.
    private volatile FileStamps seen;
    private volatile HashedWheelTimer timer;
    private volatile Timeout nextLook;

    /**
     * @param sources the certificates' files, the default certificate's first
     * @param requireSni whether a handshake without a known server name is refused
     * @param initial the certificates the factory uses now
     * @param factory the connector's TLS factory, whose context a reload replaces
     * @param listener describes the listener, for log lines and JMX
     * @param watchInterval how often to look at the files, if at all
     */
    public CertificateReloader(
            List<CertificateSource> sources,
            boolean requireSni,
            LoadedCertificates initial,
            TlsConnectionFactory factory,
            Supplier<String> listener,
            Optional<Duration> watchInterval) {
        this.sources = List.copyOf(sources);
        this.requireSni = requireSni;
        this.current = Objects.requireNonNull(initial, "initial");
        this.factory = Objects.requireNonNull(factory, "factory");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.watchInterval = Objects.requireNonNull(watchInterval, "watchInterval");
        this.seen = FileStamps.of(sources);
    }

    /**
     * Starts looking at the files, if a watch interval is set.
     *
     * @param timer schedules the looks
     */
    public void start(HashedWheelTimer timer) {
        this.timer = timer;
        this.seen = FileStamps.of(sources);
        scheduleLook();
    }

    /** Stops looking at the files. */
    public void stop() {
        HashedWheelTimer stopped = timer;
        timer = null;
        Timeout look = nextLook;
        if (look != null) {
            look.cancel();
        }
        if (stopped != null) {
            LOG.log(Level.DEBUG, () -> "stopped watching the certificates of " + listener.get());
        }
    }

    private void scheduleLook() {
        HashedWheelTimer running = timer;
        if (running != null && watchInterval.isPresent()) {
            try {
                nextLook = running.schedule(this::look, watchInterval.get());
            } catch (IllegalStateException x) {
                // The timer stopped with the server: there is nothing left to watch for.
            }
        }
    }

    /** One look at the files; reloads when they changed. Runs on the timer's executor, never on a selector. */
    void look() {
        if (timer == null) {
            return;
        }
        try {
            if (!FileStamps.of(sources).equals(seen)) {
                try {
                    reload();
                } catch (RuntimeException x) {
                    LOG.log(
                            Level.WARNING,
                            "cannot reload the certificates of " + listener.get() + ", keeping those in use: "
                                    + x.getMessage());
                }
            }
        } finally {
            scheduleLook();
        }
    }

    /**
     * Reads the files and, if every one is usable, uses them for new handshakes.
     *
     * @throws IllegalArgumentException if a file holds no usable certificate or key (the certificates in use stay)
     * @throws java.io.UncheckedIOException if a file cannot be read (the certificates in use stay)
     */
    @Override
    public void reload() {
        lock.lock();
        try {
            // Stamped before reading: a file written while it is read looks changed at the next look.
            seen = FileStamps.of(sources);
            LoadedCertificates next;
            try {
                next = LoadedCertificates.load(sources, requireSni);
                factory.reload(next.context(), next.sniMatchers());
            } catch (RuntimeException x) {
                failures.incrementAndGet();
                lastFailure = String.valueOf(x.getMessage());
                throw x;
            }
            current = next;
            reloads.incrementAndGet();
            LOG.log(Level.INFO, "Reloaded the certificates of " + listener.get() + ": " + next);
        } finally {
            lock.unlock();
        }
    }

    /** @return the certificates new handshakes use */
    public LoadedCertificates current() {
        return current;
    }

    @Override
    public String getListener() {
        return listener.get();
    }

    @Override
    public List<String> getCertificates() {
        return current.keyManager().certificates().stream()
                .map(ServerCertificate::toString)
                .toList();
    }

    @Override
    public List<String> getServerNames() {
        return current.keyManager().certificates().stream()
                .flatMap(certificate -> certificate.names().stream())
                .distinct()
                .toList();
    }

    @Override
    public long getReloads() {
        return reloads.get();
    }

    @Override
    public long getFailedReloads() {
        return failures.get();
    }

    @Override
    public String getLastFailure() {
        return lastFailure;
    }

    @Override
    public String toString() {
        return "CertificateReloader{" + listener.get() + ", " + current + ", reloads=" + reloads + ", failed="
                + failures
                + watchInterval.map(interval -> ", watch=" + interval).orElse("") + "}";
    }
}
