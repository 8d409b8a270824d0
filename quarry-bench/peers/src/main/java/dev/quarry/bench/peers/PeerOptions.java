package dev.quarry.bench.peers;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * How a peer server is started: where it listens, how long it keeps an idle connection open, and whether it speaks
 * TLS.
 *
 * @param host the address to bind, {@code 127.0.0.1} by default (the benchmarks never listen elsewhere)
 * @param port the port to bind, {@code 0} for an ephemeral one
 * @param idleTimeout how long an idle connection stays open; long enough by default (5 minutes) that the
 *     idle-connections scenario is never cut short by the server
 * @param tls the keystore to serve TLS with, or {@code null} for cleartext (HTTP/1.1 and h2c)
 */
public record PeerOptions(String host, int port, Duration idleTimeout, Tls tls) {

    /** The idle timeout used when none is given. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(5);

    /**
     * TLS on the peer's port, with ALPN offering {@code h2} and {@code http/1.1} (no cleartext on that port).
     *
     * @param keystore a PKCS#12 keystore holding one private key and its certificate chain
     * @param password the keystore's password (also the key's, as keytool makes PKCS#12 stores)
     * @param provider whose TLS implementation serves it; only Netty can use {@link TlsProvider#OPENSSL}
     */
    public record Tls(Path keystore, String password, TlsProvider provider) {
        /** Checks the values. */
        public Tls {
            if (keystore == null) {
                throw new IllegalArgumentException("--tls-keystore needs a file");
            }
            if (password == null) {
                throw new IllegalArgumentException("--tls-password must not be null (use an empty one)");
            }
            if (provider == null) {
                throw new IllegalArgumentException("TLS provider must not be null");
            }
        }

        @Override
        public String toString() {
            // The password stays out of logs and error messages.
            return "tls=" + keystore + " provider=" + provider.id();
        }
    }

    /** The TLS implementations a peer can be asked for. */
    public enum TlsProvider {
        /** The JDK's own (JSSE), as Quarry and Jetty use. */
        JDK("jdk"),
        /** BoringSSL through netty-tcnative (Netty only). */
        OPENSSL("openssl");

        private final String id;

        TlsProvider(String id) {
            this.id = id;
        }

        /** @return the name on the command line */
        public String id() {
            return id;
        }

        static TlsProvider of(String id) {
            for (TlsProvider provider : values()) {
                if (provider.id.equals(id)) {
                    return provider;
                }
            }
            throw new IllegalArgumentException("--tls-provider expects jdk or openssl, not '" + id + "'");
        }
    }

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
     * Cleartext options.
     *
     * @param host the address to bind
     * @param port the port to bind, {@code 0} for an ephemeral one
     * @param idleTimeout how long an idle connection stays open
     */
    public PeerOptions(String host, int port, Duration idleTimeout) {
        this(host, port, idleTimeout, null);
    }

    /**
     * @param port the port to bind, {@code 0} for an ephemeral one
     * @return options for {@code 127.0.0.1:port} with the default idle timeout
     */
    public static PeerOptions loopback(int port) {
        return new PeerOptions("127.0.0.1", port, DEFAULT_IDLE_TIMEOUT);
    }

    /** @return these options with TLS from the given keystore */
    PeerOptions withTls(Tls tls) {
        return new PeerOptions(host, port, idleTimeout, tls);
    }

    /** @return whether the peer serves TLS */
    public boolean secure() {
        return tls != null;
    }

    /**
     * Parses {@code --port N}, {@code --host H}, {@code --idle-timeout SECONDS}, and for TLS {@code --tls-keystore
     * FILE} with {@code --tls-password PW} and {@code --tls-provider jdk|openssl} (in any order).
     *
     * @param args the options
     * @return the options
     * @throws IllegalArgumentException naming the option and the value that is wrong
     */
    public static PeerOptions parse(String... args) {
        String host = "127.0.0.1";
        int port = 8080;
        Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
        String keystore = null;
        String password = null;
        String provider = null;
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
                case "--tls-keystore" -> keystore = value;
                case "--tls-password" -> password = value;
                case "--tls-provider" -> provider = value;
                default ->
                    throw new IllegalArgumentException("unknown option " + option
                            + " (expected --port, --host, --idle-timeout, --tls-keystore, --tls-password"
                            + " or --tls-provider)");
            }
        }
        Tls tls = null;
        if (keystore != null) {
            tls = new Tls(
                    Path.of(keystore),
                    password == null ? "" : password,
                    TlsProvider.of(provider == null ? "jdk" : provider));
        } else if (password != null || provider != null) {
            throw new IllegalArgumentException("--tls-password and --tls-provider need --tls-keystore FILE");
        }
        return new PeerOptions(host, port, idleTimeout, tls);
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
        return String.format(Locale.ROOT, "%s:%d idle-timeout=%ds", host, port, idleTimeout.toSeconds())
                + (tls == null ? "" : " " + tls);
    }
}
