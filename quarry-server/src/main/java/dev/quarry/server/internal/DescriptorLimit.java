package dev.quarry.server.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * The default cap on open connections, from the process's file descriptor limit: past that limit a connection is
 * accepted by the kernel but cannot be handed a descriptor, so its client waits for nothing. A connection may hold
 * more than one descriptor (its socket, and a file it is being sent), and the process needs some for itself (jars,
 * logs, the selector): half of what is left after a reserve goes to connections.
 */
public final class DescriptorLimit {
    /** Descriptors kept for the process itself: class path, logs, selectors, pipes. */
    static final long RESERVE = 256;

    private DescriptorLimit() {}

    /**
     * @return the default cap on open connections per connector, or 0 (no cap) when the limit cannot be read (not a
     *     Unix system, or the {@code jdk.management} module is absent)
     */
    public static int defaultMaxConnections() {
        return capFor(maxDescriptors());
    }

    /**
     * @param maxDescriptors the process's descriptor limit, or 0 if unknown
     * @return the cap it leaves for connections, or 0 for none
     */
    static int capFor(long maxDescriptors) {
        if (maxDescriptors <= 0) {
            return 0;
        }
        long cap = Math.max(32, (maxDescriptors - RESERVE) / 2);
        return (int) Math.min(cap, Integer.MAX_VALUE);
    }

    /** @return the process's file descriptor limit ({@code ulimit -n}), or 0 if it cannot be read */
    static long maxDescriptors() {
        try {
            OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
            if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
                return unix.getMaxFileDescriptorCount();
            }
        } catch (LinkageError x) {
            // jdk.management is not in this runtime: no default cap
        }
        return 0;
    }
}
