package dev.quarry.bench.clientpool;

import dev.quarry.client.ConnectionPoolKind;
import dev.quarry.client.internal.ConnectionPool;
import dev.quarry.core.pool.Pool;
import java.util.concurrent.ThreadLocalRandom;
import org.eclipse.jetty.client.AbstractConnectionPool;
import org.eclipse.jetty.client.Connection;
import org.eclipse.jetty.client.DuplexConnectionPool;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.MultiplexConnectionPool;
import org.eclipse.jetty.client.Origin;
import org.eclipse.jetty.client.RandomConnectionPool;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.RoundRobinConnectionPool;
import org.eclipse.jetty.client.transport.HttpDestination;
import org.eclipse.jetty.util.Attachable;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The client connection pools of Jetty's lock-free pool article, measured the way Jetty measures its own: take a
 * connection, do a little work with it (10-20 tokens of CPU), give it back; 1, 2 and 4 threads on one pool of
 * {@link #CONNECTIONS} connections that are all open (fake connections: no socket, so that only the pool is measured).
 *
 * <p><b>Quarry</b>: {@link ConnectionPool}, the class each destination of Quarry's client holds, constructed exactly as
 * a destination constructs it (kind, max connections, no max usage, no cache, no max duration) with the client's
 * acquire (skips closed and expired connections) and release (refuses worn-out and expired ones). What the benchmark
 * leaves out on Quarry's side is what it also leaves out on Jetty's: the request queue in front of the pool.
 *
 * <p><b>Jetty 12</b>: its client pools ({@link DuplexConnectionPool}, {@link MultiplexConnectionPool},
 * {@link RoundRobinConnectionPool}, {@link RandomConnectionPool}) on a real, unstarted {@link HttpDestination}, filled
 * through {@link AbstractConnectionPool#accept(Connection)}, used with {@code acquire(true)} and
 * {@code release(connection)} as its {@code HttpDestination} does (acquire, with a try to create when none is idle,
 * which a full pool refuses).
 *
 * <p>One benchmark method per thread count ({@code @Threads} 1, 2, 4): JMH's thread count is per run, not a parameter.
 */
@BenchmarkMode(Mode.Throughput)
public class ClientPoolBenchmark {
    /** Connections per pool: one per thread at the most threads measured. */
    static final int CONNECTIONS = 4;
    /** Requests per HTTP/2 connection at once, in the multiplex rows. */
    static final int MAX_MULTIPLEX = 4;

    /** How often an acquire found nothing and was retried, per iteration. */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class Misses {
        public long misses;

        @Setup(Level.Iteration)
        public void reset() {
            misses = 0;
        }
    }

    /** A pooled connection of Quarry's pool: open, created at setup. */
    static final class QuarryConnection {
        final long createdNanos = System.nanoTime();
        volatile boolean open = true;
    }

    @State(Scope.Benchmark)
    public static class QuarryPool {
        @Param({"duplex", "multiplex", "round-robin", "random"})
        public String type;

        ConnectionPool<QuarryConnection> pool;

        @Setup
        public void setup() {
            ConnectionPoolKind kind = switch (type) {
                case "duplex", "multiplex" -> ConnectionPoolKind.FIRST;
                case "round-robin" -> ConnectionPoolKind.ROUND_ROBIN;
                case "random" -> ConnectionPoolKind.RANDOM;
                default -> throw new IllegalArgumentException("unknown pool type: " + type);
            };
            pool = new ConnectionPool<>(
                    kind,
                    CONNECTIONS,
                    0,
                    0,
                    0,
                    connection -> connection.open,
                    connection -> connection.createdNanos,
                    entry -> {
                        throw new IllegalStateException("no connection is ever retired here: " + entry);
                    });
            if (type.equals("multiplex")) {
                pool.pool().maxMultiplex(MAX_MULTIPLEX); // as an HTTP/2 connection's SETTINGS set it
            }
            for (int i = 0; i < CONNECTIONS; i++) {
                pool.pool().reserve().enable(new QuarryConnection(), false);
            }
        }
    }

    /** A pooled connection of Jetty's pool: never closed, and attachable as Jetty's pools require. */
    static final class JettyConnection implements Connection, Attachable {
        private Object attachment;

        @Override
        public void send(Request request, Response.CompleteListener listener) {
            throw new UnsupportedOperationException("a fake connection sends nothing");
        }

        @Override
        public void close() {}

        @Override
        public boolean isClosed() {
            return false;
        }

        @Override
        public void setAttachment(Object attachment) {
            this.attachment = attachment;
        }

        @Override
        public Object getAttachment() {
            return attachment;
        }
    }

    @State(Scope.Benchmark)
    public static class JettyPool {
        @Param({"duplex", "multiplex", "round-robin", "random"})
        public String type;

        HttpClient client;
        AbstractConnectionPool pool;

        @Setup
        public void setup() throws Exception {
            client = new HttpClient();
            HttpDestination destination = new HttpDestination(client, new Origin("http", "localhost", 8080));
            pool = switch (type) {
                case "duplex" -> new DuplexConnectionPool(destination, CONNECTIONS);
                case "multiplex" -> new MultiplexConnectionPool(destination, CONNECTIONS, MAX_MULTIPLEX);
                case "round-robin" -> new RoundRobinConnectionPool(destination, CONNECTIONS);
                case "random" -> new RandomConnectionPool(destination, CONNECTIONS, 1);
                default -> throw new IllegalArgumentException("unknown pool type: " + type);
            };
            pool.start();
            for (int i = 0; i < CONNECTIONS; i++) {
                if (!pool.accept(new JettyConnection())) {
                    throw new IllegalStateException("Jetty's pool refused a connection: " + pool);
                }
            }
        }

        @TearDown
        public void tearDown() throws Exception {
            pool.stop();
        }
    }

    static void quarry(QuarryPool state, Misses misses) {
        ConnectionPool<QuarryConnection> pool = state.pool;
        Pool.Entry<QuarryConnection> entry = pool.acquire();
        while (entry == null) {
            misses.misses++;
            Thread.onSpinWait();
            entry = pool.acquire();
        }
        Blackhole.consumeCPU(ThreadLocalRandom.current().nextInt(10, 20));
        if (!pool.release(entry)) {
            throw new IllegalStateException("release refused: " + entry);
        }
    }

    static void jetty(JettyPool state, Misses misses) {
        AbstractConnectionPool pool = state.pool;
        Connection connection = pool.acquire(true);
        while (connection == null) {
            misses.misses++;
            Thread.onSpinWait();
            connection = pool.acquire(true);
        }
        Blackhole.consumeCPU(ThreadLocalRandom.current().nextInt(10, 20));
        if (!pool.release(connection)) {
            throw new IllegalStateException("release refused: " + connection);
        }
    }

    @Benchmark
    @Threads(1)
    public void quarryT1(QuarryPool state, Misses misses) {
        quarry(state, misses);
    }

    @Benchmark
    @Threads(2)
    public void quarryT2(QuarryPool state, Misses misses) {
        quarry(state, misses);
    }

    @Benchmark
    @Threads(4)
    public void quarryT4(QuarryPool state, Misses misses) {
        quarry(state, misses);
    }

    @Benchmark
    @Threads(1)
    public void jettyT1(JettyPool state, Misses misses) {
        jetty(state, misses);
    }

    @Benchmark
    @Threads(2)
    public void jettyT2(JettyPool state, Misses misses) {
        jetty(state, misses);
    }

    @Benchmark
    @Threads(4)
    public void jettyT4(JettyPool state, Misses misses) {
        jetty(state, misses);
    }
}
