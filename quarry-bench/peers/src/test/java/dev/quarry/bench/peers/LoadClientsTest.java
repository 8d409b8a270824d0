package dev.quarry.bench.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every load generator completes requests without errors over HTTP/1.1 and h2c, through the asynchronous and the
 * blocking API, against the Jetty peer (which also answers the JDK client's {@code Upgrade: h2c}), and reports them
 * in the line client.sh parses.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class LoadClientsTest {
    private PeerServer server;

    @BeforeAll
    void startServer() throws Exception {
        server = Peer.JETTY.start(PeerOptions.loopback(0));
    }

    @AfterAll
    void stopServer() {
        server.close();
    }

    static List<Arguments> shapes() {
        List<Arguments> shapes = new ArrayList<>();
        for (LoadClientKind client : LoadClientKind.values()) {
            shapes.add(Arguments.of(client, false, false));
            shapes.add(Arguments.of(client, true, false));
            shapes.add(Arguments.of(client, false, true));
        }
        return shapes;
    }

    @ParameterizedTest(name = "{0} h2c={1} blocking={2}")
    @MethodSource("shapes")
    void completesRequestsWithoutErrors(LoadClientKind kind, boolean h2c, boolean blocking) throws Exception {
        List<String> args = new ArrayList<>(List.of(
                "load-" + kind.id(),
                "http://127.0.0.1:" + server.port() + Plaintext.PATH,
                "-c",
                "4",
                "-d",
                "1",
                "-w",
                "0"));
        if (h2c) {
            args.addAll(List.of("--h2c", "-m", "4"));
        }
        if (blocking) {
            args.add("--blocking");
        }
        LoadOptions options = LoadOptions.parse(args.toArray(String[]::new));

        ClosedLoop.Result result;
        try (LoadClient client = kind.start(options)) {
            result = new ClosedLoop(client, options).run();
        }

        assertNull(result.firstError());
        assertTrue(result.requests() > 0, result.line());
        String line = result.line();
        assertTrue(line.startsWith("QUARRY_LOAD client=" + kind.id() + " protocol=" + options.protocol()), line);
        assertTrue(line.contains(" errors=0 "), line);
        assertTrue(line.contains(" non2xx=0 "), line);
        assertTrue(line.matches(".* cpu_ticks=\\d+ .*"), line);
        assertEquals(-1, line.indexOf("requests=0 "), line);
    }
}
