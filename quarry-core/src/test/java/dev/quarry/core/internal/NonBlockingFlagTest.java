package dev.quarry.core.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The "must not block" mark of threads that are not Quarry's own (virtual threads here), which keep it in a
 * thread-local read only while some such thread holds the mark: each thread sees its own mark, never another's.
 */
class NonBlockingFlagTest {
    @Test
    void aVirtualThreadSeesItsOwnMarkUntilItClearsIt() throws Exception {
        AtomicReference<String> seen = new AtomicReference<>();
        Thread thread = Thread.ofVirtual().start(() -> {
            boolean before = NonBlockingFlag.isSet();
            boolean wasSet = NonBlockingFlag.set();
            boolean during = NonBlockingFlag.isSet();
            boolean nested = NonBlockingFlag.set();
            NonBlockingFlag.restore(nested); // a nested set leaves the mark to the outer one
            boolean afterNested = NonBlockingFlag.isSet();
            NonBlockingFlag.restore(wasSet);
            seen.set(before + " " + wasSet + " " + during + " " + nested + " " + afterNested + " "
                    + NonBlockingFlag.isSet());
        });
        assertTrue(thread.join(java.time.Duration.ofSeconds(10)));

        assertTrue("false false true true true false".equals(seen.get()), seen.get());
    }

    @Test
    void anotherVirtualThreadsMarkIsNotThisOnes() throws Exception {
        CountDownLatch marked = new CountDownLatch(1);
        AtomicBoolean checked = new AtomicBoolean();
        Thread holder = Thread.ofVirtual().start(() -> {
            boolean wasSet = NonBlockingFlag.set();
            marked.countDown();
            // Busy-waits, since a marked thread must not park (nor yield); bounded to 10 s.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!checked.get() && System.nanoTime() < deadline) {
                // polls the flag
            }
            NonBlockingFlag.restore(wasSet);
        });
        assertTrue(marked.await(10, TimeUnit.SECONDS));
        AtomicReference<Boolean> other = new AtomicReference<>();
        Thread reader = Thread.ofVirtual().start(() -> {
            other.set(NonBlockingFlag.isSet());
            NonBlockingFlag.clear(); // clearing a mark it does not hold leaves the holder's alone
        });
        assertTrue(reader.join(java.time.Duration.ofSeconds(10)));
        checked.set(true);
        assertTrue(holder.join(java.time.Duration.ofSeconds(10)));

        assertFalse(other.get(), "a thread saw another thread's mark");
        AtomicReference<Boolean> after = new AtomicReference<>();
        Thread late = Thread.ofVirtual().start(() -> after.set(NonBlockingFlag.isSet()));
        assertTrue(late.join(java.time.Duration.ofSeconds(10)));
        assertFalse(after.get());
    }

    @Test
    void aThreadWithItsOwnMarkLeavesTheOtherThreadsReadsFree() throws Exception {
        CountDownLatch marked = new CountDownLatch(1);
        AtomicBoolean checked = new AtomicBoolean();
        AtomicReference<String> holderSaw = new AtomicReference<>();
        Thread holder = Thread.ofVirtual()
                .start(() -> NonBlockingFlag.runWithOwnMark(() -> {
                    boolean before = NonBlockingFlag.isSet();
                    boolean wasSet = NonBlockingFlag.set();
                    boolean during = NonBlockingFlag.isSet();
                    marked.countDown();
                    // Busy-waits, since a marked thread must not park (nor yield); bounded to 10 s.
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (!checked.get() && System.nanoTime() < deadline) {
                        // polls the flag
                    }
                    NonBlockingFlag.restore(wasSet);
                    holderSaw.set(before + " " + wasSet + " " + during + " " + NonBlockingFlag.isSet());
                }));
        assertTrue(marked.await(10, TimeUnit.SECONDS));
        // The holder's mark is not counted: another thread answers false without creating its thread-local map.
        int counted = NonBlockingFlag.foreignMarks();
        AtomicReference<Boolean> other = new AtomicReference<>();
        Thread reader = Thread.ofVirtual().start(() -> other.set(NonBlockingFlag.isSet()));
        assertTrue(reader.join(java.time.Duration.ofSeconds(10)));
        checked.set(true);
        assertTrue(holder.join(java.time.Duration.ofSeconds(10)));

        assertTrue(counted == 0, "marked threads counted: " + counted);
        assertFalse(other.get(), "a thread saw another thread's mark");
        assertTrue("false false true false".equals(holderSaw.get()), holderSaw.get());
        AtomicReference<Boolean> after = new AtomicReference<>();
        Thread late = Thread.ofVirtual().start(() -> after.set(NonBlockingFlag.isSet()));
        assertTrue(late.join(java.time.Duration.ofSeconds(10)));
        assertFalse(after.get());
    }
}
