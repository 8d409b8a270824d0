package dev.quarry.bench.timer;

import dev.quarry.bench.Goal;
import dev.quarry.bench.Results;
import dev.quarry.bench.Suite;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@code quarry-bench/run.sh timer}: schedule-then-cancel throughput of Quarry's hashed-wheel timer against
 * {@code ScheduledThreadPoolExecutor} (remove on cancel) and Netty's {@code HashedWheelTimer}, 2 threads measured and
 * 1 thread for information, plus the cost of {@code IdleTimeout.notIdle()}. About 2.5 minutes on 2 cores.
 */
public final class TimerSuite implements Suite {
    private static final String BENCH = ScheduleCancelBenchmark.class.getSimpleName();

    @Override
    public String description() {
        return "timer schedule+cancel (30 s delay), 2 threads: Quarry HashedWheelTimer vs ScheduledThreadPoolExecutor"
                + " (removeOnCancel) vs Netty HashedWheelTimer; 1 thread and IdleTimeout.notIdle() for information";
    }

    @Override
    public void configure(ChainedOptionsBuilder options, boolean quick) {
        options.include(ScheduleCancelBenchmark.class.getName().replace(".", "\\.") + "\\..*");
        if (!quick) {
            options.forks(1)
                    .warmupIterations(3)
                    .warmupTime(TimeValue.seconds(2))
                    .measurementIterations(5)
                    .measurementTime(TimeValue.seconds(2));
        }
    }

    @Override
    public List<Goal> goals(Results results) {
        double quarry = results.score(BENCH + ".quarry", Map.of());
        return List.of(
                new Goal("timer.schedule-cancel.vs-stpe", quarry / results.score(BENCH + ".stpe", Map.of()), 3.00),
                new Goal("timer.schedule-cancel.vs-netty", quarry / results.score(BENCH + ".netty", Map.of()), 1.00));
    }
}
