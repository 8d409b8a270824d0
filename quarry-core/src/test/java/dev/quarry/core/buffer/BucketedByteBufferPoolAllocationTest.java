package dev.quarry.core.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Proves that acquire and release allocate nothing once the pool holds the buffers a thread uses, by reading the
 * JVM's per-thread allocation counter around many cycles.
 */
class BucketedByteBufferPoolAllocationTest {

    private static final int CYCLES = 100_000;

    private final BucketedByteBufferPool pool = new BucketedByteBufferPool();

    @AfterEach
    void everyBufferCameBack() {
        assertEquals(0, pool.statistics(true).outstanding());
        assertEquals(0, pool.statistics(false).outstanding());
    }

    @Test
    void acquireAndReleaseAllocateNothingInSteadyState() throws JMException {
        cycle(CYCLES); // fill the buckets and let the JIT compile the loop
        long baseline = allocatedBytes();
        long overhead = allocatedBytes() - baseline; // what reading the counter itself allocates

        long before = allocatedBytes();
        cycle(CYCLES);
        long allocated = allocatedBytes() - before - overhead;

        // One object per cycle would be at least 16 bytes x 100,000 cycles; allow some noise for the MBean call.
        assertTrue(allocated < 16 * 1024, allocated + " bytes allocated for " + CYCLES + " cycles");
        assertEquals(1, pool.statistics(true).misses(), "only the first direct acquisition allocated");
        assertEquals(1, pool.statistics(false).misses(), "only the first heap acquisition allocated");
    }

    private void cycle(int cycles) {
        for (int i = 0; i < cycles; i++) {
            RetainableByteBuffer direct = pool.acquire(4096, true);
            RetainableByteBuffer heap = pool.acquire(10_000, false);
            direct.byteBuffer().put(0, (byte) i);
            heap.release();
            direct.release();
        }
    }

    /** The allocation counter of the current thread, read through JMX to need only java.management. */
    private static long allocatedBytes() throws JMException {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Object value = server.getAttribute(new ObjectName("java.lang:type=Threading"), "CurrentThreadAllocatedBytes");
        long bytes = (Long) value;
        Assumptions.assumeTrue(bytes >= 0, "this JVM does not measure thread allocation");
        return bytes;
    }
}
