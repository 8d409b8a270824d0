package dev.quarry.bench.clientpool;

import dev.quarry.bench.Goal;
import dev.quarry.bench.Results;
import dev.quarry.bench.Suite;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The client-pool suite ({@code quarry-bench/run.sh client-pool}): Quarry's client connection pool against Jetty 12
 * HttpClient's own pools, acquire / a little work / release on 1, 2 and 4 threads ({@link ClientPoolBenchmark}), in
 * four configurations: duplex (HTTP/1.1, first available), multiplex (HTTP/2, 4 requests per connection), round-robin
 * and random. One goal per configuration and thread count: Quarry's throughput over Jetty's, at least 1.
 *
 * <p><b>Schedule.</b> Short, as the machine is shared: one fork per row, 3 warm-up and 5 measured iterations of 1 s;
 * 24 rows of about 9 s, under 4 minutes.
 */
public final class ClientPoolSuite implements Suite {
    static final List<String> TYPES = List.of("duplex", "multiplex", "round-robin", "random");
    static final List<Integer> THREADS = List.of(1, 2, 4);

    @Override
    public String description() {
        return "client connection pool: acquire/consumeCPU/release on 1, 2, 4 threads, "
                + ClientPoolBenchmark.CONNECTIONS
                + " connections, Quarry's client pool vs Jetty 12 HttpClient's Duplex/Multiplex/RoundRobin/Random"
                + "ConnectionPool";
    }

    @Override
    public void configure(ChainedOptionsBuilder options, boolean quick) {
        options.include(Pattern.quote(ClientPoolBenchmark.class.getName()) + "\\.")
                .param("type", TYPES.toArray(String[]::new));
        if (!quick) {
            options.forks(1)
                    .warmupIterations(3)
                    .warmupTime(TimeValue.seconds(1))
                    .measurementIterations(5)
                    .measurementTime(TimeValue.seconds(1));
        }
    }

    @Override
    public List<Goal> goals(Results results) {
        List<Goal> goals = new ArrayList<>();
        for (String type : TYPES) {
            Map<String, String> params = Map.of("type", type);
            for (int threads : THREADS) {
                goals.add(new Goal(
                        "client-pool." + type + ".t" + threads,
                        results.ratio(
                                "ClientPoolBenchmark.quarryT" + threads,
                                params,
                                "ClientPoolBenchmark.jettyT" + threads,
                                params),
                        1.00));
            }
        }
        return goals;
    }
}
