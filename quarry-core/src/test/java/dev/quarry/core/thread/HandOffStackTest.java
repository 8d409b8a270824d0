package dev.quarry.core.thread;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class HandOffStackTest {
    private final Runnable task = () -> {};

    @Test
    void offerFailsWhenNobodyWaits() {
        assertFalse(new HandOffStack().offer(task));
    }

    @Test
    void theMostRecentlyPushedWaiterGetsTheTask() {
        HandOffStack stack = new HandOffStack();
        Waiter older = new Waiter(Thread.currentThread());
        Waiter newer = new Waiter(Thread.currentThread());
        stack.push(older);
        stack.push(newer);
        assertTrue(stack.offer(task));
        assertSame(task, newer.task());
        assertNull(older.task());
        assertEquals(1, stack.waiting());
    }

    @Test
    void cancelledWaitersAreSkipped() {
        HandOffStack stack = new HandOffStack();
        Waiter waiting = new Waiter(Thread.currentThread());
        Waiter cancelled = new Waiter(Thread.currentThread());
        stack.push(waiting);
        stack.push(cancelled);
        assertTrue(cancelled.cancel());
        assertTrue(stack.offer(task));
        assertSame(task, waiting.task());
        assertTrue(stack.isEmpty());
    }

    @Test
    void aWaiterThatWasHandedATaskCannotCancelAndViceVersa() {
        Waiter handed = new Waiter(Thread.currentThread());
        assertTrue(handed.tryHandOff(task));
        assertFalse(handed.cancel());
        Waiter cancelled = new Waiter(Thread.currentThread());
        assertTrue(cancelled.cancel());
        assertFalse(cancelled.tryHandOff(task));
    }

    @Test
    void pushDropsCancelledWaitersOnTop() {
        HandOffStack stack = new HandOffStack();
        Waiter cancelled = new Waiter(Thread.currentThread());
        stack.push(cancelled);
        cancelled.cancel();
        Waiter waiting = new Waiter(Thread.currentThread());
        stack.push(waiting);
        assertNull(waiting.next, "the cancelled waiter below should have been dropped");
    }
}
