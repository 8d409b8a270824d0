package dev.quarry.bench.threadpool;

import dev.quarry.core.thread.ThreadPool;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Execute throughput of a thread pool, consumption included: each producer thread (a JMH thread) submits a batch of
 * small CPU-bound tasks and waits until the pool has run all of them, so a pool that only queues cannot win. The
 * score is tasks per second.
 *
 * <p>Peers, side by side with the same number of threads: a fixed {@link ThreadPoolExecutor} over a
 * {@link LinkedBlockingQueue} (what {@code Executors.newFixedThreadPool} builds) and a {@link ForkJoinPool}. Ours runs
 * with its defaults (statistics and timing on), reserved threads off since nothing calls {@code tryExecute}.
 *
 * <p>The producer waits with {@link LockSupport#park}, woken by the batch's last task, so that a waiting producer does
 * not take CPU from the pool on a small machine. After the run, our pool's statistics are printed.
 */
@State(Scope.Benchmark)
public class ExecuteBenchmark {
    /** Tasks per batch; the benchmark method runs one batch. */
    public static final int BATCH = 128;

    /** Which executor: ours, ThreadPoolExecutor, or ForkJoinPool. */
    @Param({"quarry", "tpe", "fjp"})
    public String executor;

    /** Pool threads (and ForkJoinPool parallelism). */
    @Param({"2", "4"})
    public int poolThreads;

    /** CPU work per task, in {@link Blackhole#consumeCPU(long)} tokens (about a few hundred nanoseconds). */
    @Param({"100"})
    public long work;

    private ExecutorService service;
    private ThreadPool pool;

    @Setup(Level.Trial)
    public void setUp() {
        switch (executor) {
            case "quarry" -> {
                pool = ThreadPool.builder()
                        .name("bench")
                        .minThreads(poolThreads)
                        .maxThreads(poolThreads)
                        .reservedThreads(0)
                        .daemon(true)
                        .build();
                pool.start();
            }
            case "tpe" -> {
                ThreadPoolExecutor tpe = new ThreadPoolExecutor(
                        poolThreads, poolThreads, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>());
                tpe.prestartAllCoreThreads();
                service = tpe;
            }
            case "fjp" -> service = new ForkJoinPool(poolThreads);
            default -> throw new IllegalArgumentException("unknown executor " + executor);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        if (pool != null) {
            System.out.println();
            System.out.println(pool.statistics());
            pool.stop();
        }
        if (service != null) {
            service.shutdown();
            service.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /** One producer: its task decrements the batch count and wakes the producer after the last one. */
    @State(Scope.Thread)
    public static class Producer {
        final AtomicInteger remaining = new AtomicInteger();
        Thread thread;
        Runnable task;

        @Setup(Level.Trial)
        public void setUp(ExecuteBenchmark benchmark) {
            thread = Thread.currentThread();
            long work = benchmark.work;
            task = () -> {
                Blackhole.consumeCPU(work);
                if (remaining.decrementAndGet() == 0) {
                    LockSupport.unpark(thread);
                }
            };
        }
    }

    /**
     * Submits one batch and waits until all of it ran.
     *
     * @param producer this JMH thread's state
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void execute(Producer producer) {
        Executor target = pool != null ? pool : service;
        producer.remaining.set(BATCH);
        Runnable task = producer.task;
        for (int i = 0; i < BATCH; i++) {
            target.execute(task);
        }
        while (producer.remaining.get() > 0) {
            LockSupport.park(this);
        }
    }
}
