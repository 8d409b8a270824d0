package dev.quarry.bench.peers;

import java.net.URI;
import java.time.Duration;
import java.util.Locale;

/**
 * The options of the load generators ({@code java -jar quarry-peers.jar load-<client> URL [-c N] [-d SECONDS]
 * [-w SECONDS] [--h2c [-m N]] [--blocking]}), the same for every client so that they are measured alike.
 *
 * @param client the HTTP client that sends the requests
 * @param uri the URL to GET
 * @param connections connections to open ({@code -c}, default 64)
 * @param streams with h2c, requests in flight per connection ({@code -m}, default 1); HTTP/1.1 carries one
 * @param duration the measured time ({@code -d}, seconds, default 10)
 * @param warmup the time before it, at full load, not counted ({@code -w}, seconds, default 5)
 * @param h2c HTTP/2 over cleartext ({@code --h2c}) rather than HTTP/1.1 keep-alive
 * @param blocking one virtual thread per request in flight calling the client's blocking send ({@code --blocking}),
 *     rather than the client's asynchronous API sending the next request from the previous one's completion
 */
public record LoadOptions(
        LoadClientKind client,
        URI uri,
        int connections,
        int streams,
        Duration duration,
        Duration warmup,
        boolean h2c,
        boolean blocking) {

    static final String USAGE = "usage: java -jar quarry-peers.jar load-<quarry|jetty|jdk> URL [-c CONNECTIONS]"
            + " [-d SECONDS] [-w WARMUP_SECONDS] [--h2c [-m STREAMS]] [--blocking]";

    /** Checks the values. */
    public LoadOptions {
        if (connections < 1 || streams < 1) {
            throw new IllegalArgumentException(
                    "connections and streams must be at least 1: -c " + connections + " -m " + streams);
        }
        if (!h2c && streams != 1) {
            throw new IllegalArgumentException(
                    "-m " + streams + " needs --h2c: an HTTP/1.1 connection carries one" + " request at a time");
        }
        if (duration.isZero() || duration.isNegative() || warmup.isNegative()) {
            throw new IllegalArgumentException(
                    "the duration must be positive and the warm-up not negative: -d " + duration + " -w " + warmup);
        }
        if (!"http".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException("the URL must be http://HOST[:PORT]/PATH, not '" + uri + "'");
        }
    }

    /** @return the requests in flight in the closed loop: connections x streams */
    public int inFlight() {
        return connections * streams;
    }

    /** @return {@code h1} or {@code h2c}, as the result line names the protocol */
    public String protocol() {
        return h2c ? "h2c" : "h1";
    }

    /**
     * @param args {@code load-<client>}, the URL, then the options in any order
     * @return the options
     * @throws IllegalArgumentException naming the argument that is wrong
     */
    public static LoadOptions parse(String... args) {
        if (args.length < 2) {
            throw new IllegalArgumentException("a client (load-quarry, load-jetty or load-jdk) and a URL are needed");
        }
        LoadClientKind client = LoadClientKind.ofCommand(args[0]);
        URI uri = null;
        int connections = 64;
        int streams = 1;
        Duration duration = Duration.ofSeconds(10);
        Duration warmup = Duration.ofSeconds(5);
        boolean h2c = false;
        boolean blocking = false;
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--h2c" -> h2c = true;
                case "--blocking" -> blocking = true;
                case "-c", "-m", "-d", "-w" -> {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("option " + arg + " needs a value");
                    }
                    int value = number(arg, args[++i]);
                    switch (arg) {
                        case "-c" -> connections = value;
                        case "-m" -> streams = value;
                        case "-d" -> duration = Duration.ofSeconds(value);
                        default -> warmup = Duration.ofSeconds(value);
                    }
                }
                default -> {
                    if (arg.startsWith("-")) {
                        throw new IllegalArgumentException("unknown option " + arg);
                    }
                    if (uri != null) {
                        throw new IllegalArgumentException("one URL only, not also '" + arg + "'");
                    }
                    uri = URI.create(arg);
                }
            }
        }
        if (uri == null) {
            throw new IllegalArgumentException("no URL given");
        }
        return new LoadOptions(client, uri, connections, streams, duration, warmup, h2c, blocking);
    }

    private static int number(String option, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " expects a number, not '" + value + "'");
        }
    }

    @Override
    public String toString() {
        return String.format(
                Locale.ROOT,
                "%s %s %s -c %d -m %d (%d in flight), %s, %ds after %ds warm-up",
                client.id(),
                protocol(),
                uri,
                connections,
                streams,
                inFlight(),
                blocking ? "blocking on virtual threads" : "asynchronous",
                duration.toSeconds(),
                warmup.toSeconds());
    }
}
