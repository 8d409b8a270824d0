package dev.quarry.bench.peers;

/**
 * The HTTP clients the load generator can drive, each named on the command line as {@code load-<id>}.
 *
 * <p>Immutable; thread-safe.
 */
public enum LoadClientKind {
    /** Quarry's own client (quarry-client). */
    QUARRY("quarry") {
        @Override
        LoadClient start(LoadOptions options) throws Exception {
            return QuarryLoadClient.start(options);
        }
    },
    /** Jetty 12's {@code HttpClient}: HTTP/1.1, or h2c by prior knowledge over its HTTP/2 transport. */
    JETTY("jetty") {
        @Override
        LoadClient start(LoadOptions options) throws Exception {
            return JettyLoadClient.start(options);
        }
    },
    /** The JDK's {@code java.net.http.HttpClient}: HTTP/1.1, or HTTP/2 over cleartext by {@code Upgrade: h2c}. */
    JDK("jdk") {
        @Override
        LoadClient start(LoadOptions options) {
            return JdkLoadClient.start(options);
        }
    };

    private final String id;

    LoadClientKind(String id) {
        this.id = id;
    }

    /** @return the name after {@code load-} */
    public String id() {
        return id;
    }

    /** Builds and starts the client the options describe. */
    abstract LoadClient start(LoadOptions options) throws Exception;

    /**
     * @param command {@code load-quarry}, {@code load-jetty} or {@code load-jdk}
     * @return the client it names
     * @throws IllegalArgumentException for another name
     */
    static LoadClientKind ofCommand(String command) {
        for (LoadClientKind kind : values()) {
            if (("load-" + kind.id).equals(command)) {
                return kind;
            }
        }
        throw new IllegalArgumentException(
                "unknown load generator '" + command + "': load-quarry, load-jetty, load-jdk");
    }
}
