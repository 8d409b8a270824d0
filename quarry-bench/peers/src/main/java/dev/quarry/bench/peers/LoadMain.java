package dev.quarry.bench.peers;

import java.util.Locale;

/**
 * The load generators: {@code java -jar quarry-peers.jar load-<quarry|jetty|jdk> URL [-c N] [-d SECONDS]
 * [-w SECONDS] [--h2c [-m N]] [--blocking]} runs {@link ClosedLoop} with the client named, so that Quarry's client,
 * Jetty's and the JDK's are measured by the same loop.
 *
 * <p>Prints {@code QUARRY_LOAD_MEASURING} when the measured window starts and one {@code QUARRY_LOAD ...} line at
 * its end (see {@link ClosedLoop.Result#line()}); a person's summary and the first error go to standard error. Exits
 * with 0 when requests succeeded in the measured window, 1 when none did or the client cannot start, 2 for bad
 * arguments.
 */
final class LoadMain {
    private LoadMain() {}

    static void main(String[] args) {
        LoadOptions options;
        try {
            options = LoadOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println(LoadOptions.USAGE);
            System.exit(2);
            return;
        }
        System.err.println("load: " + options);
        ClosedLoop.Result result;
        try (LoadClient client = options.client().start(options)) {
            result = new ClosedLoop(client, options).run();
        } catch (Exception e) {
            System.err.println("error: " + options.client().id() + ": " + e);
            System.exit(1);
            return;
        }
        System.out.println(result.line());
        System.out.flush();
        System.err.printf(
                Locale.ROOT,
                "load: %,d requests in %.2f s: %,.0f req/s%n",
                result.requests(),
                result.seconds(),
                result.requests() / result.seconds());
        if (result.firstError() != null) {
            System.err.println("load: first error: " + result.firstError());
        }
        // The clients' threads may be non-daemon: do not wait for them.
        System.exit(result.requests() > 0 ? 0 : 1);
    }
}
