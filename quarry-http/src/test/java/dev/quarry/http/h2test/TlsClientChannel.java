package dev.quarry.http.h2test;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * The client side of TLS over a connected {@link SocketChannel}, for test clients that speak raw bytes (HTTP/1.1 or
 * HTTP/2 frames) and must also run over HTTPS: a {@link ByteChannel} of decrypted bytes over the JDK's
 * {@link SSLEngine}, with the ALPN protocols the test asks for.
 *
 * <p>It follows the channel's blocking mode: on a non-blocking channel {@link #read} and {@link #write} return 0 when
 * the socket has nothing or takes nothing (then wait for the socket's readiness, as without TLS); on a blocking one they
 * block. The handshake itself is done by {@link #handshake} (bounded in time, whatever the mode). A close_notify from
 * the server reads as the end of the stream, as does a FIN without one. Post-handshake messages are handled: session
 * tickets are absorbed, and a TLS 1.3 KeyUpdate asking for ours is answered from the reading thread.
 *
 * <p>Thread-safety: one thread may read while another writes (the engine allows wrap and unwrap to run concurrently);
 * writes to the socket are serialised by a lock, since a read may have to answer the peer. Each of read and write is
 * for one thread at a time.
 */
public final class TlsClientChannel implements ByteChannel {
    private final SocketChannel channel;
    private final SSLEngine engine;
    private final ReentrantLock writeLock = new ReentrantLock();
    // Reader state, owned by the reading thread.
    private ByteBuffer netIn;
    private ByteBuffer appIn;
    private boolean inputEnded;
    // Guarded by writeLock: encrypted bytes the socket did not take yet.
    private ByteBuffer netOut;
    // Handshake only: how to cut the first flight, until it is sent.
    private Function<ByteBuffer, List<ByteBuffer>> firstFlight;

    private TlsClientChannel(SocketChannel channel, SSLEngine engine) {
        this.channel = channel;
        this.engine = engine;
        int packet = engine.getSession().getPacketBufferSize();
        this.netIn = ByteBuffer.allocate(packet).flip();
        this.appIn = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize())
                .flip();
        this.netOut = ByteBuffer.allocate(packet).flip();
    }

    /**
     * Completes a TLS handshake over a connected channel, leaving the channel in its blocking mode.
     *
     * @param channel the connected channel
     * @param context the client context (which certificates it trusts)
     * @param host the host name the certificate must match (and SNI, if a name)
     * @param port the port, for the session cache
     * @param alpn the application protocols to offer, in order of preference (none: no ALPN extension)
     * @param timeout how long the handshake may take
     * @return the channel of decrypted bytes
     * @throws IOException if the handshake fails or times out
     */
    public static TlsClientChannel handshake(
            SocketChannel channel, SSLContext context, String host, int port, List<String> alpn, Duration timeout)
            throws IOException {
        return handshake(channel, context, host, port, alpn, timeout, null);
    }

    /**
     * Completes a TLS handshake as {@link #handshake(SocketChannel, SSLContext, String, int, List, Duration)} does,
     * but sends the client's first flight (the ClientHello) cut as {@code firstFlight} says: each buffer it returns is
     * written on its own (with {@code TCP_NODELAY}, its own TCP segment, as far as the kernel goes).
     *
     * @param firstFlight cuts the encrypted first flight (its records) into the pieces to write, or null
     */
    public static TlsClientChannel handshake(
            SocketChannel channel,
            SSLContext context,
            String host,
            int port,
            List<String> alpn,
            Duration timeout,
            Function<ByteBuffer, List<ByteBuffer>> firstFlight)
            throws IOException {
        SSLEngine engine = context.createSSLEngine(host, port);
        engine.setUseClientMode(true);
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        if (!alpn.isEmpty()) {
            parameters.setApplicationProtocols(alpn.toArray(String[]::new));
        }
        engine.setSSLParameters(parameters);
        TlsClientChannel tls = new TlsClientChannel(channel, engine);
        tls.firstFlight = firstFlight;
        boolean blocking = channel.isBlocking();
        channel.configureBlocking(false);
        try (Selector selector = Selector.open()) {
            SelectionKey key = channel.register(selector, 0);
            tls.runHandshake(selector, key, System.nanoTime() + timeout.toNanos(), timeout);
            key.cancel();
            selector.selectNow(); // deregisters, so that the channel may become blocking again
        } finally {
            channel.configureBlocking(blocking);
        }
        return tls;
    }

    private void runHandshake(Selector selector, SelectionKey key, long deadline, Duration timeout) throws IOException {
        engine.beginHandshake();
        while (true) {
            SSLEngineResult.HandshakeStatus status = engine.getHandshakeStatus();
            switch (status) {
                case NEED_TASK -> {
                    Runnable task;
                    while ((task = engine.getDelegatedTask()) != null) {
                        task.run();
                    }
                }
                case NEED_WRAP -> {
                    if (firstFlight != null) {
                        sendFirstFlight(selector, key, deadline, timeout);
                    } else {
                        wrapAndFlush(ByteBuffer.allocate(0));
                        awaitFlushed(selector, key, deadline, timeout);
                    }
                }
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                    int before = appIn.remaining();
                    if (!unwrapOnce()) {
                        if (inputEnded) {
                            throw new EOFException("the server closed the connection during the TLS handshake");
                        }
                        awaitSocket(selector, key, SelectionKey.OP_READ, deadline, timeout);
                    } else if (appIn.remaining() != before) {
                        // Application data already (cannot happen before Finished, but keep it rather than drop it).
                        continue;
                    }
                }
                case FINISHED, NOT_HANDSHAKING -> {
                    awaitFlushed(selector, key, deadline, timeout);
                    return;
                }
            }
        }
    }

    private void sendFirstFlight(Selector selector, SelectionKey key, long deadline, Duration timeout)
            throws IOException {
        ByteBuffer flight = ByteBuffer.allocate(4 * engine.getSession().getPacketBufferSize());
        while (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
            SSLEngineResult result = engine.wrap(ByteBuffer.allocate(0), flight);
            if (result.getStatus() != SSLEngineResult.Status.OK || result.bytesProduced() == 0) {
                break;
            }
        }
        List<ByteBuffer> pieces = firstFlight.apply(flight.flip());
        firstFlight = null;
        channel.setOption(java.net.StandardSocketOptions.TCP_NODELAY, true);
        for (ByteBuffer piece : pieces) {
            while (piece.hasRemaining()) {
                if (channel.write(piece) == 0) {
                    awaitSocket(selector, key, SelectionKey.OP_WRITE, deadline, timeout);
                }
            }
        }
    }

    private void awaitFlushed(Selector selector, SelectionKey key, long deadline, Duration timeout) throws IOException {
        while (!flush()) {
            awaitSocket(selector, key, SelectionKey.OP_WRITE, deadline, timeout);
        }
    }

    private void awaitSocket(Selector selector, SelectionKey key, int op, long deadline, Duration timeout)
            throws IOException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new SocketTimeoutException(
                    "TLS handshake not done after " + timeout + " (" + engine.getHandshakeStatus() + ")");
        }
        key.interestOps(op);
        selector.select(Math.max(1, left / 1_000_000));
        selector.selectedKeys().clear();
        key.interestOps(0);
    }

    /** @return the protocol ALPN chose ({@code h2}, {@code http/1.1}), or empty if none */
    public String applicationProtocol() {
        String protocol = engine.getApplicationProtocol();
        return protocol == null ? "" : protocol;
    }

    /** @return the engine, to look at the session */
    public SSLEngine engine() {
        return engine;
    }

    /**
     * Unwraps one record, reading the socket once if no whole record is buffered.
     *
     * @return whether progress was made (a record unwrapped or bytes read); false if the socket had nothing (or ended:
     *     then {@link #inputEnded} is set)
     */
    private boolean unwrapOnce() throws IOException {
        while (true) {
            SSLEngineResult result;
            ByteBuffer out = appIn.compact();
            try {
                result = engine.unwrap(netIn, out);
            } finally {
                appIn.flip();
            }
            switch (result.getStatus()) {
                case OK -> {
                    afterUnwrap(result);
                    return true;
                }
                case CLOSED -> {
                    inputEnded = true;
                    afterUnwrap(result);
                    return false;
                }
                case BUFFER_OVERFLOW -> {
                    appIn = grow(appIn, engine.getSession().getApplicationBufferSize());
                }
                case BUFFER_UNDERFLOW -> {
                    if (netIn.limit() == netIn.capacity() && netIn.position() == 0) {
                        netIn = grow(netIn, engine.getSession().getPacketBufferSize());
                    }
                    netIn.compact();
                    int read;
                    try {
                        read = channel.read(netIn);
                    } finally {
                        netIn.flip();
                    }
                    if (read < 0) {
                        inputEnded = true;
                        try {
                            engine.closeInbound();
                        } catch (SSLException truncated) {
                            // A FIN without close_notify: the end of the stream all the same, for a test client.
                        }
                        return false;
                    }
                    if (read == 0) {
                        return false;
                    }
                }
            }
        }
    }

    private void afterUnwrap(SSLEngineResult result) throws IOException {
        SSLEngineResult.HandshakeStatus status = result.getHandshakeStatus();
        while (status == SSLEngineResult.HandshakeStatus.NEED_TASK) {
            Runnable task;
            while ((task = engine.getDelegatedTask()) != null) {
                task.run();
            }
            status = engine.getHandshakeStatus();
        }
        if (status == SSLEngineResult.HandshakeStatus.NEED_WRAP && !engine.isOutboundDone()) {
            // A KeyUpdate that asks for ours, or the answer to a close_notify: sent now, from this thread.
            writeLock.lock();
            try {
                wrapAndFlush(ByteBuffer.allocate(0));
            } finally {
                writeLock.unlock();
            }
        }
    }

    private static ByteBuffer grow(ByteBuffer buffer, int atLeast) {
        ByteBuffer bigger = ByteBuffer.allocate(Math.max(atLeast, buffer.capacity() * 2));
        bigger.put(buffer).flip();
        return bigger;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        while (!appIn.hasRemaining()) {
            if (inputEnded) {
                return -1;
            }
            if (!unwrapOnce() && !inputEnded && !channel.isBlocking()) {
                return 0;
            }
        }
        int n = Math.min(appIn.remaining(), dst.remaining());
        dst.put(dst.position(), appIn, appIn.position(), n);
        dst.position(dst.position() + n);
        appIn.position(appIn.position() + n);
        return n;
    }

    /**
     * Sends what an earlier non-blocking {@link #write} wrapped but the socket did not take.
     *
     * @return whether nothing is left to send (else wait until the socket is writable and call again)
     * @throws IOException if the socket fails
     */
    public boolean flushPending() throws IOException {
        writeLock.lock();
        try {
            return flush();
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        writeLock.lock();
        try {
            if (!flush()) {
                return 0; // the socket did not take the last records yet
            }
            int before = src.remaining();
            wrapAndFlush(src);
            if (channel.isBlocking()) {
                while (src.hasRemaining()) {
                    wrapAndFlush(src);
                }
            }
            return before - src.remaining();
        } finally {
            writeLock.unlock();
        }
    }

    /** Wraps as much of {@code src} as one record takes (handshake messages if the engine has some) and flushes. */
    private void wrapAndFlush(ByteBuffer src) throws IOException {
        while (true) {
            ByteBuffer out = netOut.compact();
            SSLEngineResult result;
            try {
                result = engine.wrap(src, out);
            } finally {
                netOut.flip();
            }
            if (result.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                if (!netOut.hasRemaining()) {
                    netOut = grow(netOut, engine.getSession().getPacketBufferSize());
                } else if (!flush()) {
                    return; // non-blocking, and the socket is full: the caller waits for it
                }
                continue;
            }
            if (result.getStatus() == SSLEngineResult.Status.CLOSED && result.bytesProduced() == 0) {
                if (src.hasRemaining()) {
                    throw new IOException("TLS output closed");
                }
                return;
            }
            flush();
            return;
        }
    }

    /** @return whether every encrypted byte went to the socket */
    private boolean flush() throws IOException {
        while (netOut.hasRemaining()) {
            if (channel.write(netOut) == 0 && !channel.isBlocking()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Half-closes: sends close_notify, then FIN. Reading may go on (TLS 1.3 allows it).
     *
     * @throws IOException if the socket fails
     */
    public void shutdownOutput() throws IOException {
        writeLock.lock();
        try {
            engine.closeOutbound();
            // The socket was drained before (a test half-closes after its request went out): close_notify fits.
            while (!engine.isOutboundDone()) {
                int produced = netOut.remaining();
                wrapAndFlush(ByteBuffer.allocate(0));
                if (netOut.remaining() == produced && !flush()) {
                    break;
                }
            }
            flush();
        } finally {
            writeLock.unlock();
        }
        channel.shutdownOutput();
    }

    @Override
    public boolean isOpen() {
        return channel.isOpen();
    }

    /** Closes the socket at once, without close_notify (a client that goes away): the server sees a truncation. */
    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public String toString() {
        return "TLS " + engine.getSession().getProtocol() + " " + applicationProtocol() + " over " + channel;
    }
}
