package dev.quarry.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.core.test.BlockingDetector.BlockingAllowed;
import dev.quarry.core.thread.ThreadPool;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.AbstractSelectionKey;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The interest ops a {@link SocketEndPoint} sets on its selection key always end up being the ones its connection
 * wants, even when the connection changes its mind while the selector is updating the key. A key whose interest is
 * lost leaves a pending read or write waiting for an event the selector no longer asks for: the connection hangs.
 *
 * <p>The race is made deterministic with a selection key (not registered with the real selector, which only runs the
 * endpoint's updates) that runs the connection's change from inside {@code interestOps(int)}: exactly between the
 * selector thread's update of the key and its bookkeeping.
 */
class SocketEndPointInterestTest {
    private ServerSocketChannel server;
    private SocketChannel client;
    private SocketChannel accepted;
    private ThreadPool threads;
    private SelectorManager manager;
    private ManagedSelector selector;

    /** A key that records its interest ops and runs a hook when they are set. */
    private static final class HookedKey extends AbstractSelectionKey {
        private final SelectableChannel channel;
        private volatile int ops;
        private volatile Runnable hook;
        private final AtomicInteger updates = new AtomicInteger();

        HookedKey(SelectableChannel channel) {
            this.channel = channel;
        }

        @Override
        public SelectableChannel channel() {
            return channel;
        }

        @Override
        public Selector selector() {
            throw new UnsupportedOperationException();
        }

        @Override
        public int interestOps() {
            return ops;
        }

        @Override
        public SelectionKey interestOps(int ops) {
            updates.incrementAndGet();
            this.ops = ops;
            Runnable current = hook;
            hook = null;
            if (current != null) {
                current.run();
            }
            return this;
        }

        @Override
        public int readyOps() {
            return 0;
        }
    }

    @BeforeEach
    void connect() throws IOException {
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        client = SocketChannel.open(server.getLocalAddress());
        accepted = server.accept();
        accepted.configureBlocking(false);
        threads = ThreadPool.builder().name("interest").build();
        threads.start();
        manager = new SelectorManager("interest", 1, threads, IdleTimeouts.none());
        manager.start();
        selector = manager.selectors().get(0);
    }

    @AfterEach
    void close() throws Exception {
        manager.stop();
        threads.stop();
        accepted.close();
        client.close();
        server.close();
    }

    @Test
    @BlockingAllowed("the hooked key holds the selector inside its update, on purpose, to open the race window")
    void aChangeOfInterestWhileTheKeyIsUpdatedIsNotLost() throws Exception {
        HookedKey key = new HookedKey(accepted);
        SocketEndPoint endPoint = new SocketEndPoint(accepted, selector, key, IdleTimeouts.none(), ep -> {});
        // A read that may block: its task may run on another thread while the selector selects again, so the key
        // drops OP_READ at once (a non-blocking read keeps it: see the tests below).
        Callback mayBlock = Callback.from(InvocationType.BLOCKING, () -> {}, x -> {});
        endPoint.fillInterested(mayBlock);
        awaitState(endPoint, "desired=1,registered=1");
        assertEquals(SelectionKey.OP_READ, key.interestOps());

        // The key is selected: the endpoint drops OP_READ from its interest, queues the update that drops it from
        // the key, and hands out the read task. While the selector's thread drops OP_READ from the key, the
        // connection (having read) asks to read again: the hook runs exactly between the key's update and the
        // selector's bookkeeping of it.
        CompletableFuture<Runnable> readTask = new CompletableFuture<>();
        CountDownLatch hookRan = new CountDownLatch(1);
        key.hook = () -> {
            readTask.join().run();
            endPoint.fillInterested(mayBlock);
            hookRan.countDown();
        };
        Runnable read = endPoint.onSelected(SelectionKey.OP_READ);
        assertNotNull(read);
        readTask.complete(read);

        assertTrue(hookRan.await(10, TimeUnit.SECONDS));
        // The hook ran inside the update: one more update, queued now, runs after that update finished.
        CountDownLatch updated = new CountDownLatch(1);
        selector.submit(new SelectorUpdate() {
            @Override
            protected void update() {
                updated.countDown();
            }
        });
        assertTrue(updated.await(10, TimeUnit.SECONDS));
        assertEquals(
                SelectionKey.OP_READ, key.interestOps(), "the key asks for what the connection wants: " + endPoint);
        assertTrue(endPoint.isFillInterested());
    }

    @Test
    void aNonBlockingReadThatAsksToReadAgainLeavesTheKeyAlone() throws Exception {
        HookedKey key = new HookedKey(accepted);
        SocketEndPoint endPoint = new SocketEndPoint(accepted, selector, key, IdleTimeouts.none(), ep -> {});
        Callback nonBlocking = Callback.from(InvocationType.NON_BLOCKING, () -> {}, x -> {});
        endPoint.fillInterested(nonBlocking);
        awaitState(endPoint, "desired=1,registered=1");
        int updatesBefore = key.updates.get();

        // Selected: the read task runs in place before the next select, so OP_READ stays on the key; the connection
        // then asks to read again (as it does once a handler's virtual thread wrote the response).
        Runnable read = endPoint.onSelected(SelectionKey.OP_READ);
        assertNotNull(read);
        assertTrue(String.valueOf(endPoint).contains("desired=0,registered=1"), String.valueOf(endPoint));
        read.run();
        endPoint.fillInterested(nonBlocking);
        awaitSelectorUpdates();

        assertEquals(updatesBefore, key.updates.get(), "the key was updated (an epoll_ctl): " + endPoint);
        assertEquals(SelectionKey.OP_READ, key.interestOps());
        assertTrue(String.valueOf(endPoint).contains("desired=1,registered=1"), String.valueOf(endPoint));
    }

    @Test
    void aKeyReadyWhileNobodyWantsToReadDropsRead() throws Exception {
        HookedKey key = new HookedKey(accepted);
        SocketEndPoint endPoint = new SocketEndPoint(accepted, selector, key, IdleTimeouts.none(), ep -> {});
        endPoint.fillInterested(Callback.from(InvocationType.NON_BLOCKING, () -> {}, x -> {}));
        awaitState(endPoint, "desired=1,registered=1");
        endPoint.onSelected(SelectionKey.OP_READ).run();

        // Bytes arrive while the request is handled elsewhere: the level-triggered key is reported with no fill
        // interest, and must stop asking for OP_READ, or the selector would report it again and again.
        assertEquals(null, endPoint.onSelected(SelectionKey.OP_READ));
        awaitSelectorUpdates();

        assertEquals(0, key.interestOps());
        assertTrue(String.valueOf(endPoint).contains("desired=0,registered=0"), String.valueOf(endPoint));
    }

    /**
     * Waits until the selector ran the updates queued so far. A batch of updates runs last queued first, so one marker
     * may run before them: the second marker, queued once the first ran, runs in a later batch.
     */
    private void awaitSelectorUpdates() throws InterruptedException {
        for (int i = 0; i < 2; i++) {
            CountDownLatch updated = new CountDownLatch(1);
            selector.submit(new SelectorUpdate() {
                @Override
                protected void update() {
                    updated.countDown();
                }
            });
            assertTrue(updated.await(10, TimeUnit.SECONDS));
        }
    }

    private static void awaitState(SocketEndPoint endPoint, String state) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!String.valueOf(endPoint).contains(state)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + state + ": " + endPoint);
            }
            Thread.onSpinWait(); // polling the endpoint's interest word
        }
    }
}
