/**
 * Retainable (reference-counted) byte buffers, their bucketed pool, and leak detection in tiers.
 *
 * <ul>
 *   <li>{@link dev.quarry.core.buffer.RetainableByteBuffer}: a {@link java.nio.ByteBuffer} with a reference count;
 *       the final release gives it back to its pool.
 *   <li>{@link dev.quarry.core.buffer.ByteBufferPool}: where buffers come from;
 *       {@link dev.quarry.core.buffer.BucketedByteBufferPool} is the lock-free, allocation-free pool Quarry uses, with
 *       separate direct and heap buckets and a memory limit for each kind.
 *   <li>Leak detection: in tests, {@link dev.quarry.core.buffer.LeakTrackingByteBufferPool} tracks every buffer and
 *       fails a test that leaks one, naming where it was acquired (quarry-core's test-jar has a JUnit extension that
 *       does this for every test); in production, {@link dev.quarry.core.buffer.SamplingLeakDetector} watches a random
 *       sample of acquisitions and logs those that the garbage collector finds unreleased.
 * </ul>
 *
 * <p><b>Convention.</b> Buffers are handed out in NIO fill mode: position 0, limit = capacity, ready to be written
 * into; the holder flips them to read.
 */
package dev.quarry.core.buffer;
