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
 * The pool suite: the acquire / consume CPU / release benchmark of "Object Pooling, Benchmarks, and Another Way"
 * ({@link PoolBenchmark}) for Quarry's lock-free
 * pool, Jetty 12's {@code ConcurrentPool} and a lock + deque pool, in five configurations: duplex, multiplex (4 holders
 * per entry), round-robin, and the duplex and multiplex pools with Quarry's thread-local cache. Jetty 12 has no
 * thread-local cache, so in the {@code cached-*} rows Jetty runs its uncached configuration of the same pool.
 *
 * <p><b>Threads.</b> Exactly as in the article, which ran 12 threads on 12 cores with 12 connections: as many JMH
 * threads as cores and as many pool entries as threads (2, 2 and 2 on the 2-core machines this runs on). Each thread
 * then has a core, and a contended lock really bounces between cores, as on the article's machine. Oversubscribing (for
 * example 4 threads on 2 cores) measures something else: waiters park on the lock, the lock holder runs alone, and the
 * lock+deque pool looks better than it is on a server whose threads all run; BENCHMARKS.md records that variant too.
 *
 * <p><b>Schedule.</b> Two forks per row, each with 2 warm-up and 4 measured iterations of 1 s: 16 rows of about 15 s,
 * about 4 minutes. Two short forks rather than one long one because on a virtual machine the cost of moving a cache
 * line between the two cores changes by 2-3x from one stretch of seconds to the next (the lock-free rows swing with it,
 * the lock+deque row, which serialises, does not), and the rows of a goal run one after the other.
 *
 * <p><b>Reading the goals.</b> The {@code baseline} row (the work alone) bounds every ratio: no pool can beat it, so
 * {@code vs-locked-deque} cannot exceed {@code baseline / lockedDeque}. On 2 cores the contended lock serialises the
 * threads onto about one core's worth of work, a bit more than a third of the baseline, which puts that bound just
 * under 3.
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
            options.forks(2)
                    .warmupIterations(2)
                    .warmupTime(TimeValue.seconds(1))
                    .measurementIterations(4)
                    .measurementTime(TimeValue.seconds(1));
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
