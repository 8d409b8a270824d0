package dev.quarry.io;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.buffer.RetainableByteBuffer;
import java.io.EOFException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ReadPendingException;
import java.nio.channels.WritePendingException;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Function;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * TLS over a network {@link EndPoint}, with the JDK's {@link SSLEngine}: this connection owns the network endpoint
 * and presents a decrypted endpoint ({@link #decryptedEndPoint()}) to the protocol negotiated by ALPN, which runs over
 * it unchanged (HTTP/1.1 and HTTP/2 do not know that they are encrypted).
 *
 * <p>Reads stay demand-driven: nothing is read from the network until the protocol above asks for fill interest on
 * the decrypted endpoint, which becomes fill interest on the network endpoint (unless decrypted or complete encrypted
 * records are buffered already, in which case the reader is woken at once). {@code fill} reads the network and unwraps
 * records straight into the reader's buffer when it has room for a whole record, else into a buffer of ours that it
 * then copies from, until the engine produces nothing more. Writes wrap the caller's buffers into records (the engine
 * gathers small buffers into one record of up to 16 KiB) and several records into one network write.
 *
 * <p>The handshake is driven by reads (the client's flights), writes (our flights, when the socket does not take them
 * at once) and delegated tasks; the tasks ({@link SSLEngine#getDelegatedTask()}: key exchange, signatures, certificate
 * checks) are blocking CPU work and always run on the handshake executor, never on the thread that read the bytes.
 * The handshake's steps after a read or a write run there too, because the engine also blocks inside {@code unwrap} (a
 * TLS 1.3 server makes its session ticket from {@code /dev/urandom} there): the read and write callbacks only hand the
 * step over (they are non-blocking, so a selector runs them itself), and a selector never runs a handshake step. A
 * server gives the handshake executor threads of their own (not its handlers' pool), so that handlers blocked in the
 * pool never hold up new connections' handshakes; non-blocking readers are woken there too, for the same reason. While
 * a task runs, nobody touches the engine (its internal lock is held by the task). When the handshake completes, the
 * next protocol's connection is created by the function given to the constructor and opened, in non-blocking mode.
 *
 * <p>Renegotiation is refused: a handshake that starts after the first one completed (TLS 1.2 only; TLS 1.3 has no
 * renegotiation) closes the connection. TLS 1.3 post-handshake messages (key updates) are served.
 *
 * <p>Closing: {@code shutdownOutput} and {@code closeLingering} send close_notify before the TCP FIN, the latter then
 * waiting (bounded) for the peer to close; {@code close} sends close_notify if the socket takes it at once, then
 * closes. A peer's close_notify ends the input ({@code fill} returns -1) and leaves the output open (half-close), as
 * TLS 1.3 allows; a TCP end of stream without close_notify (truncation) ends the input too.
 *
 * <p>Buffers come from the retainable pool, sized from the session (packet and application buffer sizes) and grown
 * once if the engine asks for more. They go back to the pool whenever they hold nothing: the input buffers when a read
 * found the network drained, the output buffer when a write completed, all of them when the handshake ends; and
 * whatever is left when the network endpoint closes. An idle connection then holds none (it held up to 100 KiB).
 *
 * <p>Thread-safety: any thread. The engine and the buffers are guarded by one lock ({@link TlsLock}) held for one
 * wrap/unwrap pass and a non-blocking socket call; callbacks run outside it.
 */
public final class TlsConnection extends AbstractConnection {
    private static final System.Logger LOG = System.getLogger(TlsConnection.class.getName());
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    // The records a failed handshake may still have to send: the pending flight's and the alert's, with room to spare.
    private static final int MAX_ALERT_WRAPS = 4;
    /** Encrypted output gathered into one network write: about four full records. */
    private static final int MAX_OUTPUT = 64 * 1024;

    private final SSLEngine engine;
    private final boolean clientMode;
    private final ByteBufferPool buffers;
    private final Executor executor;
    private final Executor handshakes;
    private final Function<TlsConnection, Connection> next;
    private final TlsLock lock = new TlsLock();
    private final TlsEndPoint decrypted;
    private final Callback networkWrite = new NetworkWriteCallback();
    private final Invocable.Task runTasks = Invocable.task(InvocationType.BLOCKING, this::runDelegatedTasks);
    private final Invocable.Task handshakeStep = Invocable.task(InvocationType.BLOCKING, this::handshake);
    private final Invocable.Task startHandshake = Invocable.task(InvocationType.BLOCKING, this::startClientHandshake);

    // Guarded by lock.
    private int packetSize;
    private int applicationSize;
    private RetainableByteBuffer netIn; // encrypted input, drain mode
    private RetainableByteBuffer appIn; // decrypted input the reader's buffer had no room for, drain mode
    private RetainableByteBuffer netOut; // encrypted output, drain mode
    private boolean netInIncomplete; // netIn holds part of a record only: wait for the network
    private boolean networkFillPending;
    private boolean networkWriting; // netOut belongs to a network write in flight
    private boolean taskRunning;
    private volatile boolean handshaken;
    private boolean tls13;
    private boolean inputEnded;
    private boolean outputClosed;
    private boolean closeNotifyPending;
    private boolean finSent;
    private long lingerMillis = -1; // after close_notify: -1 shuts the output down, else closes lingering
    private boolean closed;
    private ByteBuffer[] writeBuffers;
    private volatile Callback writeCallback;
    private volatile Callback fillCallback;
    private volatile String applicationProtocol = "";
    private volatile String tlsProtocol = "";
    private volatile Throwable handshakeFailure;
    // A TLS 1.3 client receives the server's session tickets after its handshake completed, before the first
    // application data; consuming one draws random bytes (a read of /dev/urandom): those reads may block.
    private volatile boolean applicationDataSeen;

    /**
     * @param network the network endpoint, which this connection owns
     * @param engine a server or client engine, configured, handshake not begun
     * @param buffers the pool of network and application buffers
     * @param executor wakes blocking readers when decrypted bytes are buffered already
     * @param handshakes TLS threads of their own: they run the handshake's steps and delegated tasks (blocking work),
     *     post-handshake tasks, and the wake-ups of non-blocking readers (in non-blocking mode)
     * @param next creates the connection of the protocol spoken once the handshake completed (it reads
     *     {@link #applicationProtocol()} and speaks over {@link #decryptedEndPoint()}); the caller of this
     *     function opens it
     */
    public TlsConnection(
            EndPoint network,
            SSLEngine engine,
            ByteBufferPool buffers,
            Executor executor,
            Executor handshakes,
            Function<TlsConnection, Connection> next) {
        super(network);
        this.engine = Objects.requireNonNull(engine, "engine");
        // Read once: SSLEngine.getUseClientMode() takes the engine's lock, which a writer wrapping may hold while the
        // selector asks readInvocationType().
        this.clientMode = engine.getUseClientMode();
        this.buffers = Objects.requireNonNull(buffers, "buffers");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.handshakes = Objects.requireNonNull(handshakes, "handshakes");
        this.next = Objects.requireNonNull(next, "next");
        this.decrypted = new TlsEndPoint(this, network);
        this.packetSize = engine.getSession().getPacketBufferSize();
        this.applicationSize = engine.getSession().getApplicationBufferSize();
    }

    /** @return the endpoint of plaintext bytes, on which the negotiated protocol runs */
    public EndPoint decryptedEndPoint() {
        return decrypted;
    }

    /** @return the protocol ALPN negotiated ({@code h2}, {@code http/1.1}), empty if none or before the handshake */
    public String applicationProtocol() {
        return applicationProtocol;
    }

    /** @return the TLS version negotiated ({@code TLSv1.3}), empty before the handshake */
    public String tlsProtocol() {
        return tlsProtocol;
    }

    /**
     * @return why the handshake failed (the peer's alert, a certificate the trust manager refused, an end of stream),
     *     or null if it did not fail (yet)
     */
    public Throwable handshakeFailure() {
        return handshakeFailure;
    }

    /** @return whether the handshake completed */
    public boolean isHandshakeComplete() {
        return handshaken;
    }

    @Override
    public String protocol() {
        Connection upper = decrypted.connection();
        return upper != null ? upper.protocol() : "tls";
    }

    @Override
    public void onOpen() {
        if (clientMode) {
            // A client speaks first; beginning makes its hello (key shares, random bytes from /dev/urandom): blocking
            // work, done on the handshake executor, never on a selector.
            handshakes.execute(startHandshake);
            return;
        }
        try {
            engine.beginHandshake();
        } catch (SSLException x) {
            endPoint().close(x);
            return;
        }
        // The server speaks second: wait for the client's hello (the read task then runs where blocking is allowed).
        lock.lock();
        try {
            networkFillPending = true;
        } finally {
            unlock();
        }
        fillInterested();
    }

    @Override
    protected InvocationType readInvocationType() {
        // During the handshake, onFillable only hands the step to the handshake executor (see the class comment).
        // A client's reads stay blocking until application data came: the server's TLS 1.3 session tickets come
        // first, and consuming one draws random bytes (a read of /dev/urandom). Later reads wake the reader above,
        // whose type they take.
        if (!handshaken) {
            return InvocationType.NON_BLOCKING;
        }
        if (!applicationDataSeen && clientMode) {
            return InvocationType.BLOCKING;
        }
        return typeOf(fillCallback);
    }

    private static InvocationType typeOf(Callback callback) {
        return callback == null ? InvocationType.NON_BLOCKING : callback.invocationType();
    }

    @Override
    protected void onFillable() {
        boolean shake;
        Callback fill = null;
        lock.lock();
        try {
            networkFillPending = false;
            shake = !handshaken;
            if (!shake && !taskRunning) {
                fill = takeFillCallback();
            }
        } finally {
            unlock();
        }
        if (shake) {
            continueHandshake();
        } else if (fill != null) {
            fill.succeeded();
        }
    }

    /** Runs the next handshake step on the handshake executor: it may block (see the class comment). */
    private void continueHandshake() {
        try {
            handshakes.execute(handshakeStep);
        } catch (RuntimeException x) {
            endPoint().close(x);
        }
    }

    @Override
    protected void onFillInterestedFailed(Throwable cause) {
        Callback fill;
        lock.lock();
        try {
            networkFillPending = false;
            fill = takeFillCallback();
        } finally {
            unlock();
        }
        if (fill != null) {
            fill.failed(cause);
        }
        endPoint().close(cause);
    }

    private Callback takeFillCallback() {
        Callback fill = fillCallback;
        fillCallback = null;
        return fill;
    }

    // --- handshake -------------------------------------------------------------------------------------------------

    private void startClientHandshake() {
        try {
            engine.beginHandshake();
        } catch (SSLException x) {
            handshakeFailure = x;
            endPoint().close(x);
            return;
        }
        handshake();
    }

    private void handshake() {
        boolean task = false;
        boolean write = false;
        boolean read = false;
        boolean done = false;
        Throwable failure = null;
        lock.lock();
        try {
            loop:
            while (!closed && !handshaken && !taskRunning && !networkWriting) {
                HandshakeStatus status = engine.getHandshakeStatus();
                switch (status) {
                    case NEED_TASK -> {
                        taskRunning = true;
                        task = true;
                        break loop;
                    }
                    case NEED_WRAP -> {
                        SSLEngineResult result = wrap(EMPTY);
                        if (!flushNetOut()) {
                            networkWriting = true;
                            write = true;
                            break loop;
                        }
                        if (result.getStatus() == SSLEngineResult.Status.CLOSED) {
                            failure = new SSLHandshakeException("TLS handshake failed: the engine closed");
                            break loop;
                        }
                    }
                    case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                        if (!netInIncomplete && netIn != null && netIn.hasRemaining()) {
                            SSLEngineResult result = unwrap(applicationBuffer());
                            switch (result.getStatus()) {
                                case BUFFER_UNDERFLOW -> netInIncomplete = true;
                                case BUFFER_OVERFLOW -> growApplicationBuffer();
                                case CLOSED -> {
                                    failure = new SSLHandshakeException("TLS handshake failed: the peer closed");
                                    break loop;
                                }
                                case OK -> {}
                            }
                            continue;
                        }
                        int read0 = readNetwork();
                        if (read0 == 0) {
                            if (!networkFillPending) {
                                networkFillPending = true;
                                read = true;
                            }
                            break loop;
                        }
                        if (read0 < 0) {
                            failure = new EOFException("the peer closed during the TLS handshake");
                            break loop;
                        }
                    }
                    case FINISHED, NOT_HANDSHAKING -> {
                        handshaken = true;
                        done = true;
                        tlsProtocol = engine.getSession().getProtocol();
                        tls13 = "TLSv1.3".equals(tlsProtocol);
                        String alpn = engine.getApplicationProtocol();
                        applicationProtocol = alpn == null ? "" : alpn;
                        packetSize = Math.max(packetSize, engine.getSession().getPacketBufferSize());
                        applicationSize =
                                Math.max(applicationSize, engine.getSession().getApplicationBufferSize());
                        // The last flight is written (no network write is in flight here): keep only what holds bytes
                        // (a request that came with the client's Finished).
                        releaseEmptyInput();
                        releaseEmptyOutput();
                        break loop;
                    }
                }
            }
        } catch (IOException x) {
            failure = x;
            sendAlert();
        } finally {
            unlock();
        }
        if (failure != null) {
            handshakeFailure = failure;
            LOG.log(Level.DEBUG, () -> "TLS handshake failed on " + endPoint(), failure);
            endPoint().close(failure);
            return;
        }
        if (task) {
            executeTasks();
        }
        if (write) {
            endPoint().write(networkWrite, netOut.byteBuffer());
        }
        if (read) {
            fillInterested();
        }
        if (done) {
            onHandshakeComplete();
        }
    }

    /**
     * Best effort, after a handshake failure: the alert the engine prepared tells the peer why. A TLS 1.3 engine that
     * fails after its ServerHello (no certificate for the client, say) wraps the ServerHello first and the alert,
     * encrypted, in a second record: one wrap would send the peer a ServerHello and then a bare end of stream.
     */
    private void sendAlert() {
        try {
            if (!closed && !networkWriting && !taskRunning) {
                engine.closeOutbound();
                for (int records = 0; records < MAX_ALERT_WRAPS; records++) {
                    SSLEngineResult result = wrap(EMPTY);
                    if (result.getStatus() != SSLEngineResult.Status.OK
                            || result.getHandshakeStatus() != HandshakeStatus.NEED_WRAP) {
                        break;
                    }
                }
                flushNetOut();
            }
        } catch (IOException | RuntimeException ignored) {
            // The connection closes anyway; the alert was a courtesy.
        }
    }

    private void onHandshakeComplete() {
        Connection upper;
        try {
            upper = next.apply(this);
        } catch (RuntimeException x) {
            LOG.log(
                    Level.WARNING,
                    "cannot create the connection for '" + applicationProtocol + "' on " + endPoint(),
                    x);
            endPoint().close(x);
            return;
        }
        boolean closedMeanwhile;
        lock.lock();
        try {
            // Under the lock, against onClose: exactly one of the two closes the new connection.
            decrypted.setConnection(upper);
            closedMeanwhile = closed;
        } finally {
            unlock();
        }
        // As on a selector, where plain connections are opened: a request read at once is dispatched, never run here
        // (this is one of the TLS threads, which are not bounded like the handlers' pool).
        Invocable.invokeNonBlocking(upper::onOpen);
        if (closedMeanwhile) {
            // The network closed while the connection was being made: onClose did not see it, so it never would
            // learn that its endpoint is gone (nor release what it holds).
            upper.onClose(new ClosedChannelException());
        }
    }

    private void executeTasks() {
        try {
            handshakes.execute(runTasks);
        } catch (RuntimeException x) {
            endPoint().close(x);
        }
    }

    /** On the executor: the engine's blocking work, then whatever waited for it. */
    private void runDelegatedTasks() {
        try {
            Runnable task;
            while ((task = engine.getDelegatedTask()) != null) {
                task.run();
            }
        } catch (RuntimeException x) {
            endPoint().close(x);
        }
        boolean shake;
        lock.lock();
        try {
            taskRunning = false;
            shake = !handshaken;
        } finally {
            unlock();
        }
        if (shake) {
            handshake();
        } else {
            resume();
        }
    }

    /**
     * After a post-handshake task, on a TLS thread: the writer and the reader that waited for it go on, each where its
     * type says (a blocking one in the executor, another here in non-blocking mode), never as blocking work on a TLS
     * thread.
     */
    private void resume() {
        Callback fill;
        lock.lock();
        try {
            fill = takeFillCallback();
        } finally {
            unlock();
        }
        Callback write = writeCallback;
        if (write != null && write.invocationType() == InvocationType.BLOCKING) {
            try {
                executor.execute(Invocable.task(InvocationType.BLOCKING, this::pumpAndComplete));
            } catch (RuntimeException x) {
                endPoint().close(x);
            }
        } else {
            Invocable.invokeNonBlocking(this::pumpAndComplete);
        }
        if (fill != null) {
            if (fill.invocationType() == InvocationType.BLOCKING) {
                wake(fill);
            } else {
                Invocable.invokeNonBlocking(fill::succeeded);
            }
        }
    }

    /**
     * Wakes a reader on another thread (never recursively on this one): a blocking reader on the executor, another on
     * a TLS thread, in non-blocking mode as a selector would run it. Not on the executor: a server's executor is also
     * its blocking handlers' pool, and handlers blocked there must not hold up the connections that would unblock them
     * (an HTTP/2 session reading the bodies they wait for).
     */
    private void wake(Callback callback) {
        try {
            if (callback.invocationType() == InvocationType.BLOCKING) {
                executor.execute(Invocable.task(InvocationType.BLOCKING, callback::succeeded));
            } else {
                handshakes.execute(() -> Invocable.invokeNonBlocking(callback::succeeded));
            }
        } catch (RuntimeException x) {
            callback.failed(x);
        }
    }

    // --- reading ---------------------------------------------------------------------------------------------------

    int fill(ByteBuffer buffer) throws IOException {
        boolean task = false;
        boolean write = false;
        IOException refused = null;
        int filled;
        lock.lock();
        try {
            if (closed) {
                return -1;
            }
            int total = 0;
            boolean viaAppIn = false;
            while (true) {
                if (appIn != null && appIn.hasRemaining()) {
                    total += copy(appIn.byteBuffer(), buffer);
                }
                if (!buffer.hasRemaining() || taskRunning) {
                    break;
                }
                if (inputEnded) {
                    if (total == 0) {
                        total = -1;
                    }
                    break;
                }
                if (netInIncomplete || netIn == null || !netIn.hasRemaining()) {
                    int read = readNetwork();
                    if (read == 0) {
                        // The network is drained: the reader will wait for the selector, so the connection may be
                        // idle for long. What is empty goes back to the pool; the next read takes it again.
                        releaseEmptyInput();
                        break;
                    }
                    if (read < 0) {
                        endOfInput();
                        continue;
                    }
                }
                boolean direct = !viaAppIn && buffer.remaining() >= applicationSize;
                int before = buffer.position();
                SSLEngineResult result = unwrap(direct ? buffer : applicationBuffer());
                if (direct) {
                    total += buffer.position() - before;
                }
                switch (result.getStatus()) {
                    case BUFFER_UNDERFLOW -> netInIncomplete = true;
                    case BUFFER_OVERFLOW -> {
                        if (direct) {
                            viaAppIn = true;
                        } else {
                            growApplicationBuffer();
                        }
                    }
                    case CLOSED -> inputEnded = true; // close_notify: the output stays open (half-close)
                    case OK -> {}
                }
                if (result.getStatus() == SSLEngineResult.Status.OK
                        && result.bytesConsumed() == 0
                        && result.bytesProduced() == 0
                        && result.getHandshakeStatus() == HandshakeStatus.NOT_HANDSHAKING) {
                    break; // nothing moved: do not spin
                }
                if (result.getStatus() != SSLEngineResult.Status.CLOSED) {
                    HandshakeStatus status = result.getHandshakeStatus();
                    if (status != HandshakeStatus.NOT_HANDSHAKING && status != HandshakeStatus.FINISHED) {
                        if (!tls13) {
                            refused = new SSLHandshakeException("TLS renegotiation refused on " + endPoint());
                            break;
                        }
                        if (status == HandshakeStatus.NEED_TASK) {
                            taskRunning = true;
                            task = true;
                            break;
                        }
                        if (status == HandshakeStatus.NEED_WRAP && !networkWriting) {
                            wrap(EMPTY); // a key update's answer
                            write = !flushNetOut();
                            networkWriting = write;
                        }
                    }
                }
            }
            filled = total;
            if (total > 0) {
                applicationDataSeen = true;
            }
        } finally {
            unlock();
        }
        if (refused != null) {
            endPoint().close(refused);
            throw refused;
        }
        if (task) {
            executeTasks();
        }
        if (write) {
            endPoint().write(networkWrite, netOut.byteBuffer());
        }
        return filled;
    }

    /** The network ended without close_notify: a truncation attack or a careless peer; either way, no more input. */
    private void endOfInput() {
        inputEnded = true;
        try {
            engine.closeInbound();
        } catch (SSLException x) {
            LOG.log(Level.DEBUG, () -> "end of stream without close_notify on " + endPoint() + ": " + x.getMessage());
        }
    }

    private static int copy(ByteBuffer from, ByteBuffer to) {
        int count = Math.min(from.remaining(), to.remaining());
        if (count == from.remaining()) {
            to.put(from);
        } else {
            to.put(from.slice(from.position(), count));
            from.position(from.position() + count);
        }
        return count;
    }

    /** Reads what the network has into netIn (compacted first); under the lock. */
    private int readNetwork() throws IOException {
        if (netIn == null) {
            netIn = buffers.acquire(packetSize, true);
            netIn.byteBuffer().flip();
        }
        ByteBuffer in = netIn.byteBuffer();
        in.compact();
        if (!in.hasRemaining()) {
            // A record larger than the buffer: grow once to what the session says a record may take.
            in.flip();
            if (in.capacity() >= packetSize) {
                throw new SSLException("TLS record larger than " + in.capacity() + " bytes from " + endPoint());
            }
            netIn = grow(netIn, packetSize);
            in = netIn.byteBuffer();
            in.compact();
        }
        int read;
        try {
            read = endPoint().fill(in);
        } finally {
            in.flip();
        }
        if (read > 0) {
            netInIncomplete = false;
        }
        return read;
    }

    /** @return appIn, empty and in fill mode, for an unwrap */
    private ByteBuffer applicationBuffer() {
        if (appIn == null) {
            appIn = buffers.acquire(applicationSize, true);
            appIn.byteBuffer().flip();
        }
        ByteBuffer app = appIn.byteBuffer();
        app.compact();
        return app;
    }

    private SSLEngineResult unwrap(ByteBuffer to) throws SSLException {
        boolean intoAppIn = appIn != null && to == appIn.byteBuffer();
        try {
            return engine.unwrap(netIn.byteBuffer(), to);
        } finally {
            if (intoAppIn) {
                to.flip();
            }
        }
    }

    private void growApplicationBuffer() {
        applicationSize = Math.max(applicationSize, engine.getSession().getApplicationBufferSize());
        if (appIn.capacity() >= applicationSize) {
            applicationSize = appIn.capacity() * 2; // the session did not say more: double, once per overflow
        }
        appIn = grow(appIn, applicationSize);
    }

    private RetainableByteBuffer grow(RetainableByteBuffer old, int capacity) {
        RetainableByteBuffer bigger = buffers.acquire(capacity, true);
        ByteBuffer to = bigger.byteBuffer();
        to.put(old.byteBuffer());
        to.flip();
        old.release();
        return bigger;
    }

    void fillInterested(Callback callback) {
        boolean ready = false;
        boolean interest = false;
        boolean fail = false;
        lock.lock();
        try {
            if (fillCallback != null) {
                throw new ReadPendingException();
            }
            if (closed) {
                fail = true;
            } else if (!taskRunning) {
                if ((appIn != null && appIn.hasRemaining())
                        || inputEnded
                        || (!netInIncomplete && netIn != null && netIn.hasRemaining())) {
                    ready = true;
                } else {
                    fillCallback = callback;
                    if (!networkFillPending) {
                        networkFillPending = true;
                        interest = true;
                    }
                }
            } else {
                fillCallback = callback; // the task's end wakes it
            }
        } finally {
            unlock();
        }
        if (fail) {
            callback.failed(new ClosedChannelException());
        } else if (ready) {
            // Bytes are here already: wake the reader, on another thread (not recursively on this one).
            wake(callback);
        } else if (interest) {
            fillInterested();
        }
    }

    boolean isFillInterestedUpper() {
        return fillCallback != null;
    }

    boolean wakeFill() {
        Callback fill;
        lock.lock();
        try {
            fill = takeFillCallback();
        } finally {
            unlock();
        }
        if (fill == null) {
            return false;
        }
        fill.succeeded();
        return true;
    }

    boolean isInputEnded() {
        return inputEnded;
    }

    // --- writing ---------------------------------------------------------------------------------------------------

    boolean flush(ByteBuffer... sources) throws IOException {
        lock.lock();
        try {
            if (closed || outputClosed) {
                throw new ClosedChannelException();
            }
            if (networkWriting || taskRunning) {
                return false;
            }
            while (true) {
                if (!flushNetOut()) {
                    return false;
                }
                if (!hasRemaining(sources)) {
                    return true;
                }
                wrapAll(sources);
            }
        } catch (InternalError x) {
            SSLException fault = readFault(x);
            discardOutput();
            throw fault;
        } finally {
            unlock();
        }
    }

    void write(Callback callback, ByteBuffer... sources) {
        lock.lock();
        try {
            if (writeCallback != null) {
                throw new WritePendingException();
            }
            writeCallback = callback;
            writeBuffers = sources;
        } finally {
            unlock();
        }
        pumpAndComplete();
    }

    /** Moves the output along (pending write, close_notify, FIN) and runs what completed, outside the lock. */
    private void pumpAndComplete() {
        Callback succeeded = null;
        Callback failed = null;
        Throwable failure = null;
        boolean write = false;
        boolean fin = false;
        long linger = -1;
        lock.lock();
        try {
            if (closed) {
                failed = writeCallback;
                writeCallback = null;
                writeBuffers = null;
                failure = new ClosedChannelException();
            } else if (!networkWriting && !taskRunning) {
                while (true) {
                    if (!flushNetOut()) {
                        networkWriting = true;
                        write = true;
                        break;
                    }
                    if (writeCallback != null) {
                        if (hasRemaining(writeBuffers)) {
                            wrapAll(writeBuffers);
                            continue;
                        }
                        succeeded = writeCallback;
                        writeCallback = null;
                        writeBuffers = null;
                    }
                    if (closeNotifyPending) {
                        closeNotifyPending = false;
                        engine.closeOutbound();
                        wrap(EMPTY);
                        continue;
                    }
                    if (outputClosed && !finSent) {
                        finSent = true;
                        fin = true;
                        linger = lingerMillis;
                    }
                    // Everything was written (flushNetOut said so): the output buffer goes back to the pool.
                    releaseEmptyOutput();
                    break;
                }
            }
        } catch (IOException x) {
            failed = writeCallback;
            writeCallback = null;
            writeBuffers = null;
            failure = x;
        } catch (InternalError x) {
            // Checked before any state is touched: an InternalError that is no read fault propagates with the write
            // still pending, for onClose to fail.
            failure = readFault(x);
            failed = writeCallback;
            writeCallback = null;
            writeBuffers = null;
            discardOutput();
        } finally {
            unlock();
        }
        if (failed != null) {
            failed.failed(failure);
        } else if (failure != null) {
            LOG.log(Level.DEBUG, () -> "TLS output failed on " + endPoint(), failure);
        }
        if (failure instanceof IOException && !(failure instanceof ClosedChannelException)) {
            endPoint().close(failure);
        }
        if (write) {
            endPoint().write(networkWrite, netOut.byteBuffer());
        }
        if (succeeded != null) {
            succeeded.succeeded();
        }
        if (fin) {
            if (linger >= 0) {
                endPoint().closeLingering(linger);
            } else {
                endPoint().shutdownOutput();
            }
        }
    }

    private static boolean hasRemaining(ByteBuffer[] sources) {
        for (ByteBuffer source : sources) {
            if (source.hasRemaining()) {
                return true;
            }
        }
        return false;
    }

    /** Wraps as many records of {@code sources} as netOut (empty) takes: one network write for several records. */
    private void wrapAll(ByteBuffer[] sources) throws IOException {
        while (hasRemaining(sources)) {
            SSLEngineResult result = wrap(sources);
            if (result.getStatus() == SSLEngineResult.Status.CLOSED) {
                throw new ClosedChannelException();
            }
            if (result.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW || result.bytesConsumed() == 0) {
                return; // netOut is full: write it first
            }
        }
    }

    /**
     * Appends records to netOut (growing it once if it cannot take one record even empty); under the lock, with no
     * network write in flight.
     */
    private SSLEngineResult wrap(ByteBuffer... sources) throws SSLException {
        if (netOut == null) {
            netOut = buffers.acquire(Math.max(packetSize, Math.min(4 * packetSize, MAX_OUTPUT)), true);
            netOut.byteBuffer().flip();
        }
        while (true) {
            ByteBuffer out = netOut.byteBuffer();
            out.compact();
            SSLEngineResult result;
            try {
                result = engine.wrap(sources, out);
            } catch (InternalError x) {
                throw readFault(x);
            } finally {
                out.flip();
            }
            if (result.getStatus() != SSLEngineResult.Status.BUFFER_OVERFLOW || out.hasRemaining()) {
                return result;
            }
            // Empty and still too small: the session's records grew.
            packetSize = Math.max(engine.getSession().getPacketBufferSize(), out.capacity() * 2);
            netOut.release();
            netOut = buffers.acquire(packetSize, true);
            netOut.byteBuffer().flip();
        }
    }

    /**
     * The JVM's answer to a fault while the engine copied a source (SIGBUS): a mapped file truncated while it was being
     * sent. An I/O error of this connection, so that its write fails, its callback completes and it closes. Compiled
     * code may have the JVM deliver it late, at the thread's next safepoint poll, which may lie past
     * {@code engine.wrap} (in the loop that wraps, in the flush after it): the output paths catch it too, and records
     * already wrapped from what the copy did not read are never written, since the connection closes.
     *
     * @return the I/O error to fail the write with
     * @throws InternalError {@code error} itself if it is not a fault reading memory
     */
    private static SSLException readFault(InternalError error) {
        if (!MappingFaults.isReadFault(error)) {
            throw error;
        }
        return new SSLException("cannot read the content to encrypt: " + error.getMessage(), error);
    }

    /**
     * Under the lock, after a read fault: what netOut holds may be records wrapped from bytes the copy never read, so
     * it is dropped, and nothing more is written, not even close_notify (the connection closes).
     */
    private void discardOutput() {
        outputClosed = true;
        if (netOut != null && !networkWriting) {
            ByteBuffer out = netOut.byteBuffer();
            out.position(out.limit());
        }
    }

    /**
     * @return whether netOut is empty now; if not, a caller that waits for it sets {@code networkWriting} and starts a
     *     network write outside the lock
     */
    private boolean flushNetOut() throws IOException {
        if (netOut == null || !netOut.hasRemaining()) {
            return true;
        }
        return endPoint().flush(netOut.byteBuffer());
    }

    boolean isOutputClosed() {
        return outputClosed;
    }

    void shutdownOutput(long lingerMillis) {
        lock.lock();
        try {
            if (closed || outputClosed) {
                return;
            }
            outputClosed = true;
            closeNotifyPending = true;
            this.lingerMillis = lingerMillis;
        } finally {
            unlock();
        }
        pumpAndComplete();
    }

    void close(Throwable cause) {
        lock.lock();
        try {
            if (!closed && !outputClosed && !networkWriting && !taskRunning) {
                // close_notify if the socket takes it now; a close does not wait.
                outputClosed = true;
                engine.closeOutbound();
                wrap(EMPTY);
                endPoint().flush(netOut.byteBuffer());
            }
        } catch (IOException | RuntimeException x) {
            LOG.log(Level.DEBUG, () -> "close_notify not sent on " + endPoint() + ": " + x);
        } finally {
            unlock();
        }
        endPoint().close(cause);
    }

    // --- lifecycle -------------------------------------------------------------------------------------------------

    @Override
    public void onClose(Throwable cause) {
        Callback fill;
        Callback write;
        Connection upper;
        lock.lock();
        try {
            closed = true;
            fill = takeFillCallback();
            write = writeCallback;
            writeCallback = null;
            writeBuffers = null;
            upper = decrypted.connection();
        } finally {
            unlock();
        }
        Throwable failure = cause != null ? cause : new ClosedChannelException();
        if (fill != null) {
            fill.failed(failure);
        }
        if (write != null) {
            write.failed(failure);
        }
        if (upper != null) {
            try {
                upper.onClose(cause);
            } catch (Throwable x) {
                LOG.log(Level.WARNING, "onClose failed for " + upper, x);
            }
        }
    }

    /** Unlocks; the last unlock after the close releases the buffers (not while an outer frame still uses them). */
    private void unlock() {
        if (closed && lock.getHoldCount() == 1) {
            netIn = release(netIn);
            appIn = release(appIn);
            if (!networkWriting) {
                netOut = release(netOut);
            }
        }
        lock.unlock();
    }

    /** Under the lock: gives back the input buffers that hold no bytes (a part of a record is kept). */
    private void releaseEmptyInput() {
        if (netIn != null && !netIn.hasRemaining()) {
            netIn = release(netIn);
        }
        if (appIn != null && !appIn.hasRemaining()) {
            appIn = release(appIn);
        }
    }

    /** Under the lock: gives back the output buffer if it holds no bytes and no network write uses it. */
    private void releaseEmptyOutput() {
        if (netOut != null && !networkWriting && !netOut.hasRemaining()) {
            netOut = release(netOut);
        }
    }

    private static RetainableByteBuffer release(RetainableByteBuffer buffer) {
        if (buffer != null) {
            buffer.release();
        }
        return null;
    }

    @Override
    public boolean onIdleExpired() {
        Connection upper = decrypted.connection();
        return upper == null || upper.onIdleExpired();
    }

    @Override
    public void shutdown() {
        Connection upper = decrypted.connection();
        if (upper != null) {
            upper.shutdown();
        } else {
            endPoint().close(); // still handshaking: nothing in flight to finish
        }
    }

    @Override
    public boolean isIdle() {
        Connection upper = decrypted.connection();
        return upper == null || upper.isIdle();
    }

    @Override
    public String toString() {
        return "TlsConnection@" + Integer.toHexString(hashCode()) + "{" + (handshaken ? tlsProtocol : "handshaking")
                + (applicationProtocol.isEmpty() ? "" : ", " + applicationProtocol) + ", " + endPoint() + "}";
    }

    private final class NetworkWriteCallback implements Callback {
        @Override
        public void succeeded() {
            boolean shake;
            lock.lock();
            try {
                networkWriting = false;
                shake = !handshaken;
            } finally {
                unlock();
            }
            if (shake) {
                continueHandshake();
            } else {
                pumpAndComplete();
            }
        }

        @Override
        public void failed(Throwable failure) {
            Callback write;
            lock.lock();
            try {
                networkWriting = false;
                write = writeCallback;
                writeCallback = null;
                writeBuffers = null;
            } finally {
                unlock();
            }
            if (write != null) {
                write.failed(failure);
            }
            endPoint().close(failure);
        }

        @Override
        public InvocationType invocationType() {
            // During the handshake, succeeded only hands the next step to the handshake executor.
            return handshaken ? typeOf(writeCallback) : InvocationType.NON_BLOCKING;
        }

        @Override
        public String toString() {
            return "NetworkWrite[" + TlsConnection.this + "]";
        }
    }
}
