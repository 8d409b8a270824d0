package dev.quarry.io;

import dev.quarry.core.Callback;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * The decrypted side of a {@link TlsConnection}: the endpoint the negotiated protocol reads and writes plaintext on.
 * Reading, writing and closing go through the TLS connection (which owns the engine and the network endpoint);
 * addresses, idle timeout and byte counts are the network endpoint's (bytes are counted as they travel, encrypted).
 * Files cannot be sent zero-copy: their bytes must be encrypted, so {@link #canTransferFiles()} is false.
 *
 * <p>Thread-safety: as {@link EndPoint}.
 */
final class TlsEndPoint implements EndPoint {
    private final TlsConnection tls;
    private final EndPoint network;
    private volatile Connection connection;

    TlsEndPoint(TlsConnection tls, EndPoint network) {
        this.tls = tls;
        this.network = network;
    }

    @Override
    public SocketAddress localAddress() {
        return network.localAddress();
    }

    @Override
    public SocketAddress remoteAddress() {
        return network.remoteAddress();
    }

    @Override
    public boolean isOpen() {
        return network.isOpen();
    }

    @Override
    public boolean isSecure() {
        return true;
    }

    @Override
    public Optional<ProxyHeader> proxyHeader() {
        return network.proxyHeader();
    }

    @Override
    public int fill(ByteBuffer buffer) throws IOException {
        return tls.fill(buffer);
    }

    @Override
    public boolean flush(ByteBuffer... buffers) throws IOException {
        return tls.flush(buffers);
    }

    @Override
    public void fillInterested(Callback callback) {
        tls.fillInterested(callback);
    }

    @Override
    public boolean isFillInterested() {
        return tls.isFillInterestedUpper();
    }

    @Override
    public boolean wakeFill() {
        return tls.wakeFill();
    }

    @Override
    public void write(Callback callback, ByteBuffer... buffers) {
        tls.write(callback, buffers);
    }

    @Override
    public void shutdownOutput() {
        tls.shutdownOutput(-1);
    }

    @Override
    public void closeLingering(long lingerMillis) {
        tls.shutdownOutput(Math.max(0, lingerMillis));
    }

    @Override
    public boolean isOutputShutdown() {
        return tls.isOutputClosed() || network.isOutputShutdown();
    }

    @Override
    public boolean isInputShutdown() {
        return tls.isInputEnded() || !network.isOpen();
    }

    @Override
    public void close() {
        tls.close(null);
    }

    @Override
    public void close(Throwable cause) {
        tls.close(cause);
    }

    @Override
    public void abort() {
        network.abort();
    }

    @Override
    public Connection connection() {
        return connection;
    }

    @Override
    public void setConnection(Connection connection) {
        this.connection = connection;
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
        return "TlsEndPoint@" + Integer.toHexString(hashCode()) + "{" + tls.tlsProtocol() + " over " + network + "}";
    }
}
