package dev.quarry.io;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.timer.Timeout;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The first connection of an endpoint on a connector that accepts the PROXY protocol: reads the header (version 1 or
 * 2, detected from the first bytes) without blocking, as its segments arrive, then hands the endpoint, seen through a
 * {@link ProxyEndPoint} that reports the header's addresses, to the next protocol's connection, with the bytes read
 * past the header. Bytes that start with neither signature are no header: the next protocol gets them unchanged and
 * the connection's own addresses stand.
 *
 * <p>A header that breaks the specification, a connection that ends inside it, and a header not complete within the
 * timeout close the connection; each is logged at DEBUG (a peer fault) and counted by the factory.
 *
 * <p>Thread-safety: reads run one at a time (one fill interest); the header timeout races them through one CAS on
 * {@link #state}, so exactly one of the two decides.
 */
final class ProxyConnection extends AbstractConnection {
    private static final System.Logger LOG = System.getLogger(ProxyConnection.class.getName());
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(ProxyConnection.class, "state", int.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private static final int READING = 0;
    private static final int DONE = 1;
    // Enough for any version 1 line and the version 2 headers proxies usually send; grown for longer ones.
    private static final int INITIAL_BUFFER = 256;

    private final ServerConnector connector;
    private final ProxyConnectionFactory factory;
    private ByteBuffer buffer = ByteBuffer.allocate(INITIAL_BUFFER);
    private Timeout timeout;

    @SuppressWarnings("unused") // through STATE
    private volatile int state;

    ProxyConnection(ServerConnector connector, EndPoint endPoint, ProxyConnectionFactory factory) {
        super(endPoint);
        this.connector = connector;
        this.factory = factory;
    }

    @Override
    public String protocol() {
        return "proxy";
    }

    @Override
    protected InvocationType readInvocationType() {
        return InvocationType.NON_BLOCKING; // copies and compares a few bytes; the next protocol's opening is its own
    }

    @Override
    public void onOpen() {
        long millis = factory.headerTimeout().toMillis();
        if (millis > 0) {
            timeout = factory.timer()
                    .schedule(
                            Invocable.task(InvocationType.NON_BLOCKING, this::onHeaderTimeout),
                            millis,
                            TimeUnit.MILLISECONDS);
        }
        super.onOpen();
    }

    @Override
    protected void onFillable() {
        if (state != READING) {
            return;
        }
        EndPoint endPoint = endPoint();
        try {
            while (true) {
                int read = endPoint.fill(buffer);
                if (read < 0) {
                    reject("the connection ended after " + buffer.position() + " bytes of a PROXY protocol header");
                    return;
                }
                int length = ProxyHeaderParser.headerLength(buffer.array(), buffer.position(), factory.maxHeaderSize());
                if (length == ProxyHeaderParser.NOT_PROXY) {
                    handOver(Optional.empty(), 0);
                    return;
                }
                if (length > 0) {
                    handOver(Optional.of(ProxyHeaderParser.parse(buffer.array(), length)), length);
                    return;
                }
                if (!buffer.hasRemaining()) {
                    grow();
                } else if (read == 0) {
                    fillInterested();
                    return;
                }
            }
        } catch (BadProxyHeaderException x) {
            reject(x.getMessage());
        } catch (IOException x) {
            if (finish()) {
                LOG.log(
                        Level.DEBUG,
                        () -> "reading a PROXY protocol header from " + endPoint.remoteAddress() + " failed: " + x);
                endPoint.close(x);
            }
        }
    }

    // headerLength threw before a version 2 header could pass the limit, and version 1 stops at 107 bytes: the
    // buffer never grows past the limit.
    private void grow() {
        ByteBuffer bigger = ByteBuffer.allocate(Math.min(buffer.capacity() * 2, factory.maxHeaderSize()));
        buffer.flip();
        bigger.put(buffer);
        buffer = bigger;
    }

    private void handOver(Optional<ProxyHeader> header, int length) {
        if (!finish()) {
            return; // timed out meanwhile: the endpoint is closed
        }
        EndPoint network = endPoint();
        ByteBuffer leftover = buffer.flip().position(length).slice();
        buffer = null;
        EndPoint proxied = new ProxyEndPoint(network, header, leftover, factory.executor());
        if (header.isPresent()) {
            factory.accepted.increment();
            LOG.log(
                    Level.DEBUG,
                    () -> "PROXY protocol v" + header.get().version() + " header from " + network.remoteAddress()
                            + ": client " + proxied.remoteAddress());
        } else {
            factory.withoutHeader.increment();
        }
        Connection next = factory.next().newConnection(connector, proxied);
        network.setConnection(next);
        next.onOpen();
    }

    private void reject(String reason) {
        if (finish()) {
            factory.rejected.increment();
            LOG.log(Level.DEBUG, () -> "closing " + endPoint().remoteAddress() + ": " + reason);
            endPoint().close(new IOException(reason));
        }
    }

    private void onHeaderTimeout() {
        if (STATE.compareAndSet(this, READING, DONE)) {
            factory.rejected.increment();
            String reason = "no complete PROXY protocol header within "
                    + factory.headerTimeout().toMillis() + " ms";
            LOG.log(Level.DEBUG, () -> "closing " + endPoint().remoteAddress() + ": " + reason);
            endPoint().close(new IOException(reason));
        }
    }

    /** @return whether this thread decided the header's fate (the timeout had not) */
    private boolean finish() {
        if (!STATE.compareAndSet(this, READING, DONE)) {
            return false;
        }
        Timeout pending = timeout;
        if (pending != null) {
            pending.cancel();
        }
        return true;
    }

    @Override
    public void onClose(Throwable cause) {
        finish();
    }

    @Override
    public String toString() {
        return "ProxyConnection@" + Integer.toHexString(hashCode()) + "{" + (state == READING ? "reading" : "done")
                + ", " + endPoint() + "}";
    }
}
