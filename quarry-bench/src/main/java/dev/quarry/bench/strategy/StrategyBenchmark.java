package dev.quarry.bench.strategy;

import com.sun.management.OperatingSystemMXBean;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.strategy.AdaptiveExecutionStrategy;
import dev.quarry.core.strategy.ExecuteProduceConsume;
import dev.quarry.core.strategy.ExecutionStrategy;
import dev.quarry.core.strategy.ProduceConsume;
import dev.quarry.core.strategy.ProduceExecuteConsume;
import dev.quarry.core.thread.ThreadPool;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * A parse-then-handle workload in the spirit of the "eat what you kill" benchmark: producing a task "parses" a request
 * by writing {@link #DATA_BYTES} bytes into the task, and consuming it "handles" the request by reading them all and
 * doing some CPU work. Consuming on the producing thread finds the bytes in its cache; consuming on another core must
 * pull them across.
 *
 * <p>One operation is one task; an invocation produces a batch of {@link #BATCH} tasks (as a selector wake-up finds
 * several ready connections) and waits until all are consumed. The {@code cpuNanos} aux counter is the process CPU
 * time, so its rate divided by 1e9 is the number of cores busy.
 *
 * <p>{@code taskType} is what the tasks declare: BLOCKING (a handler that may block: the adaptive strategy must hand
 * production off before eating) or NON_BLOCKING (an asynchronous handler: eaten in place).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class StrategyBenchmark {
    static final int BATCH = 64;
    static final int DATA_BYTES = 16 * 1024;
    static final int HANDLE_TOKENS = 500;

    @Param({"PC", "PEC", "EPC", "ADAPTIVE"})
    public String strategy;

    @Param({"BLOCKING", "NON_BLOCKING"})
    public String taskType;

    private ThreadPool pool;
    private ExecutionStrategy executionStrategy;
    private BatchProducer producer;

    @Setup(Level.Trial)
    public void setUp() {
        pool = ThreadPool.builder()
                .name("bench")
                .minThreads(4)
                .maxThreads(4)
                .reservedThreads(strategy.equals("ADAPTIVE") ? 2 : 0)
                .idleTimeout(Duration.ofMinutes(1))
                .build();
        pool.start();
        producer = new BatchProducer(InvocationType.valueOf(taskType));
        executionStrategy = switch (strategy) {
            case "PC" -> new ProduceConsume(producer, pool);
            case "PEC" -> new ProduceExecuteConsume(producer, pool);
            case "EPC" -> new ExecuteProduceConsume(producer, pool);
            case "ADAPTIVE" -> new AdaptiveExecutionStrategy(producer, pool);
            default -> throw new IllegalArgumentException("unknown strategy " + strategy);
        };
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        System.out.println(
                executionStrategy + " " + pool.statistics().toString().replace('\n', ' '));
        pool.stop();
    }

    /** CPU time of the whole process, reported as a rate (ns of CPU per second = cores busy x 1e9). */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Cpu {
        private static final OperatingSystemMXBean OS =
                (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        public long cpuNanos;
        private long start;

        @Setup(Level.Iteration)
        public void begin() {
            cpuNanos = 0;
            start = OS.getProcessCpuTime();
        }

        @TearDown(Level.Iteration)
        public void end() {
            cpuNanos = OS.getProcessCpuTime() - start;
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void parseThenHandle(Cpu cpu) throws InterruptedException {
        CountDownLatch done = producer.reset();
        executionStrategy.produce();
        if (!done.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("batch not consumed: " + executionStrategy);
        }
    }

    /** Produces a batch of tasks, "parsing" each one into its own data array. */
    static final class BatchProducer implements ExecutionStrategy.Producer {
        private final ParsedRequest[] tasks = new ParsedRequest[BATCH];
        private final AtomicInteger next = new AtomicInteger(BATCH);
        private volatile CountDownLatch done;
        private int seed = 1;

        BatchProducer(InvocationType type) {
            for (int i = 0; i < BATCH; i++) {
                tasks[i] = new ParsedRequest(type, this);
            }
        }

        CountDownLatch reset() {
            CountDownLatch latch = new CountDownLatch(BATCH);
            done = latch;
            next.set(0);
            return latch;
        }

        @Override
        public Runnable produce() {
            int index = next.getAndIncrement();
            if (index >= BATCH) {
                return null;
            }
            ParsedRequest task = tasks[index];
            task.parse(seed++);
            return task;
        }

        void consumed() {
            done.countDown();
        }
    }

    /** A request: produced by writing its bytes, consumed by reading them all. */
    static final class ParsedRequest implements Invocable.Task {
        private final InvocationType type;
        private final BatchProducer producer;
        private final byte[] data = new byte[DATA_BYTES];
        volatile long result;

        ParsedRequest(InvocationType type, BatchProducer producer) {
            this.type = type;
            this.producer = producer;
        }

        void parse(int seed) {
            int x = seed;
            for (int i = 0; i < data.length; i++) {
                x = x * 1103515245 + 12345;
                data[i] = (byte) (x >>> 16);
            }
        }

        @Override
        public void run() {
            long sum = 0;
            for (byte b : data) {
                sum = sum * 31 + b;
            }
            Blackhole.consumeCPU(HANDLE_TOKENS);
            result = sum;
            producer.consumed();
        }

        @Override
        public InvocationType invocationType() {
            return type;
        }
    }
}
