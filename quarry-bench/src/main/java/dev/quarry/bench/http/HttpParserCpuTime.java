package dev.quarry.bench.http;

import dev.quarry.http.h1.HttpParser;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The thread CPU time and bytes allocated per {@link HttpParser} parse of {@link HttpParserBenchmark}'s request: the
 * load-independent companion of that benchmark. On a machine shared with other work, JMH's wall-clock score moves with
 * the scheduler by tens of percent; the CPU time the parsing thread itself used moves by a few, so two builds can be
 * compared to about 2% by running this alternately against each.
 *
 * <p>Run: {@code java -Xms1g -Xmx1g -cp quarry-bench/target/quarry-bench.jar
 * dev.quarry.bench.http.HttpParserCpuTime [PIPELINED]}, where PIPELINED (default 1) requests are parsed from one
 * direct buffer per operation, as in {@code quarryParse} (1) and {@code quarryParsePipelined16} (16). Prints each
 * round, then the best and the median of the rounds after the warm-up ones.
 */
public final class HttpParserCpuTime {
    private static final int ROUNDS = 12;
    private static final int WARM_UP_ROUNDS = 4;
    private static final int REQUESTS_PER_ROUND = 1_000_000;

    private HttpParserCpuTime() {}

    public static void main(String[] args) {
        int pipelined = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        byte[] bytes = HttpParserBenchmark.REQUEST.repeat(pipelined).getBytes(StandardCharsets.US_ASCII);
        ByteBuffer input = ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
        HttpParserBenchmark.QuarrySink sink = new HttpParserBenchmark.QuarrySink();
        HttpParser parser = new HttpParser(sink);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        int operations = REQUESTS_PER_ROUND / pipelined;
        double[] nanos = new double[ROUNDS];
        long fields = 0;
        for (int round = 0; round < ROUNDS; round++) {
            long cpu = threads.getCurrentThreadCpuTime();
            long allocated = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < operations; i++) {
                input.position(0);
                while (input.hasRemaining()) {
                    parser.parse(input);
                    parser.reset();
                    fields += sink.fields;
                }
            }
            allocated = threads.getCurrentThreadAllocatedBytes() - allocated;
            nanos[round] = (threads.getCurrentThreadCpuTime() - cpu) / (double) operations;
            System.out.printf(
                    "round %d: %.1f ns CPU/op, %.3f B/op%n", round, nanos[round], allocated / (double) operations);
        }
        if (fields != (long) ROUNDS * operations * pipelined * 3) {
            throw new IllegalStateException("parsed " + fields + " fields");
        }
        double[] measured = Arrays.copyOfRange(nanos, WARM_UP_ROUNDS, ROUNDS);
        Arrays.sort(measured);
        double median = (measured[measured.length / 2 - 1] + measured[measured.length / 2]) / 2;
        System.out.printf(
                "HttpParser x%d: best %.1f, median %.1f ns CPU/op (rounds %d-%d)%n",
                pipelined, measured[0], median, WARM_UP_ROUNDS, ROUNDS - 1);
    }
}
