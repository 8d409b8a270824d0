/**
 * Microbenchmarks of the buffer pool ({@link dev.quarry.core.buffer.BucketedByteBufferPool}) against allocating a
 * fresh buffer. Not a {@code run.sh} suite; run with plain JMH:
 *
 * <pre>
 * java -cp quarry-bench/target/quarry-bench.jar org.openjdk.jmh.Main BufferPoolBenchmark -f1 -wi 2 -i 3
 * </pre>
 */
package dev.quarry.bench.buffer;
