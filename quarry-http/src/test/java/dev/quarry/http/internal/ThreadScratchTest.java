package dev.quarry.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quarry.core.thread.VirtualProducerThreads;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Who gets a scratch array: platform threads and virtual selectors (long-lived), not the other virtual threads. A
 * thread without one makes each connection keep an array of its own, which idle connections then hold.
 */
class ThreadScratchTest {
    private final ThreadScratch scratch = new ThreadScratch(16);

    /** @return "array" and whether the second call gave the same one, or "none" */
    private String borrow() {
        byte[] first = scratch.get();
        if (first == null) {
            return "none";
        }
        return "array " + (scratch.get() == first) + " " + first.length;
    }

    @Test
    void aPlatformThreadKeepsOne() throws Exception {
        CompletableFuture<String> got = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> got.complete(borrow()));
        assertEquals("array true 16", got.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aHandlersVirtualThreadGetsNone() throws Exception {
        CompletableFuture<String> got = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> got.complete(borrow()));
        assertEquals("none", got.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aVirtualSelectorKeepsOne() throws Exception {
        CompletableFuture<String> got = new CompletableFuture<>();
        new VirtualProducerThreads("test-selector", Runnable::run).execute(() -> {
            String before = borrow();
            byte[] grown = new byte[32];
            scratch.keep(grown);
            got.complete(before + ", kept " + (scratch.get() == grown));
        });
        assertEquals("array true 16, kept true", got.get(10, TimeUnit.SECONDS));
    }
}
