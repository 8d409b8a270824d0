package dev.quarry.bench.threadpool;

import dev.quarry.bench.Goal;
import dev.quarry.bench.Results;
import dev.quarry.bench.Suite;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The {@code threadpool} suite: execute throughput of Quarry's {@link dev.quarry.core.thread.ThreadPool} side by side
 * with {@link java.util.concurrent.ThreadPoolExecutor} and {@link java.util.concurrent.ForkJoinPool}, two producer
 * threads, pools of 2 and 4 threads, each task a few hundred nanoseconds of CPU work, consumption included.
 *
 * <p>Each goal's ratio is the geometric mean over the pool sizes of ours / theirs. The full run takes about a minute
 * and a half: 6 runs of 4 + 6 one-second iterations in one fork each.
 */
public final class ThreadPoolSuite implements Suite {
    private static final String EXECUTE = "ExecuteBenchmark.execute";
    private static final List<String> POOL_THREADS = List.of("2", "4");

    @Override
    public String description() {
        return "thread pool execute throughput (2 producers, tasks of ~100 consumeCPU tokens, batches of "
                + ExecuteBenchmark.BATCH + " awaited): quarry vs ThreadPoolExecutor vs ForkJoinPool";
    }

    @Override
    public void configure(ChainedOptionsBuilder options, boolean quick) {
        options.include(ExecuteBenchmark.class.getName() + ".execute$").threads(2);
        if (!quick) {
            options.forks(1)
                    .warmupIterations(4)
                    .warmupTime(TimeValue.seconds(1))
                    .measurementIterations(6)
                    .measurementTime(TimeValue.seconds(1));
        }
    }

    @Override
    public List<Goal> goals(Results results) {
        return List.of(
                new Goal("threadpool.execute.vs-tpe", ratio(results, "tpe"), 1.00),
                new Goal("threadpool.execute.vs-fjp", ratio(results, "fjp"), 1.00));
    }

    private static double ratio(Results results, String peer) {
        double logSum = 0;
        for (String threads : POOL_THREADS) {
            double ours = results.score(EXECUTE, Map.of("executor", "quarry", "poolThreads", threads));
            double theirs = results.score(EXECUTE, Map.of("executor", peer, "poolThreads", threads));
            logSum += Math.log(ours / theirs);
        }
        return Math.exp(logSum / POOL_THREADS.size());
    }
}
