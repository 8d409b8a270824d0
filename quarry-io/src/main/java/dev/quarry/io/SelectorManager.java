package dev.quarry.io;

import dev.quarry.core.Dumpable;
import dev.quarry.core.LifeCycle;
import dev.quarry.core.strategy.StrategyStatistics;
import dev.quarry.core.thread.TryExecutor;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A set of {@link ManagedSelector}s sharing one pool of platform threads: new channels are spread over them round
 * robin, and each selector's production runs on a pooled thread.
 *
 * <p>Thread-safety: {@link #accept} from any thread; start and stop from one thread.
 */
public final class SelectorManager implements LifeCycle, Dumpable {
    private static final System.Logger LOG = System.getLogger(SelectorManager.class.getName());

    private final String name;
    private final TryExecutor threads;
    private final EndPointIdleTimeout.Factory idleTimeouts;
    private final ManagedSelector[] selectors;
    private final AtomicInteger next = new AtomicInteger();
    private volatile boolean running;

    /**
     * @param name for logs and dumps
     * @param selectorCount how many selectors; 1 is right for most servers up to a few cores
     * @param threads the platform thread pool; each selector holds one of its threads while running
     * @param idleTimeouts creates the idle timeout of each endpoint
     */
    SelectorManager(String name, int selectorCount, TryExecutor threads, EndPointIdleTimeout.Factory idleTimeouts) {
        if (selectorCount < 1) {
            throw new IllegalArgumentException("selectors must be >= 1, was " + selectorCount);
        }
        this.name = Objects.requireNonNull(name, "name");
        this.threads = Objects.requireNonNull(threads, "threads");
        this.idleTimeouts = Objects.requireNonNull(idleTimeouts, "idleTimeouts");
        this.selectors = new ManagedSelector[selectorCount];
        for (int i = 0; i < selectorCount; i++) {
            selectors[i] = new ManagedSelector(this, i);
        }
    }

    @Override
    public void start() throws IOException {
        if (running) {
            return;
        }
        for (ManagedSelector selector : selectors) {
            selector.start(threads);
        }
        running = true;
    }

    @Override
    public void stop() throws InterruptedException {
        if (!running) {
            return;
        }
        running = false;
        for (ManagedSelector selector : selectors) {
            selector.stop(10, TimeUnit.SECONDS);
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * Registers an accepted channel with one of the selectors, on that selector's producing thread, and opens the
     * connection that {@code connections} creates for it.
     *
     * @param channel a connected channel, already non-blocking
     * @param connections creates the connection for the new endpoint
     * @param onClosed run once when the endpoint closes, with the endpoint (null if it could not be created)
     */
    public void accept(SocketChannel channel, Function<EndPoint, Connection> connections, Consumer<EndPoint> onClosed) {
        ManagedSelector selector = selectors.length == 1
                ? selectors[0]
                : selectors[Math.floorMod(next.getAndIncrement(), selectors.length)];
        selector.submit(new Accept(selector, channel, connections, onClosed));
    }

    /** @return the selectors, for statistics */
    public List<ManagedSelector> selectors() {
        return List.of(selectors);
    }

    /** @return the mode counts of all selectors' strategies, summed */
    public StrategyStatistics strategyStatistics() {
        long pc = 0;
        long pic = 0;
        long pec = 0;
        long epc = 0;
        long dispatches = 0;
        for (ManagedSelector selector : selectors) {
            StrategyStatistics s = selector.strategyStatistics();
            pc += s.produceConsume();
            pic += s.produceInvokeConsume();
            pec += s.produceExecuteConsume();
            epc += s.executeProduceConsume();
            dispatches += s.dispatches();
        }
        return new StrategyStatistics(pc, pic, pec, epc, dispatches);
    }

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        out.append(toString()).append(System.lineSeparator());
        for (ManagedSelector selector : selectors) {
            out.append(indent).append("+- ");
            selector.dump(out, indent + "   ");
        }
    }

    @Override
    public String toString() {
        return "SelectorManager@" + Integer.toHexString(hashCode()) + "{" + name + ", selectors=" + selectors.length
                + ", running=" + running + "}";
    }

    /** Registers a new channel and opens its connection, on the selector's producing thread. */
    private final class Accept extends SelectorUpdate {
        private final ManagedSelector selector;
        private final SocketChannel channel;
        private final Function<EndPoint, Connection> connections;
        private final Consumer<EndPoint> onClosed;

        Accept(
                ManagedSelector selector,
                SocketChannel channel,
                Function<EndPoint, Connection> connections,
                Consumer<EndPoint> onClosed) {
            this.selector = selector;
            this.channel = channel;
            this.connections = connections;
            this.onClosed = onClosed;
        }

        @Override
        protected void update() {
            SocketEndPoint endPoint = null;
            try {
                SelectionKey key = channel.register(selector.selector(), 0);
                endPoint = new SocketEndPoint(channel, selector, key, idleTimeouts, onClosed);
                Connection connection = connections.apply(endPoint);
                endPoint.setConnection(connection);
                key.attach(endPoint);
                endPoint.onOpen();
                connection.onOpen();
            } catch (Throwable x) {
                LOG.log(Level.WARNING, "could not open a connection for " + channel, x);
                if (endPoint != null) {
                    endPoint.close(x);
                } else {
                    closeChannel();
                    onClosed.accept(null);
                }
            }
        }

        @Override
        protected void onSelectorStopped() {
            closeChannel();
            onClosed.accept(null);
        }

        private void closeChannel() {
            try {
                channel.close();
            } catch (IOException x) {
                LOG.log(Level.DEBUG, "closing " + channel, x);
            }
        }

        @Override
        public String toString() {
            return "Accept[" + channel + "]";
        }
    }
}
