package dev.quarry.server.test;

import java.util.ArrayList;
import java.util.List;

/**
 * One cell of the server test matrix: a {@link Transport} (HTTP/1.1 over TCP, a Unix socket or TLS; HTTP/2 as h2c or
 * over TLS) times where
 * blocking handlers run (virtual threads, or the platform pool). A test that takes a {@code Setup} parameter runs in
 * every cell:
 *
 * <pre>{@code
 * @ParameterizedTest
 * @MethodSource("dev.quarry.server.test.Setup#all")
 * void aBlockingRouteNeverRunsOnASelector(Setup setup) throws Exception {
 *     start(setup, builder -> builder.route(...));
 *     HttpTestClient.Reply reply = client().get("/slow");
 *     ...
 * }
 * }</pre>
 *
 * @param transport where the server listens and how clients speak to it
 * @param virtualThreads whether blocking handlers run on virtual threads (else on the platform pool)
 */
public record Setup(Transport transport, boolean virtualThreads) {

    /** @return every transport, with virtual threads on and off */
    public static List<Setup> all() {
        List<Setup> all = new ArrayList<>();
        for (Transport transport : Transport.values()) {
            all.add(new Setup(transport, true));
            all.add(new Setup(transport, false));
        }
        return all;
    }

    /** @return every transport that speaks HTTP/1.1, with virtual threads on and off */
    public static List<Setup> http1() {
        return all().stream().filter(setup -> !setup.transport.http2()).toList();
    }

    @Override
    public String toString() {
        return transport + (virtualThreads ? " + virtual threads" : " + platform threads");
    }
}
