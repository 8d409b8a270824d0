package dev.quarry.bench.strategy;

import dev.quarry.bench.Goal;
import dev.quarry.bench.Results;
import dev.quarry.bench.Suite;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@code run.sh strategy}: the four execution strategies on the parse-then-handle workload of
 * {@link StrategyBenchmark}, for tasks that declare themselves blocking and non-blocking. The goals are judged on
 * blocking tasks, where the adaptive strategy has a real decision to make (non-blocking tasks it simply eats in place,
 * like produce-consume).
 */
public final class StrategySuite implements Suite {
    private static final String BENCH = "StrategyBenchmark.parseThenHandle";

    @Override
    public String description() {
        return "execution strategies PC / PEC / EPC / ADAPTIVE on a parse-then-handle workload, 4 pooled threads";
    }

    @Override
    public void configure(ChainedOptionsBuilder options, boolean quick) {
        options.include(StrategyBenchmark.class.getSimpleName()).threads(1);
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
        Map<String, String> adaptive = Map.of("strategy", "ADAPTIVE", "taskType", "BLOCKING");
        return List.of(
                new Goal(
                        "strategy.adaptive.vs-produce-consume",
                        results.ratio(BENCH, adaptive, BENCH, Map.of("strategy", "PC", "taskType", "BLOCKING")),
                        0.95),
                new Goal(
                        "strategy.adaptive.vs-produce-execute-consume",
                        results.ratio(BENCH, adaptive, BENCH, Map.of("strategy", "PEC", "taskType", "BLOCKING")),
                        1.5));
    }
}
