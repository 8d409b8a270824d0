package dev.quarry.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A mapped file truncated while {@link TlsConnection} encrypts it: the JVM's fault (an {@link InternalError}) may
 * surface past {@code engine.wrap}, once the copying code is compiled (at the thread's next safepoint poll). Wherever
 * it surfaces in the output path, the write fails with an I/O error naming it and the connection closes: nothing is
 * left pending, nothing leaks.
 */
@ExtendWith(LeakTrackingPoolExtension.class)
class TlsConnectionReadFaultTest {
    /** What compiled code throws for a read of a truncated file's pages, at the first safepoint poll past the copy. */
    private static final String ASYNC_FAULT =
            "a fault occurred in a recent unsafe memory access operation in compiled Java code";

    @Test
    void aFaultSurfacingAfterTheWrapFailsTheWriteAndClosesTheConnection(ByteBufferPool pool) {
        List<Throwable> closes = new CopyOnWriteArrayList<>();
        AtomicReference<TlsConnection> tls = new AtomicReference<>();
        // The fault surfaces in the flush that follows the wrap: a poll in the network endpoint's call.
        EndPoint network = network(closes, tls, () -> {
            throw new InternalError(ASYNC_FAULT);
        });
        TlsConnection connection = open(network, pool, tls);

        List<Throwable> failures = new CopyOnWriteArrayList<>();
        connection
                .decryptedEndPoint()
                .write(
                        Callback.from(
                                InvocationType.NON_BLOCKING,
                                () -> failures.add(new AssertionError("succeeded")),
                                failures::add),
                        ByteBuffer.wrap("a file's bytes".getBytes(StandardCharsets.US_ASCII)));

        assertEquals(1, failures.size(), "the write's callback completed once: " + failures);
        SSLException failure = assertInstanceOf(SSLException.class, failures.get(0));
        assertInstanceOf(InternalError.class, failure.getCause(), "the fault is the cause: a file sender sees it");
        assertEquals(1, closes.size(), "the connection closed");
    }

    @Test
    void anInternalErrorThatIsNoMemoryFaultIsNotMistakenForOne(ByteBufferPool pool) {
        List<Throwable> closes = new CopyOnWriteArrayList<>();
        AtomicReference<TlsConnection> tls = new AtomicReference<>();
        EndPoint network = network(closes, tls, () -> {
            throw new InternalError("a bug");
        });
        TlsConnection connection = open(network, pool, tls);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        Callback recording = Callback.from(
                InvocationType.NON_BLOCKING, () -> failures.add(new AssertionError("succeeded")), failures::add);
        InternalError thrown = assertThrows(
                InternalError.class,
                () -> connection.decryptedEndPoint().write(recording, ByteBuffer.wrap(new byte[] {1, 2, 3})));
        assertEquals("a bug", thrown.getMessage());
        assertEquals(List.of(), failures, "the write is still pending");
        network.close(); // as the selector does with what a connection throws
        assertEquals(1, closes.size());
        assertEquals(1, failures.size(), "the close failed the pending write, once: " + failures);
    }

    /**
     * A handler's connection closes its endpoint when a write fails (HTTP/1.1 does): the records wrapped in the pass
     * the fault interrupted may hold bytes the copy never read, so neither they nor a close_notify are written.
     */
    @Test
    void nothingIsWrittenAfterTheFaultWhenTheFailedWriteClosesTheConnection(ByteBufferPool pool) {
        List<Throwable> closes = new CopyOnWriteArrayList<>();
        AtomicReference<TlsConnection> tls = new AtomicReference<>();
        AtomicBoolean faulted = new AtomicBoolean();
        AtomicInteger flushesAfterFault = new AtomicInteger();
        EndPoint network = network(closes, tls, () -> {
            if (faulted.compareAndSet(false, true)) {
                throw new InternalError(ASYNC_FAULT);
            }
            flushesAfterFault.incrementAndGet();
        });
        TlsConnection connection = open(network, pool, tls);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        connection
                .decryptedEndPoint()
                .write(
                        Callback.from(
                                InvocationType.NON_BLOCKING, () -> failures.add(new AssertionError("succeeded")), x -> {
                                    failures.add(x);
                                    connection.decryptedEndPoint().close(x);
                                }),
                        ByteBuffer.wrap("a file's bytes".getBytes(StandardCharsets.US_ASCII)));

        assertEquals(1, failures.size(), failures::toString);
        assertEquals(0, flushesAfterFault.get(), "nothing is written after the fault, not even close_notify");
        assertEquals(1, closes.size(), "the connection closed");
    }

    /** @return a connection over {@code network} whose (identity) handshake completed */
    private static TlsConnection open(EndPoint network, ByteBufferPool pool, AtomicReference<TlsConnection> tls) {
        TlsConnection connection = new TlsConnection(
                network, new IdentityEngine(), pool, Runnable::run, Runnable::run, TlsConnectionReadFaultTest::upper);
        tls.set(connection);
        connection.onOpen();
        assertTrue(connection.isHandshakeComplete());
        return connection;
    }

    /**
     * @return a network endpoint whose flush runs {@code onFlush}; writes complete at once; its close tells the TLS
     *     connection, as a real endpoint does
     */
    private static EndPoint network(List<Throwable> closes, AtomicReference<TlsConnection> tls, Runnable onFlush) {
        return (EndPoint) Proxy.newProxyInstance(
                EndPoint.class.getClassLoader(), new Class<?>[] {EndPoint.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "flush" -> {
                            onFlush.run();
                            return true;
                        }
                        case "write" -> {
                            ((Callback) args[0]).succeeded();
                            return null;
                        }
                        case "close", "closeLingering", "abort" -> {
                            Throwable cause =
                                    args != null && args.length > 0 && args[0] instanceof Throwable t ? t : null;
                            if (closes.isEmpty()) {
                                closes.add(cause == null ? new IllegalStateException("closed") : cause);
                                tls.get().onClose(cause);
                            }
                            return null;
                        }
                        case "isOpen" -> {
                            return closes.isEmpty();
                        }
                        case "toString" -> {
                            return "FaultingNetwork";
                        }
                        default -> {
                            Class<?> type = method.getReturnType();
                            return type == long.class ? 0L : type == boolean.class ? false : null;
                        }
                    }
                });
    }

    private static Connection upper(TlsConnection tls) {
        return new Connection() {
            @Override
            public EndPoint endPoint() {
                return tls.decryptedEndPoint();
            }

            @Override
            public String protocol() {
                return "test";
            }

            @Override
            public void onOpen() {}

            @Override
            public void onClose(Throwable cause) {}
        };
    }

    /** An engine whose handshake is done at once and whose records are the plaintext: enough to drive the output. */
    private static final class IdentityEngine extends SSLEngine {
        private final SSLSession session = (SSLSession) Proxy.newProxyInstance(
                SSLSession.class.getClassLoader(),
                new Class<?>[] {SSLSession.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getPacketBufferSize" -> 16_709;
                    case "getApplicationBufferSize" -> 16_384;
                    case "getProtocol" -> "TLSv1.3";
                    case "toString" -> "IdentitySession";
                    default -> null;
                });
        private boolean outboundDone;

        @Override
        public SSLEngineResult wrap(ByteBuffer[] sources, int offset, int length, ByteBuffer destination) {
            if (outboundDone) {
                return new SSLEngineResult(
                        SSLEngineResult.Status.CLOSED, SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING, 0, 0);
            }
            int copied = 0;
            for (int i = offset; i < offset + length && destination.hasRemaining(); i++) {
                ByteBuffer source = sources[i];
                int n = Math.min(source.remaining(), destination.remaining());
                destination.put(source.slice(source.position(), n));
                source.position(source.position() + n);
                copied += n;
            }
            return new SSLEngineResult(
                    SSLEngineResult.Status.OK, SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING, copied, copied);
        }

        @Override
        public SSLEngineResult unwrap(ByteBuffer source, ByteBuffer[] destinations, int offset, int length) {
            return new SSLEngineResult(
                    SSLEngineResult.Status.BUFFER_UNDERFLOW, SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING, 0, 0);
        }

        @Override
        public Runnable getDelegatedTask() {
            return null;
        }

        @Override
        public void closeInbound() {}

        @Override
        public boolean isInboundDone() {
            return false;
        }

        @Override
        public void closeOutbound() {
            outboundDone = true;
        }

        @Override
        public boolean isOutboundDone() {
            return outboundDone;
        }

        @Override
        public String[] getSupportedCipherSuites() {
            return new String[0];
        }

        @Override
        public String[] getEnabledCipherSuites() {
            return new String[0];
        }

        @Override
        public void setEnabledCipherSuites(String[] suites) {}

        @Override
        public String[] getSupportedProtocols() {
            return new String[] {"TLSv1.3"};
        }

        @Override
        public String[] getEnabledProtocols() {
            return new String[] {"TLSv1.3"};
        }

        @Override
        public void setEnabledProtocols(String[] protocols) {}

        @Override
        public SSLSession getSession() {
            return session;
        }

        @Override
        public void beginHandshake() {}

        @Override
        public SSLEngineResult.HandshakeStatus getHandshakeStatus() {
            return SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING;
        }

        @Override
        public void setUseClientMode(boolean mode) {}

        @Override
        public boolean getUseClientMode() {
            return true; // a client begins its handshake on opening: here it completes at once
        }

        @Override
        public void setNeedClientAuth(boolean need) {}

        @Override
        public boolean getNeedClientAuth() {
            return false;
        }

        @Override
        public void setWantClientAuth(boolean want) {}

        @Override
        public boolean getWantClientAuth() {
            return false;
        }

        @Override
        public void setEnableSessionCreation(boolean flag) {}

        @Override
        public boolean getEnableSessionCreation() {
            return false;
        }

        @Override
        public String getApplicationProtocol() {
            return "";
        }
    }
}
