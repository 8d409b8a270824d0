package dev.quarry.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The reused blocking-write callback and text bytes of a response: waits, wakes, fails and is abandoned correctly. */
class BlockingSendTest {
    private static final long WAIT_SECONDS = 20;

    @Test
    void aWriteCompletedBeforeTheWaitReturnsAtOnce() throws IOException {
        BlockingSend blocking = new BlockingSend();
        blocking.arm();
        blocking.succeeded();
        blocking.block();
        assertTrue(blocking.isCompleted());
    }

    @Test
    void aParkedWaiterIsWokenByTheCompletion() throws Exception {
        BlockingSend blocking = new BlockingSend();
        CompletableFuture<Void> armed = new CompletableFuture<>();
        CompletableFuture<Void> returned = new CompletableFuture<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                blocking.arm();
                armed.complete(null);
                blocking.block();
                returned.complete(null);
            } catch (Throwable x) {
                returned.completeExceptionally(x);
            }
        });
        armed.get(WAIT_SECONDS, TimeUnit.SECONDS);
        awaitParked(waiter);
        assertFalse(returned.isDone());
        blocking.succeeded();
        returned.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(blocking.isCompleted());
    }

    @Test
    void aFailedWriteIsRethrownAsAnIOException() {
        BlockingSend blocking = new BlockingSend();
        blocking.arm();
        IllegalStateException cause = new IllegalStateException("stream reset");
        blocking.failed(cause);
        IOException thrown = assertThrows(IOException.class, blocking::block);
        assertSame(cause, thrown.getCause());

        // Armed again, the previous failure is forgotten.
        blocking.arm();
        blocking.succeeded();
        assertTrue(assertDoesNotThrowIO(blocking));
    }

    @Test
    void anInterruptedWaiterLeavesItUncompletedForTheOwnerToDrop() throws Exception {
        BlockingSend blocking = new BlockingSend();
        CompletableFuture<Throwable> thrown = new CompletableFuture<>();
        CompletableFuture<Boolean> stillInterrupted = new CompletableFuture<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            blocking.arm();
            try {
                blocking.block();
                thrown.complete(null);
            } catch (Throwable x) {
                thrown.complete(x);
            }
            stillInterrupted.complete(Thread.currentThread().isInterrupted());
        });
        awaitParked(waiter);
        waiter.interrupt();
        assertTrue(thrown.get(WAIT_SECONDS, TimeUnit.SECONDS) instanceof InterruptedIOException);
        assertTrue(stillInterrupted.get(WAIT_SECONDS, TimeUnit.SECONDS), "the interrupt status is kept");
        assertFalse(blocking.isCompleted(), "not reusable: its write may still complete");

        blocking.succeeded(); // the late completion lands here, harmlessly
        assertTrue(blocking.isCompleted());
    }

    @Test
    void asciiTextIsEncodedIntoOneReusedArray() {
        BlockingSend blocking = new BlockingSend();
        ByteBuffer longer = blocking.encodeAscii("Hello, World! and more");
        assertEquals("Hello, World! and more", text(longer));
        ByteBuffer shorter = blocking.encodeAscii("Hi");
        assertEquals("Hi", text(shorter), "nothing of the longer text left");
        assertSame(longer, shorter, "the same buffer, reused");
        assertEquals("", text(blocking.encodeAscii("")));
    }

    @Test
    void textThatIsNotAsciiOrTooLongIsLeftToTheJdk() {
        BlockingSend blocking = new BlockingSend();
        assertNull(blocking.encodeAscii("caf\u00e9"));
        assertNull(blocking.encodeAscii("x".repeat(BlockingSend.MAX_TEXT + 1)));
        assertEquals(
                BlockingSend.MAX_TEXT,
                blocking.encodeAscii("y".repeat(BlockingSend.MAX_TEXT)).remaining());
    }

    private static String text(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    private static boolean assertDoesNotThrowIO(BlockingSend blocking) {
        try {
            blocking.block();
            return true;
        } catch (IOException x) {
            throw new AssertionError("unexpected failure", x);
        }
    }

    private static void awaitParked(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (thread.getState() != Thread.State.WAITING) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("thread never parked: " + thread.getState());
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
