package dev.quarry.bench.clientpool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The benchmark's pools set up as the run sets them up, and its operation run on each, so that a broken setup (Jetty's
 * API moving, a refused release) fails the build rather than the benchmark run.
 */
class ClientPoolBenchmarkTest {

    @ParameterizedTest
    @ValueSource(strings = {"duplex", "multiplex", "round-robin", "random"})
    void bothPoolsServeEveryConfiguration(String type) throws Exception {
        ClientPoolBenchmark.Misses misses = new ClientPoolBenchmark.Misses();
        ClientPoolBenchmark.QuarryPool quarry = new ClientPoolBenchmark.QuarryPool();
        quarry.type = type;
        quarry.setup();
        ClientPoolBenchmark.JettyPool jetty = new ClientPoolBenchmark.JettyPool();
        jetty.type = type;
        jetty.setup();
        try {
            for (int i = 0; i < 1000; i++) {
                ClientPoolBenchmark.quarry(quarry, misses);
                ClientPoolBenchmark.jetty(jetty, misses);
            }
            assertEquals(0, misses.misses, "one thread always finds an idle connection");
            assertEquals(ClientPoolBenchmark.CONNECTIONS, quarry.pool.pool().idleCount());
            assertEquals(ClientPoolBenchmark.CONNECTIONS, jetty.pool.getIdleConnectionCount());
        } finally {
            jetty.tearDown();
        }
    }
}
