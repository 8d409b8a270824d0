package dev.quarry.bench.peers;

import java.time.Duration;
import java.util.Locale;

/**
 * How a peer server is started: where it listens and how long it keeps an idle connection open.
 *
 * @param host the address to bind, {@code 127.0.0.1} by default (the benchmarks never listen elsewhere)
 * @param port the port to bind, {@code 0} for an ephemeral one
 * @param idleTimeout how long an idle connection stays open; long enough by default (5 minutes) that the
 *     idle-connections scenario is never cut short by the server
 */
public record PeerOptions(String host, int port, Duration idleTimeout) {

    /** The idle timeout used when none is given. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(5);

    /** Checks the values. */
    public PeerOptions {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("host must not be blank: '" + host + "'");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range 0..65535: " + port);
        }
        if (idleTimeout == null || idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("idle timeout must be positive: " + idleTimeout);
        }
    }

    /**
     * @param port the port to bind, {@code 0} for an ephemeral one
     * @return options for {@code 127.0.0.1:port} with the default idle timeout
     */
    public static PeerOptions loopback(int port) {
        return new PeerOptions("127.0.0.1", port, DEFAULT_IDLE_TIMEOUT);
    }

    /**
     * Parses {@code --port N}, {@code --host H} and {@code --idle-timeout SECONDS} (in any order).
     *
     * @param args the options
     * @return the options
     * @throws IllegalArgumentException naming the option and the value that is wrong
     */
    public static PeerOptions parse(String... args) {
        String host = "127.0.0.1";
        int port = 8080;
        Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + option + " needs a value");
            }
            String value = args[++i];
            switch (option) {
                case "--host" -> host = value;
                case "--port" -> port = parseInt(option, value);
                case "--idle-timeout" -> idleTimeout = Duration.ofSeconds(parseInt(option, value));
                default ->
                    throw new IllegalArgumentException(
                            "unknown option " + option + " (expected --port, --host or --idle-timeout)");
            }
        }
        return new PeerOptions(host, port, idleTimeout);
    }

    private static int parseInt(String option, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " expects an integer, not '" + value + "'", e);
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s:%d idle-timeout=%ds", host, port, idleTimeout.toSeconds());
    }
}
