package dev.quarry.io;

import dev.quarry.core.Dumpable;
import dev.quarry.core.LifeCycle;
import dev.quarry.core.thread.TryExecutor;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Listens on a TCP host:port (IPv4 or IPv6; port 0 picks a free one) or on a Unix-domain socket path, accepts
 * connections on blocking acceptor threads, caps how many are open at once, and hands each to a
 * {@link SelectorManager} with the connection its {@link ConnectionFactory} creates.
 *
 * <p>At the cap, acceptors stop accepting: new connections wait in the kernel's accept queue (its size is the
 * {@code acceptQueueSize}) rather than being accepted and dropped. Shutdown is graceful: stop accepting, ask every
 * connection to finish ({@link Connection#shutdown()}), wait for them within a deadline, then close what is left.
 *
 * <p>Thread-safety: start/stop from one thread; statistics from any.
 */
public final class ServerConnector implements LifeCycle, Dumpable, ConnectorMXBean {
    private static final System.Logger LOG = System.getLogger(ServerConnector.class.getName());

    private final Config config;
    private final SelectorManager selectors;
    private final Set<EndPoint> endPoints = ConcurrentHashMap.newKeySet();
    private final Semaphore connectionPermits;
    private static final long ACCEPT_WARNING_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);
    private final LongAdder atLimit = new LongAdder();
    private final LongAdder acceptFailures = new LongAdder();
    // Written and read by the acceptor threads only: a racy read at worst logs one line more.
    private long lastAcceptWarning;
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong closed = new AtomicLong();
    private final AtomicLong maxOpen = new AtomicLong();
    private final LongAdder closedBytesIn = new LongAdder();
    private final LongAdder closedBytesOut = new LongAdder();
    // The thread waiting in stop() for the last connection to close, woken without a lock: endpoints close on
    // selector threads, which must not block on a lock that stop() holds.
    private volatile Thread closeWaiter;
    private final List<Thread> acceptors = new ArrayList<>();
    private volatile ServerSocketChannel serverChannel;
    private volatile SocketAddress boundAddress;
    private volatile boolean accepting;
    private volatile boolean running;

    private ServerConnector(Config config, TryExecutor threads, EndPointIdleTimeout.Factory idleTimeouts) {
        this.config = config;
        this.selectors = new SelectorManager(config.name(), config.selectors(), threads, idleTimeouts);
        this.connectionPermits = config.maxConnections() > 0 ? new Semaphore(config.maxConnections()) : null;
    }

    /**
     * @param config what to listen on and how
     * @param threads the threads that run the selectors: the platform pool, or virtual threads ({@code
     *     VirtualProducerThreads}) for a server with blocking handlers on virtual threads
     * @param idleTimeouts the idle timeout of each endpoint (see {@link IdleTimeouts})
     * @return a connector, not started
     */
    public static ServerConnector create(Config config, TryExecutor threads, EndPointIdleTimeout.Factory idleTimeouts) {
        return new ServerConnector(config, threads, idleTimeouts);
    }

    @Override
    public void start() throws IOException {
        if (running) {
            return;
        }
        ServerSocketChannel channel = openAndBind();
        serverChannel = channel;
        boundAddress = channel.getLocalAddress();
        selectors.start();
        running = true;
        accepting = true;
        for (int i = 0; i < config.acceptors(); i++) {
            Thread acceptor = Thread.ofPlatform()
                    .name(config.name() + "-acceptor-" + i)
                    .daemon(true)
                    .unstarted(this::acceptLoop);
            acceptors.add(acceptor);
            acceptor.start();
        }
    }

    private ServerSocketChannel openAndBind() throws IOException {
        Optional<Path> unix = config.unixSocket();
        if (unix.isPresent()) {
            Path path = unix.get();
            // A socket file left by a crashed process makes bind fail; a regular file there is not ours to delete.
            if (Files.exists(path) && !Files.isRegularFile(path) && !Files.isDirectory(path)) {
                Files.delete(path);
            }
            ServerSocketChannel channel = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                channel.bind(UnixDomainSocketAddress.of(path), config.acceptQueueSize());
            } catch (IOException x) {
                channel.close();
                throw new IOException("cannot bind unix socket " + path + ": " + x.getMessage(), x);
            }
            return channel;
        }
        ServerSocketChannel channel = ServerSocketChannel.open();
        channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        InetSocketAddress address = config.host().isEmpty()
                ? new InetSocketAddress(config.port())
                : new InetSocketAddress(config.host().get(), config.port());
        if (address.isUnresolved()) {
            channel.close();
            // bind would throw UnresolvedAddressException, whose message is null: name the host instead.
            throw new UnknownHostException("cannot resolve host '" + address.getHostString() + "'");
        }
        try {
            channel.bind(address, config.acceptQueueSize());
        } catch (IOException x) {
            channel.close();
            throw new IOException(
                    "cannot bind " + describe(address) + ": " + withoutAddress(x.getMessage(), address), x);
        }
        return channel;
    }

    /**
     * The reason of a bind failure without the address, which the message names already: some platforms put it in
     * the exception's message too ({@code Address already in use: 0.0.0.0/0.0.0.0:8080}).
     */
    static String withoutAddress(String reason, InetSocketAddress address) {
        if (reason == null) {
            return "failed";
        }
        String ip = address.getAddress().getHostAddress();
        String port = ":" + address.getPort();
        String stripped = reason;
        for (String form :
                new String[] {address.toString(), "/" + ip + port, "[" + ip + "]" + port, ip + port, describe(address)
                }) {
            stripped = stripped.replace(form, "");
        }
        stripped = stripped.replace("()", "").replaceAll("[\\s:,(]+$", "").strip();
        return stripped.isEmpty() ? reason : stripped;
    }

    /**
     * An address the way people write it: {@code 127.0.0.1:8080}, {@code [::1]:8080}, {@code 0.0.0.0:8080} for the
     * wildcard, and {@code localhost (127.0.0.1:8080)} when it was given by name; never {@code InetSocketAddress}'s
     * {@code localhost/127.0.0.1:8080} or {@code 0.0.0.0/0.0.0.0:8080}.
     */
    static String describe(InetSocketAddress address) {
        // A wildcard bind is dual-stack (IPv6 "::" accepting IPv4 too): print it the way people write it.
        String ip = address.getAddress().isAnyLocalAddress()
                ? "0.0.0.0"
                : address.getAddress().getHostAddress();
        String hostPort = (ip.contains(":") ? "[" + ip + "]" : ip) + ":" + address.getPort();
        String name = address.getHostString();
        boolean literal = name.contains(":") || name.chars().allMatch(c -> c == '.' || Character.isDigit(c));
        return literal ? hostPort : name + " (" + hostPort + ")";
    }

    private void acceptLoop() {
        ServerSocketChannel channel = serverChannel;
        boolean inet = config.unixSocket().isEmpty();
        while (accepting) {
            if (!acquirePermit()) {
                return;
            }
            SocketChannel connection;
            try {
                connection = channel.accept();
            } catch (ClosedChannelException x) {
                releasePermit();
                return;
            } catch (IOException x) {
                releasePermit();
                // Typically EMFILE (too many open files): pause instead of spinning on the same error, and say so
                // once, not ten times a second.
                acceptFailures.increment();
                if (shouldLog()) {
                    LOG.log(
                            Level.WARNING,
                            "accept failed on " + describe() + " with " + openConnections() + " open connections: "
                                    + x.getMessage() + "; retrying every 100 ms (set a lower --max-connections, or"
                                    + " raise ulimit -n)");
                } else {
                    LOG.log(Level.DEBUG, () -> "accept failed on " + describe() + ": " + x.getMessage());
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                continue;
            }
            try {
                connection.configureBlocking(false);
                if (inet) {
                    connection.setOption(StandardSocketOptions.TCP_NODELAY, true);
                }
            } catch (IOException x) {
                LOG.log(Level.DEBUG, "configuring accepted " + connection, x);
                closeQuietly(connection);
                releasePermit();
                continue;
            }
            long count = accepted.incrementAndGet();
            long open = count - closed.get();
            maxOpen.accumulateAndGet(open, Math::max);
            selectors.accept(connection, this::newConnection, this::onEndPointClosed);
        }
    }

    private Connection newConnection(EndPoint endPoint) {
        endPoints.add(endPoint);
        endPoint.setIdleTimeout(config.idleTimeout().toMillis());
        return config.connectionFactories().get(0).newConnection(this, endPoint);
    }

    private boolean acquirePermit() {
        if (connectionPermits == null || connectionPermits.tryAcquire()) {
            return true;
        }
        atLimit.increment();
        if (shouldLog()) {
            LOG.log(
                    Level.WARNING,
                    "at the limit of " + config.maxConnections() + " open connections on " + describe()
                            + ": not accepting until one closes (new clients wait in the accept backlog)");
        }
        try {
            connectionPermits.acquire();
            return true;
        } catch (InterruptedException x) {
            return false;
        }
    }

    /** @return whether a warning about accepting may be logged now: once a minute at most, whatever the pressure */
    private boolean shouldLog() {
        long now = System.nanoTime();
        long last = lastAcceptWarning;
        if (last != 0 && now - last < ACCEPT_WARNING_INTERVAL_NANOS) {
            return false;
        }
        lastAcceptWarning = now;
        return true;
    }

    private void releasePermit() {
        if (connectionPermits != null) {
            connectionPermits.release();
        }
    }

    private void onEndPointClosed(EndPoint endPoint) {
        if (endPoint != null) {
            endPoints.remove(endPoint);
            closedBytesIn.add(endPoint.bytesIn());
            closedBytesOut.add(endPoint.bytesOut());
        }
        closed.incrementAndGet();
        releasePermit();
        Thread waiter = closeWaiter;
        if (waiter != null && accepted.get() - closed.get() <= 0) {
            LockSupport.unpark(waiter);
        }
    }

    /**
     * Stops accepting new connections; open ones keep being served. The listening socket is closed, so new
     * connection attempts are refused. Idempotent.
     */
    public void stopAccepting() {
        if (!accepting) {
            return;
        }
        accepting = false;
        ServerSocketChannel channel = serverChannel;
        if (channel != null) {
            closeQuietly(channel);
        }
        for (Thread acceptor : acceptors) {
            acceptor.interrupt();
        }
        // The JDK completes the close of a listening socket only when the thread blocked in accept() returns: wait
        // for the acceptors, so that once this method returns new connection attempts are really refused.
        for (Thread acceptor : acceptors) {
            if (acceptor != Thread.currentThread()) {
                try {
                    acceptor.join(TimeUnit.SECONDS.toMillis(5));
                } catch (InterruptedException x) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        config.unixSocket().ifPresent(path -> {
            try {
                Files.deleteIfExists(path);
            } catch (IOException x) {
                LOG.log(Level.DEBUG, "deleting " + path, x);
            }
        });
    }

    /**
     * Shuts down gracefully: stops accepting, asks each connection to finish its in-flight exchanges and close,
     * waits up to {@code timeout} for all to close, then closes what is left.
     *
     * @param timeout how long in-flight exchanges may take
     * @return how many connections were still open at the deadline and were closed then (0: all closed on their own)
     * @throws InterruptedException if interrupted while waiting
     */
    public int shutdown(Duration timeout) throws InterruptedException {
        stopAccepting();
        awaitAllClosed(timeout);
        int cut = 0;
        for (EndPoint endPoint : endPoints) {
            if (endPoint.isOpen()) {
                cut++;
            }
            endPoint.close();
        }
        return cut;
    }

    /** Asks every open connection to finish; idempotent, so it can be repeated for late registrations. */
    private void shutdownConnections() {
        for (EndPoint endPoint : endPoints) {
            Connection connection = endPoint.connection();
            if (connection != null) {
                try {
                    connection.shutdown();
                } catch (Throwable x) {
                    LOG.log(Level.WARNING, "graceful shutdown failed for " + connection, x);
                    endPoint.close(x);
                }
            }
        }
    }

    private boolean awaitAllClosed(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        // A connection accepted just before accepting stopped is registered by its selector a moment later: keep
        // asking the connections to finish while waiting, so that a late one is not left to the deadline.
        long slice = TimeUnit.MILLISECONDS.toNanos(50);
        closeWaiter = Thread.currentThread();
        try {
            while (true) {
                shutdownConnections();
                if (openConnections() <= 0) {
                    return true;
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, Math.min(remaining, slice));
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for connections to close");
                }
            }
        } finally {
            closeWaiter = null;
        }
    }

    @Override
    public void stop() throws InterruptedException {
        if (!running) {
            return;
        }
        shutdown(Duration.ZERO);
        acceptors.clear();
        selectors.stop();
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    private static void closeQuietly(java.nio.channels.Channel channel) {
        try {
            channel.close();
        } catch (IOException x) {
            LOG.log(Level.DEBUG, "closing " + channel, x);
        }
    }

    /** @return the address actually bound (with the chosen port when 0 was asked), empty before start */
    public Optional<SocketAddress> boundAddress() {
        return Optional.ofNullable(boundAddress);
    }

    /** @return the TCP port actually bound, or -1 for a Unix-domain socket or before start */
    public int localPort() {
        return boundAddress instanceof InetSocketAddress inet ? inet.getPort() : -1;
    }

    /** @return the configuration */
    public Config config() {
        return config;
    }

    /** @return the protocols of the connection factories, default first */
    public List<String> protocols() {
        return config.connectionFactories().stream()
                .map(ConnectionFactory::protocol)
                .toList();
    }

    /** @return the endpoints open now */
    public Set<EndPoint> endPoints() {
        return Set.copyOf(endPoints);
    }

    /** @return connections accepted since start */
    public long acceptedConnections() {
        return accepted.get();
    }

    /** @return how many times accepting paused because the connection cap was reached, since start */
    public long acceptsPausedAtLimit() {
        return atLimit.sum();
    }

    /** @return accepts that failed (typically out of file descriptors), since start */
    public long acceptFailures() {
        return acceptFailures.sum();
    }

    /** @return connections open now */
    public long openConnections() {
        return accepted.get() - closed.get();
    }

    /** @return the most connections open at once since start */
    public long maxOpenConnections() {
        return maxOpen.get();
    }

    /** @return bytes read since start, by closed and open connections (the latter read without synchronisation) */
    public long bytesIn() {
        long total = closedBytesIn.sum();
        for (EndPoint endPoint : endPoints) {
            total += endPoint.bytesIn();
        }
        return total;
    }

    /** @return bytes written since start, by closed and open connections */
    public long bytesOut() {
        long total = closedBytesOut.sum();
        for (EndPoint endPoint : endPoints) {
            total += endPoint.bytesOut();
        }
        return total;
    }

    @Override
    public String getDescription() {
        return describe();
    }

    @Override
    public long getOpenConnections() {
        return openConnections();
    }

    @Override
    public long getAcceptedConnections() {
        return acceptedConnections();
    }

    @Override
    public long getMaxOpenConnections() {
        return maxOpenConnections();
    }

    @Override
    public long getBytesIn() {
        return bytesIn();
    }

    @Override
    public long getBytesOut() {
        return bytesOut();
    }

    @Override
    public int getMaxConnections() {
        return config.maxConnections();
    }

    /** @return the selectors of this connector */
    public SelectorManager selectorManager() {
        return selectors;
    }

    /**
     * @return "http/1.1 (h2c) on 0.0.0.0:8080": the default protocol, the others in parentheses, and the address;
     *     with " (PROXY protocol)" after it when a {@link ProxyConnectionFactory} comes first
     */
    public String describe() {
        List<String> protocols = protocols();
        boolean proxy = config.connectionFactories().get(0) instanceof ProxyConnectionFactory && protocols.size() > 1;
        if (proxy) {
            protocols = protocols.subList(1, protocols.size()); // the header is not what the connector serves
        }
        StringBuilder builder = new StringBuilder(protocols.get(0));
        if (protocols.size() > 1) {
            builder.append(" (")
                    .append(String.join(", ", protocols.subList(1, protocols.size())))
                    .append(')');
        }
        builder.append(" on ");
        SocketAddress address = boundAddress;
        if (address instanceof InetSocketAddress inet) {
            // The bound address carries no host name: this prints the numeric form only.
            builder.append(describe(inet));
        } else if (address instanceof UnixDomainSocketAddress unixAddress) {
            builder.append("unix:").append(unixAddress.getPath());
        } else {
            builder.append(config.unixSocket()
                    .map(p -> "unix:" + p)
                    .orElse(config.host().orElse("0.0.0.0") + ":" + config.port()));
        }
        if (proxy) {
            builder.append(" (PROXY protocol)");
        }
        return builder.toString();
    }

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        out.append(toString()).append(System.lineSeparator());
        out.append(indent).append("+- ");
        selectors.dump(out, indent + "   ");
        for (EndPoint endPoint : endPoints) {
            out.append(indent)
                    .append("+- ")
                    .append(String.valueOf(endPoint))
                    .append(" ")
                    .append(String.valueOf(endPoint.connection()))
                    .append(System.lineSeparator());
        }
    }

    @Override
    public String toString() {
        return "ServerConnector@" + Integer.toHexString(hashCode()) + "{" + describe() + ", open=" + openConnections()
                + ", accepted=" + accepted.get() + "}";
    }

    /**
     * What a connector listens on and how; immutable.
     *
     * @param name for thread names and logs
     * @param host the host or address to bind, empty for all interfaces
     * @param port the TCP port, 0 for any free one
     * @param unixSocket a Unix-domain socket path instead of host and port
     * @param acceptQueueSize the kernel's accept backlog
     * @param acceptors how many acceptor threads
     * @param selectors how many selectors
     * @param maxConnections the cap on open connections, 0 or less for none
     * @param idleTimeout how long a connection may be idle before it is closed
     * @param connectionFactories the protocols, default first
     */
    public record Config(
            String name,
            Optional<String> host,
            int port,
            Optional<Path> unixSocket,
            int acceptQueueSize,
            int acceptors,
            int selectors,
            int maxConnections,
            Duration idleTimeout,
            List<ConnectionFactory> connectionFactories) {

        /** Validates and copies. */
        public Config {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(unixSocket, "unixSocket");
            Objects.requireNonNull(idleTimeout, "idleTimeout");
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be 0-65535, was " + port);
            }
            if (acceptQueueSize < 1) {
                throw new IllegalArgumentException("acceptQueueSize must be >= 1, was " + acceptQueueSize);
            }
            if (acceptors < 1) {
                throw new IllegalArgumentException("acceptors must be >= 1, was " + acceptors);
            }
            if (selectors < 1) {
                throw new IllegalArgumentException("selectors must be >= 1, was " + selectors);
            }
            connectionFactories = List.copyOf(connectionFactories);
            if (connectionFactories.isEmpty()) {
                throw new IllegalArgumentException("at least one connection factory is needed");
            }
        }
    }
}
