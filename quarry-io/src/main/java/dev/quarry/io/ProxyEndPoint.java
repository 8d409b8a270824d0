package dev.quarry.io;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadPendingException;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * The network endpoint as the protocol after a PROXY protocol header sees it: the addresses are the ones the header
 * carried (the client's, not the proxy's), and the bytes that arrived with the header but after it are read first.
 * Everything else is the network endpoint's, including the connection it reports and the idle timeout.
 *
 * <p>The bytes read past the header are served by {@link #fill} before the socket is read again; a fill interest
 * asked while some are left is completed at once, on the executor (never recursively on the asking thread, and
 * never on a selector thread when the reader may block), because the selector would not report bytes that were
 * already read.
 *
 * <p>Thread-safety: as {@link EndPoint}. The leftover bytes are touched by the reading thread only (one fill
 * interest at a time orders the readers).
 */
final class ProxyEndPoint implements EndPoint {
    private final EndPoint network;
    private final Optional<ProxyHeader> header;
    private final SocketAddress localAddress;
    private final SocketAddress remoteAddress;
    private final Executor executor;
    private ByteBuffer leftover;
    private volatile Callback leftoverReader;

    /**
     * @param network the endpoint that read the header
     * @param header the header, or empty when the connection sent none (only the leftover bytes matter then)
     * @param leftover the bytes read after the header, in drain mode; owned by this endpoint from now on
     * @param executor completes fill interests while leftover bytes remain
     */
    ProxyEndPoint(EndPoint network, Optional<ProxyHeader> header, ByteBuffer leftover, Executor executor) {
        this.network = network;
        this.header = header;
        this.leftover = leftover.hasRemaining() ? leftover : null;
        this.executor = executor;
        this.remoteAddress = header.flatMap(ProxyHeader::source).orElse(network.remoteAddress());
        this.localAddress = header.flatMap(ProxyHeader::destination).orElse(network.localAddress());
    }

    @Override
    public SocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public SocketAddress remoteAddress() {
        return remoteAddress;
    }

    @Override
    public Optional<ProxyHeader> proxyHeader() {
        return header;
    }

    @Override
    public boolean isOpen() {
        return network.isOpen();
    }

    @Override
    public boolean isSecure() {
        return network.isSecure();
    }

    @Override
    public int fill(ByteBuffer buffer) throws IOException {
        ByteBuffer left = leftover;
        if (left == null) {
            return network.fill(buffer);
        }
        if (!network.isOpen()) {
            return -1;
        }
        int count = Math.min(buffer.remaining(), left.remaining());
        buffer.put(buffer.position(), left, left.position(), count);
        buffer.position(buffer.position() + count);
        left.position(left.position() + count);
        if (!left.hasRemaining()) {
            leftover = null;
        }
        return count;
    }

    @Override
    public boolean flush(ByteBuffer... buffers) throws IOException {
        return network.flush(buffers);
    }

    @Override
    public void fillInterested(Callback callback) {
        if (leftover == null) {
            network.fillInterested(callback);
            return;
        }
        if (leftoverReader != null || network.isFillInterested()) {
            throw new ReadPendingException();
        }
        leftoverReader = callback;
        executor.execute(Invocable.task(callback.invocationType(), () -> {
            leftoverReader = null;
            callback.succeeded();
        }));
    }

    @Override
    public boolean isFillInterested() {
        return leftoverReader != null || network.isFillInterested();
    }

    @Override
    public boolean wakeFill() {
        return network.wakeFill();
    }

    @Override
    public void write(Callback callback, ByteBuffer... buffers) {
        network.write(callback, buffers);
    }

    @Override
    public boolean canTransferFiles() {
        return network.canTransferFiles();
    }

    @Override
    public void transfer(Callback callback, FileChannel file, long position, long count) {
        network.transfer(callback, file, position, count);
    }

    @Override
    public void shutdownOutput() {
        network.shutdownOutput();
    }

    @Override
    public void closeLingering(long lingerMillis) {
        network.closeLingering(lingerMillis);
    }

    @Override
    public boolean isOutputShutdown() {
        return network.isOutputShutdown();
    }

    @Override
    public boolean isInputShutdown() {
        return leftover == null && network.isInputShutdown();
    }

    @Override
    public void close() {
        network.close();
    }

    @Override
    public void close(Throwable cause) {
        network.close(cause);
    }

    @Override
    public void abort() {
        network.abort();
    }

    @Override
    public Connection connection() {
        return network.connection();
    }

    @Override
    public void setConnection(Connection connection) {
        network.setConnection(connection);
    }

    @Override
    public long idleTimeout() {
        return network.idleTimeout();
    }

    @Override
    public void setIdleTimeout(long millis) {
        network.setIdleTimeout(millis);
    }

    @Override
    public long bytesIn() {
        return network.bytesIn();
    }

    @Override
    public long bytesOut() {
        return network.bytesOut();
    }

    @Override
    public long createdNanos() {
        return network.createdNanos();
    }

    @Override
    public String toString() {
        return "ProxyEndPoint@" + Integer.toHexString(hashCode()) + "{" + remoteAddress + " via " + network + "}";
    }
}
