package dev.quarry.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.openjdk.jmh.results.RunResult;

/**
 * The scores of a JMH run, looked up by benchmark method and parameters.
 */
public final class Results {
    private final List<RunResult> runs;

    /** @param runs what JMH returned */
    public Results(Collection<RunResult> runs) {
        this.runs = List.copyOf(runs);
    }

    /** @return every run, in JMH's order */
    public List<RunResult> runs() {
        return runs;
    }

    /**
     * The primary score of one benchmark.
     *
     * @param method the benchmark's simple name, {@code Class.method}, or a suffix of its full name
     * @param params the parameters that must match, e.g. {@code Map.of("type", "duplex")}; others are ignored
     * @return the score
     * @throws NoSuchElementException if no run matches
     */
    public double score(String method, Map<String, String> params) {
        return find(method, params).getPrimaryResult().getScore();
    }

    /**
     * A secondary score (an {@code @AuxCounters} field or a profiler's result) of one benchmark.
     *
     * @param method as in {@link #score(String, Map)}
     * @param params as in {@link #score(String, Map)}
     * @param label the secondary result's label
     * @return the score
     */
    public double secondary(String method, Map<String, String> params, String label) {
        var result = find(method, params).getSecondaryResults().get(label);
        if (result == null) {
            throw new NoSuchElementException("no secondary result " + label + " for " + method + " " + params);
        }
        return result.getScore();
    }

    /**
     * The ratio of two scores, {@code ours / theirs}.
     *
     * @return the ratio
     */
    public double ratio(
            String oursMethod, Map<String, String> oursParams, String theirsMethod, Map<String, String> theirsParams) {
        return score(oursMethod, oursParams) / score(theirsMethod, theirsParams);
    }

    private RunResult find(String method, Map<String, String> params) {
        List<RunResult> matches = new ArrayList<>();
        for (RunResult run : runs) {
            var benchmark = run.getParams();
            String name = benchmark.getBenchmark();
            if (!(name.equals(method) || name.endsWith("." + method))) {
                continue;
            }
            boolean all = true;
            for (var entry : params.entrySet()) {
                if (!entry.getValue().equals(benchmark.getParam(entry.getKey()))) {
                    all = false;
                    break;
                }
            }
            if (all) {
                matches.add(run);
            }
        }
        if (matches.size() != 1) {
            throw new NoSuchElementException(matches.size() + " runs match " + method + " " + params);
        }
        return matches.get(0);
    }
}
