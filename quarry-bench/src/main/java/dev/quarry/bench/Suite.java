package dev.quarry.bench;

import java.util.List;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;

/**
 * One named benchmark run of {@code quarry-bench/run.sh NAME}: which JMH benchmarks to run, side by side with their
 * peers, and which goals (ratios) to judge from the results.
 */
public interface Suite {

    /** @return one line saying what is measured and against which peers */
    String description();

    /**
     * Configures the JMH run: includes, params, threads, forks, iterations. The builder arrives with the defaults of
     * {@link BenchMain} (result format, JVM flags, and the shorter schedule when {@code QUARRY_BENCH_QUICK} is set).
     *
     * @param options the builder to configure
     * @param quick true for a short smoke run whose numbers are not meant to be recorded
     */
    void configure(ChainedOptionsBuilder options, boolean quick);

    /**
     * Judges the run.
     *
     * @param results the scores of the run
     * @return one goal per line the issue asks for, in a stable order
     */
    List<Goal> goals(Results results);
}
