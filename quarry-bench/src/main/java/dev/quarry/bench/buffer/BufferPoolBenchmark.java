package dev.quarry.bench.buffer;

import dev.quarry.core.buffer.BucketedByteBufferPool;
import dev.quarry.core.buffer.BufferPoolStatistics;
import dev.quarry.core.buffer.RetainableByteBuffer;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of getting a 4 KiB direct buffer and giving it back: acquire and release from a
 * {@link BucketedByteBufferPool}, against {@link ByteBuffer#allocateDirect(int)} and {@link ByteBuffer#allocate(int)}
 * (whose cost includes the garbage collection, and for direct buffers the cleaner, that frees them later). Each
 * variant runs on one thread and on two threads sharing one pool. Every operation writes one byte so that the buffer
 * is really used.
 *
 * <p>Run with plain JMH (this is not a {@code run.sh} suite):
 *
 * <pre>
 * java -cp quarry-bench/target/quarry-bench.jar org.openjdk.jmh.Main BufferPoolBenchmark -f1 -wi 2 -i 3
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class BufferPoolBenchmark {

    private static final int CAPACITY = 4096;

    /** One pool shared by all threads of a run, as a server shares one. */
    @State(Scope.Benchmark)
    public static class Pool {
        BucketedByteBufferPool pool;

        @Setup(Level.Trial)
        public void start() {
            pool = new BucketedByteBufferPool();
        }

        @TearDown(Level.Trial)
        public void check() {
            BufferPoolStatistics statistics = pool.statistics(true);
            if (statistics.outstanding() != 0) {
                throw new IllegalStateException("buffers leaked during the benchmark: " + statistics);
            }
        }
    }

    private static boolean cycle(BucketedByteBufferPool pool) {
        RetainableByteBuffer buffer = pool.acquire(CAPACITY, true);
        buffer.byteBuffer().put(0, (byte) 1);
        return buffer.release();
    }

    private static ByteBuffer touch(ByteBuffer buffer) {
        return buffer.put(0, (byte) 1);
    }

    @Benchmark
    @Threads(1)
    public boolean pooledDirect1Thread(Pool pool) {
        return cycle(pool.pool);
    }

    @Benchmark
    @Threads(2)
    public boolean pooledDirect2Threads(Pool pool) {
        return cycle(pool.pool);
    }

    @Benchmark
    @Threads(1)
    public ByteBuffer allocateDirect1Thread() {
        return touch(ByteBuffer.allocateDirect(CAPACITY));
    }

    @Benchmark
    @Threads(2)
    public ByteBuffer allocateDirect2Threads() {
        return touch(ByteBuffer.allocateDirect(CAPACITY));
    }

    @Benchmark
    @Threads(1)
    public ByteBuffer allocateHeap1Thread() {
        return touch(ByteBuffer.allocate(CAPACITY));
    }

    @Benchmark
    @Threads(2)
    public ByteBuffer allocateHeap2Threads() {
        return touch(ByteBuffer.allocate(CAPACITY));
    }
}
