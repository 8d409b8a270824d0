package dev.quarry.bench.pool;

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
 * The pool suite: the seed's acquire / consume CPU / release benchmark ({@link PoolBenchmark}) for Quarry's lock-free
 * pool, Jetty 12's {@code ConcurrentPool} and a lock + deque pool, in five configurations: duplex, multiplex (4 holders
 * per entry), round-robin, and the duplex and multiplex pools with Quarry's thread-local cache. Jetty 12 has no
 * thread-local cache, so in the {@code cached-*} rows Jetty runs its uncached configuration of the same pool.
 *
 * <p><b>Threads.</b> As in the seed, as many JMH threads as pool entries: 4 threads on 4 entries. On the 2-core machines
 * this runs on, 4 threads are twice the cores, so the pool is contended (two threads run at once on different cores,
 * and threads are preempted while they hold an entry or the lock, as server threads are); 2 threads would only measure
 * two cores taking turns. More threads than entries would measure retries rather than the pool.
 *
 * <p><b>Schedule.</b> One fork per row, 3 warm-up iterations of 1 s and 5 measured iterations of 2 s: 15 rows of about
 * 14 s, under 4 minutes. The rows that a goal compares run in the same JMH run, so their ratio is informative even on a
 * noisy machine.
 */
public final class PoolSuite implements Suite {
    static final List<String> TYPES =
            List.of("duplex", "multiplex", "round-robin", "cached-duplex", "cached-multiplex");

    @Override
    public String description() {
        return "lock-free pool: acquire/consumeCPU/release, " + PoolBenchmark.ENTRIES + " threads on "
                + PoolBenchmark.ENTRIES + " entries, vs Jetty 12 ConcurrentPool and ReentrantLock+ArrayDeque"
                + " (Jetty has no thread-local cache: its cached-* rows run its uncached pool)";
    }

    @Override
    public void configure(ChainedOptionsBuilder options, boolean quick) {
        options.include(Pattern.quote(PoolBenchmark.class.getName()) + "\\.")
                .threads(PoolBenchmark.ENTRIES)
                .param("type", TYPES.toArray(String[]::new));
        if (!quick) {
            options.forks(1)
                    .warmupIterations(3)
                    .warmupTime(TimeValue.seconds(1))
                    .measurementIterations(5)
                    .measurementTime(TimeValue.seconds(2));
        }
    }

    @Override
    public List<Goal> goals(Results results) {
        List<Goal> goals = new ArrayList<>();
        for (String type : TYPES) {
            Map<String, String> params = Map.of("type", type);
            goals.add(new Goal(
                    "pool." + type + ".vs-jetty",
                    results.ratio("PoolBenchmark.quarry", params, "PoolBenchmark.jetty", params),
                    1.00));
            goals.add(new Goal(
                    "pool." + type + ".vs-locked-deque",
                    results.ratio("PoolBenchmark.quarry", params, "PoolBenchmark.lockedDeque", params),
                    3.00));
        }
        return goals;
    }
}
