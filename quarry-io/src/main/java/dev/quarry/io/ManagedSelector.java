package dev.quarry.io;

import dev.quarry.core.Dumpable;
import dev.quarry.core.strategy.AdaptiveExecutionStrategy;
import dev.quarry.core.strategy.ExecutionStrategy;
import dev.quarry.core.strategy.StrategyStatistics;
import dev.quarry.core.thread.TryExecutor;
import dev.quarry.core.thread.VirtualProducerThreads;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * One NIO {@link Selector} whose selected keys are <em>produced</em> as tasks into an
 * {@link AdaptiveExecutionStrategy}: the thread that finds a ready connection runs it with a hot cache when that is
 * safe, and hands it off otherwise.
 *
 * <p>Production includes selecting: the producer returns a task for each ready key, and when none is left it applies
 * queued {@link SelectorUpdate}s and blocks in {@link Selector#select(Consumer)}. The thread that owns production is
 * therefore "the selector thread"; it changes when the strategy hands production to a reserved thread.
 *
 * <p>Costs per event: no allocation ({@code select(Consumer)} fills a reused array; updates are intrusive nodes),
 * no {@code wakeup()} unless the selector is blocked in {@code select}, and no {@code epoll_ctl} when a connection
 * re-arms its read interest before the next select (interest ops are synced lazily, just before selecting).
 *
 * <p>Thread-safety: {@link #submit(SelectorUpdate)} from any thread; everything else on the producing thread.
 */
public final class ManagedSelector implements ExecutionStrategy.Producer, Dumpable {
    private static final System.Logger LOG = System.getLogger(ManagedSelector.class.getName());

    private final SelectorManager manager;
    private final int id;
    private final AtomicReference<SelectorUpdate> updates = new AtomicReference<>();
    private final Consumer<SelectionKey> onSelected = this::onSelected;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile Selector selector;
    private volatile boolean selecting;
    private volatile boolean running;
    private AdaptiveExecutionStrategy strategy;
    // Confined to the producing thread.
    private SelectionKey[] ready = new SelectionKey[64];
    private int readyCount;
    private int cursor;
    private long selects;

    ManagedSelector(SelectorManager manager, int id) {
        this.manager = manager;
        this.id = id;
    }

    void start(TryExecutor threads) throws IOException {
        selector = Selector.open();
        // Virtual selectors hand their blocking tasks to platform threads, never to virtual threads of their own kind.
        Executor blockingTasks = threads instanceof VirtualProducerThreads virtual ? virtual.blockingTasks() : threads;
        strategy = new AdaptiveExecutionStrategy(this, threads, blockingTasks);
        running = true;
        // Production holds a pooled thread for as long as the selector runs: it is blocked in select() when idle.
        threads.execute(strategy::produce);
    }

    /**
     * Queues work for the producing thread and wakes the selector only if it is blocked in {@code select()}.
     *
     * @param update the work; ignored if it is already queued
     */
    public void submit(SelectorUpdate update) {
        if (!update.tryMarkQueued()) {
            return;
        }
        SelectorUpdate head;
        do {
            head = updates.get();
            update.next = head;
        } while (!updates.compareAndSet(head, update));
        // Dekker with the producer: it sets `selecting` and then re-checks `updates`; we push and then read
        // `selecting`. Volatile accesses are sequentially consistent, so one of us sees the other.
        if (selecting) {
            Selector current = selector;
            if (current != null) {
                current.wakeup();
            }
        }
    }

    /** Wakes the selector if it is blocked in {@code select()}, so that it processes cancelled keys now. */
    void wakeup() {
        if (selecting) {
            Selector current = selector;
            if (current != null) {
                current.wakeup();
            }
        }
    }

    @Override
    public Runnable produce() {
        while (true) {
            while (cursor < readyCount) {
                SelectionKey key = ready[cursor];
                ready[cursor++] = null;
                Runnable task = processKey(key);
                if (task != null) {
                    return task;
                }
            }
            runUpdates();
            if (!running) {
                // Whichever thread owns production when the stop is seen closes the selector: after hand-offs it
                // is rarely the thread that started production.
                closeSelector();
                stopped.countDown();
                return null;
            }
            select();
        }
    }

    private Runnable processKey(SelectionKey key) {
        Object attachment = key.attachment();
        if (attachment instanceof SelectorManager.Connect connect) {
            if (!key.isValid()) {
                connect.fail(new ClosedChannelException());
            } else {
                connect.onConnectable();
            }
            return null;
        }
        if (!(attachment instanceof SocketEndPoint endPoint)) {
            return null;
        }
        if (!key.isValid()) {
            endPoint.close(); // the channel was closed under us: make sure callbacks fail
            return null;
        }
        try {
            return endPoint.onSelected(key.readyOps());
        } catch (Throwable x) {
            LOG.log(Level.WARNING, "failed to process selected " + endPoint, x);
            endPoint.close(x);
            return null;
        }
    }

    private void runUpdates() {
        SelectorUpdate update = updates.getAndSet(null);
        while (update != null) {
            SelectorUpdate next = update.next;
            update.next = null;
            // Clear before running, so that a change made while it runs queues the update again.
            update.clearQueued();
            try {
                if (running) {
                    update.update();
                } else {
                    update.onSelectorStopped();
                }
            } catch (Throwable x) {
                LOG.log(Level.WARNING, "selector update failed: " + update, x);
            }
            update = next;
        }
    }

    private void select() {
        selecting = true;
        try {
            if (updates.get() != null) {
                return; // an update arrived after we ran them: run it before blocking
            }
            readyCount = 0;
            cursor = 0;
            selector.select(onSelected);
            selects++;
        } catch (ClosedSelectorException x) {
            running = false;
        } catch (IOException x) {
            // An I/O error of the selector itself is not recoverable for its connections.
            LOG.log(Level.ERROR, "selector " + id + " failed, closing it", x);
            running = false;
        } finally {
            selecting = false;
        }
    }

    private void onSelected(SelectionKey key) {
        if (readyCount == ready.length) {
            ready = Arrays.copyOf(ready, readyCount * 2);
        }
        ready[readyCount++] = key;
    }

    /** Registers a channel: runs on the producing thread. */
    Selector selector() {
        return selector;
    }

    private void closeSelector() {
        Selector current = selector;
        if (current == null) {
            return;
        }
        for (SelectionKey key : current.keys()) {
            if (key.attachment() instanceof SocketEndPoint endPoint) {
                endPoint.close();
            } else if (key.attachment() instanceof SelectorManager.Connect connect) {
                connect.fail(new ClosedSelectorException());
            }
        }
        try {
            current.close();
        } catch (IOException x) {
            LOG.log(Level.DEBUG, "closing selector " + id, x);
        }
        selector = null;
    }

    void stop(long timeout, TimeUnit unit) throws InterruptedException {
        if (!running) {
            return;
        }
        running = false;
        Selector current = selector;
        if (current != null) {
            current.wakeup();
        }
        if (!stopped.await(timeout, unit)) {
            LOG.log(Level.WARNING, "selector " + id + " did not stop within " + timeout + " " + unit);
        }
    }

    /** @return the mode counts of this selector's execution strategy */
    public StrategyStatistics strategyStatistics() {
        AdaptiveExecutionStrategy current = strategy;
        return current == null ? new StrategyStatistics(0, 0, 0, 0, 0) : current.statistics();
    }

    /** @return the number of keys registered with this selector (open connections and listeners) */
    public int keyCount() {
        Selector current = selector;
        try {
            return current == null ? 0 : current.keys().size();
        } catch (ClosedSelectorException x) {
            return 0;
        }
    }

    SelectorManager manager() {
        return manager;
    }

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        out.append(toString()).append(System.lineSeparator());
        out.append(indent)
                .append("+- strategy: ")
                .append(String.valueOf(strategy))
                .append(System.lineSeparator());
    }

    @Override
    public String toString() {
        return "ManagedSelector@" + Integer.toHexString(hashCode()) + "{id=" + id + ", running=" + running + ", keys="
                + keyCount() + ", selects=" + selects + "}";
    }
}
