package dev.quarry.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs one JMH suite by name, prints its table and ends with its {@code GOAL} lines. Used by
 * {@code quarry-bench/run.sh}; {@code java -jar quarry-bench.jar --list} lists the suites.
 *
 * <p>Environment: {@code QUARRY_BENCH_QUICK=1} for a short smoke run; {@code QUARRY_BENCH_RESULT=file.json} to keep
 * JMH's JSON result.
 */
public final class BenchMain {

    /** Suite name to implementing class; a class is loaded only when its suite runs. */
    private static final Map<String, String> SUITES = new LinkedHashMap<>();

    static {
        SUITES.put("pool", "dev.quarry.bench.pool.PoolSuite");
        SUITES.put("timer", "dev.quarry.bench.timer.TimerSuite");
        SUITES.put("strategy", "dev.quarry.bench.strategy.StrategySuite");
        SUITES.put("threadpool", "dev.quarry.bench.threadpool.ThreadPoolSuite");
        SUITES.put("client-pool", "dev.quarry.bench.clientpool.ClientPoolSuite");
    }

    private BenchMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 1 || args[0].equals("--list") || args[0].equals("--help")) {
            System.out.println("usage: quarry-bench.jar SUITE   (suites: " + String.join(", ", SUITES.keySet()) + ")");
            System.exit(args.length == 1 ? 0 : 2);
        }
        String className = SUITES.get(args[0]);
        if (className == null) {
            System.err.println("unknown suite '" + args[0] + "'; known: " + String.join(", ", SUITES.keySet()));
            System.exit(2);
        }
        Suite suite = (Suite) Class.forName(className).getDeclaredConstructor().newInstance();
        boolean quick = System.getenv("QUARRY_BENCH_QUICK") != null;
        System.out.println(
                "# " + args[0] + ": " + suite.description() + (quick ? " (QUICK: smoke run, do not record)" : ""));

        ChainedOptionsBuilder options = new OptionsBuilder()
                .shouldFailOnError(true)
                // The JVM's default collector (G1), with a fixed heap, for every implementation in the run. Not
                // ParallelGC: its unconditional card marking makes two threads that store references into two
                // unrelated long-lived objects false-share the card table (the timer's two-thread rate halves).
                .jvmArgsAppend("-Xms1g", "-Xmx1g", "-XX:+UseG1GC")
                .timeUnit(TimeUnit.SECONDS);
        if (quick) {
            options.forks(1)
                    .warmupIterations(1)
                    .warmupTime(TimeValue.seconds(1))
                    .measurementIterations(1)
                    .measurementTime(TimeValue.seconds(1));
        }
        String resultFile = System.getenv("QUARRY_BENCH_RESULT");
        if (resultFile != null) {
            options.result(resultFile).resultFormat(ResultFormatType.JSON);
        }
        suite.configure(options, quick);

        Collection<RunResult> runs = new Runner(options.build()).run();
        Results results = new Results(runs);
        System.out.println();
        printTable(results);
        System.out.println();
        List<Goal> goals = suite.goals(results);
        for (Goal goal : goals) {
            System.out.println(goal.line());
        }
    }

    /** Prints one row per run: benchmark, parameters, score ± error, unit, and any secondary results. */
    static void printTable(Results results) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"benchmark", "params", "score", "error", "unit", "secondary"});
        for (RunResult run : results.runs()) {
            var params = run.getParams();
            StringBuilder p = new StringBuilder();
            for (String key : new TreeSet<>(params.getParamsKeys())) {
                if (!p.isEmpty()) {
                    p.append(',');
                }
                p.append(key).append('=').append(params.getParam(key));
            }
            String name = params.getBenchmark();
            name = name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1);
            var primary = run.getPrimaryResult();
            StringBuilder secondary = new StringBuilder();
            run.getSecondaryResults()
                    .forEach((label, result) -> secondary
                            .append(label)
                            .append('=')
                            .append(format(result.getScore()))
                            .append(' '));
            rows.add(new String[] {
                name,
                p.toString(),
                format(primary.getScore()),
                Double.isNaN(primary.getScoreError()) ? "" : "± " + format(primary.getScoreError()),
                primary.getScoreUnit(),
                secondary.toString().trim()
            });
        }
        int[] widths = new int[6];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                String cell = row[i];
                boolean numeric = i == 2 || i == 3;
                String pad = " ".repeat(widths[i] - cell.length());
                line.append(numeric ? pad + cell : cell + pad).append("  ");
            }
            System.out.println(line.toString().stripTrailing());
        }
    }

    static String format(double value) {
        if (Math.abs(value) >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        return String.format(Locale.ROOT, "%.3f", value);
    }
}
