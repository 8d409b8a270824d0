package dev.quarry.io;

import dev.quarry.core.Dumpable;
import dev.quarry.core.LifeCycle;
import dev.quarry.core.strategy.StrategyStatistics;
import dev.quarry.core.thread.TryExecutor;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A set of {@link ManagedSelector}s sharing one pool of platform threads: new channels are spread over them round
 * robin, and each selector's production runs on a pooled thread.
 *
 * <p>Both sides use it: a {@link ServerConnector} hands it the channels it {@linkplain #accept accepts}, and a client
 * asks it to {@linkplain #connect connect} a new channel, which it completes on the selector ({@code OP_CONNECT})
 * without blocking any thread. Either way the channel ends up as a {@link SocketEndPoint} with its connection open.
 *
 * <p>Thread-safety: {@link #accept} and {@link #connect} from any thread; start and stop from one thread.
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
     * @param threads the platform thread pool (or virtual threads); each selector holds one of its threads while running
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

    /**
     * A selector manager of its own, for a client (a server's connector creates its own).
     *
     * @param name for logs and dumps
     * @param selectorCount how many selectors, at least 1
     * @param threads the platform thread pool (or virtual threads); each selector holds one of its threads while running
     * @param idleTimeouts creates the idle timeout of each endpoint (see {@link IdleTimeouts})
     * @return a manager, not started
     */
    public static SelectorManager create(
            String name, int selectorCount, TryExecutor threads, EndPointIdleTimeout.Factory idleTimeouts) {
        return new SelectorManager(name, selectorCount, threads, idleTimeouts);
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
        ManagedSelector selector = nextSelector();
        selector.submit(new Accept(selector, channel, connections, onClosed));
    }

    /**
     * Opens a non-blocking channel to {@code address} and connects it without blocking: the connection completes on a
     * selector ({@code OP_CONNECT}), which then creates the endpoint and opens the connection that
     * {@code connections} creates for it. Exactly one of {@code connections} and {@code onFailed} is called, on the
     * selector's producing thread (or on the caller's thread when opening the channel fails at once, or on the
     * thread that {@linkplain PendingConnect#cancel cancels}): both must not block.
     *
     * @param address where to connect: an {@link InetSocketAddress} (resolved) or a {@link UnixDomainSocketAddress}
     * @param connections creates the connection for the new endpoint
     * @param onClosed run once when the endpoint closes, with the endpoint
     * @param onFailed run once if the channel could not be opened, connected or registered
     * @return the pending connect, to cancel it (on a connect timeout)
     */
    public PendingConnect connect(
            SocketAddress address,
            Function<EndPoint, Connection> connections,
            Consumer<EndPoint> onClosed,
            Consumer<Throwable> onFailed) {
        Objects.requireNonNull(address, "address");
        Connect connect = new Connect(nextSelector(), connections, onClosed, onFailed);
        try {
            SocketChannel channel = address instanceof UnixDomainSocketAddress
                    ? SocketChannel.open(StandardProtocolFamily.UNIX)
                    : SocketChannel.open();
            connect.channel = channel;
            channel.configureBlocking(false);
            if (address instanceof InetSocketAddress) {
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            }
            connect.connected = channel.connect(address);
        } catch (Throwable x) {
            connect.fail(x);
            return connect;
        }
        connect.selector.submit(connect);
        return connect;
    }

    private ManagedSelector nextSelector() {
        return selectors.length == 1
                ? selectors[0]
                : selectors[Math.floorMod(next.getAndIncrement(), selectors.length)];
    }

    /**
     * Opens the connection of a new endpoint, on the selector's producing thread.
     *
     * @throws RuntimeException if the connection could not be created or opened; the endpoint is then closed (which
     *     tells its {@code onClosed})
     */
    private static void open(SocketEndPoint endPoint, SelectionKey key, Function<EndPoint, Connection> connections) {
        try {
            Connection connection = connections.apply(endPoint);
            endPoint.setConnection(connection);
            key.attach(endPoint);
            endPoint.onOpen();
            connection.onOpen();
        } catch (Throwable x) {
            endPoint.close(x);
            throw x;
        }
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
            SocketEndPoint endPoint;
            SelectionKey key;
            try {
                key = channel.register(selector.selector(), 0);
                endPoint = new SocketEndPoint(channel, selector, key, idleTimeouts, onClosed);
            } catch (Throwable x) {
                LOG.log(Level.WARNING, "could not register " + channel, x);
                closeChannel();
                onClosed.accept(null);
                return;
            }
            try {
                open(endPoint, key, connections);
            } catch (Throwable x) {
                // The endpoint is closed, and it told onClosed.
                LOG.log(Level.WARNING, "could not open a connection for " + channel, x);
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

    /** A connect in progress, which a client may cancel (a connect timeout). */
    public interface PendingConnect {
        /**
         * Gives up on the connect: closes the channel and reports {@code cause} to the connect's {@code onFailed},
         * unless the connect already completed or failed. Never blocks.
         *
         * @param cause why, reported to {@code onFailed}
         * @return true if this call failed the connect; false if it had completed or failed already
         */
        boolean cancel(Throwable cause);
    }

    /**
     * Registers a connecting channel for {@code OP_CONNECT} and finishes the connect when the selector reports it.
     * Attached to the key until then ({@link ManagedSelector} recognises it); the endpoint replaces it.
     */
    final class Connect extends SelectorUpdate implements PendingConnect {
        private final ManagedSelector selector;
        private final Function<EndPoint, Connection> connections;
        private final Consumer<EndPoint> onClosed;
        private final Consumer<Throwable> onFailed;
        // Exactly one of connected (the endpoint was created) or failed.
        private final AtomicBoolean done = new AtomicBoolean();
        // Written before the update is submitted; read by the selector after the submit's CAS.
        private SocketChannel channel;
        private boolean connected;
        private SelectionKey key;

        Connect(
                ManagedSelector selector,
                Function<EndPoint, Connection> connections,
                Consumer<EndPoint> onClosed,
                Consumer<Throwable> onFailed) {
            this.selector = selector;
            this.connections = Objects.requireNonNull(connections, "connections");
            this.onClosed = Objects.requireNonNull(onClosed, "onClosed");
            this.onFailed = Objects.requireNonNull(onFailed, "onFailed");
        }

        @Override
        protected void update() {
            if (done.get()) {
                closeChannel();
                return;
            }
            try {
                key = channel.register(selector.selector(), connected ? 0 : SelectionKey.OP_CONNECT, this);
            } catch (Throwable x) {
                fail(x);
                return;
            }
            if (connected) {
                finish();
            }
        }

        /** On the producing thread: the key is connectable. */
        void onConnectable() {
            try {
                if (!channel.finishConnect()) {
                    return; // spurious: keep waiting
                }
            } catch (Throwable x) {
                fail(x);
                return;
            }
            key.interestOps(0);
            finish();
        }

        private void finish() {
            if (!done.compareAndSet(false, true)) {
                closeChannel(); // cancelled meanwhile
                return;
            }
            SocketEndPoint endPoint;
            try {
                endPoint = new SocketEndPoint(channel, selector, key, idleTimeouts, onClosed);
            } catch (Throwable x) {
                closeChannel();
                failed(x);
                return;
            }
            try {
                open(endPoint, key, connections);
            } catch (Throwable x) {
                // The endpoint was closed and told onClosed; the caller learns why too.
                failed(x);
            }
        }

        void fail(Throwable cause) {
            if (done.compareAndSet(false, true)) {
                closeChannel();
                failed(cause);
            }
        }

        private void failed(Throwable cause) {
            try {
                onFailed.accept(cause);
            } catch (Throwable x) {
                LOG.log(Level.WARNING, "onFailed of a connect failed", x);
            }
        }

        @Override
        public boolean cancel(Throwable cause) {
            if (!done.compareAndSet(false, true)) {
                return false;
            }
            closeChannel();
            // A registered channel is only released when its key is deregistered, at the selector's next select.
            selector.wakeup();
            failed(cause);
            return true;
        }

        @Override
        protected void onSelectorStopped() {
            fail(new ClosedChannelException());
        }

        private void closeChannel() {
            SocketChannel current = channel;
            if (current == null) {
                return;
            }
            try {
                current.close();
            } catch (IOException x) {
                LOG.log(Level.DEBUG, "closing " + current, x);
            }
        }

        @Override
        public String toString() {
            return "Connect[" + channel + "]";
        }
    }
}
