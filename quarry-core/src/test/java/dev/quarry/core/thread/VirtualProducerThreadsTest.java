package dev.quarry.core.thread;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Invocable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Selectors' threads for servers with blocking handlers: a new named virtual thread per task, never a hand-off. */
class VirtualProducerThreadsTest {
    @Test
    void runsEachTaskOnANewNamedVirtualThreadThatMayTakeTheMark() throws Exception {
        VirtualProducerThreads threads = new VirtualProducerThreads("test-selector", Runnable::run);
        CompletableFuture<String> ran = new CompletableFuture<>();
        threads.execute(() -> {
            Thread thread = Thread.currentThread();
            boolean before = Invocable.isNonBlockingInvocation();
            boolean[] during = new boolean[1];
            Invocable.invokeNonBlocking(() -> during[0] = Invocable.isNonBlockingInvocation());
            ran.complete(thread.isVirtual() + " " + thread.getName() + " " + before + " " + during[0] + " "
                    + Invocable.isNonBlockingInvocation());
        });

        assertEquals("true test-selector false true false", ran.get(10, TimeUnit.SECONDS));
    }

    @Test
    void neverHandsATaskToAWaitingThread() {
        boolean[] ran = new boolean[1];
        assertFalse(new VirtualProducerThreads("test-selector", Runnable::run).tryExecute(() -> ran[0] = true));
        assertFalse(ran[0]);
        assertTrue(new VirtualProducerThreads("x", Runnable::run).toString().contains("x"));
    }
}
