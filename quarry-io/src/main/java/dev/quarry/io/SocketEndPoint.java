package dev.quarry.io;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadPendingException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritePendingException;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * An {@link EndPoint} over a non-blocking {@link SocketChannel}, TCP or Unix-domain alike.
 *
 * <p>Interest ops live in one int: the ops the connection wants (desired, low byte) and the ops last set on the
 * {@link SelectionKey} (registered, second byte). Wanting or dropping an op is one CAS; the key is only touched by the
 * selector's producing thread, just before it selects, and only when desired and registered differ. So a connection
 * that is served in place and asks to read again before the next select costs no {@code epoll_ctl} at all.
 *
 * <p>A file region is sent with {@link FileChannel#transferTo} straight into the socket ({@code sendfile}): it is the
 * pending write while it lasts, continues when the socket becomes writable, and yields the thread after
 * {@value #TRANSFER_TURN} bytes even if the socket still takes more, so that one fast reader of a large file does not
 * monopolise a selector thread.
 *
 * <p>Thread-safety: any thread; one fill interest and one write (or transfer) pending at a time.
 */
public final class SocketEndPoint implements EndPoint {
    private static final System.Logger LOG = System.getLogger(SocketEndPoint.class.getName());
    private static final VarHandle INTEREST;
    private static final VarHandle FILL_CALLBACK;
    private static final VarHandle WRITE_CALLBACK;
    private static final VarHandle STATE;
    private static final VarHandle DISPLACED_FILL;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            INTEREST = lookup.findVarHandle(SocketEndPoint.class, "interest", int.class);
            FILL_CALLBACK = lookup.findVarHandle(SocketEndPoint.class, "fillCallback", Callback.class);
            WRITE_CALLBACK = lookup.findVarHandle(SocketEndPoint.class, "writeCallback", Callback.class);
            STATE = lookup.findVarHandle(SocketEndPoint.class, "state", int.class);
            DISPLACED_FILL = lookup.findVarHandle(SocketEndPoint.class, "displacedFill", Callback.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private static final int OPEN = 0;
    private static final int INPUT_SHUTDOWN = 1;
    private static final int OUTPUT_SHUTDOWN = 2;
    private static final int CLOSED = 4;
    // closeLingering() began: the connection sees its input as ended; LingeringDrain reads what still arrives.
    private static final int LINGERING = 8;
    // Bytes one run of a transfer sends before it lets the selector serve other endpoints.
    static final long TRANSFER_TURN = 4L * 1024 * 1024;

    private final SocketChannel channel;
    private final ManagedSelector selector;
    private final SelectionKey key;
    private final SocketAddress localAddress;
    private final SocketAddress remoteAddress;
    private final long createdNanos = System.nanoTime();
    private final EndPointIdleTimeout idleTimeout;
    private final Consumer<EndPoint> onClosed;
    private final SelectorUpdate syncKey = new SelectorUpdate() {
        @Override
        protected void update() {
            syncKey();
        }

        @Override
        public String toString() {
            return "SyncKey[" + SocketEndPoint.this + "]";
        }
    };
    private final Invocable.Task readTask = new EndPointTasks.Read(this);
    private final Invocable.Task writeTask = new EndPointTasks.Write(this);
    private final Invocable.Task readWriteTask = new EndPointTasks.ReadWrite(this);

    @SuppressWarnings("unused") // through INTEREST
    private volatile int interest;

    private volatile Callback fillCallback;
    // The connection's fill interest while lingering: never served (LingeringDrain owns the input), failed at close.
    @SuppressWarnings("unused") // through DISPLACED_FILL
    private volatile Callback displacedFill;

    private volatile Callback writeCallback;

    @SuppressWarnings("unused") // through STATE
    private volatile int state;

    // Written by the writing thread before publishing the write interest, read by the thread completing the write.
    private ByteBuffer[] pendingWrite;
    // Likewise for a pending file transfer (one object per transfer: most connections never send a file).
    private FileTransfer transfer;
    private volatile Connection connection;
    // Single writer at a time (the filling or the flushing thread); read racily by statistics.
    private long bytesIn;
    private long bytesOut;

    SocketEndPoint(
            SocketChannel channel,
            ManagedSelector selector,
            SelectionKey key,
            EndPointIdleTimeout.Factory idleTimeouts,
            Consumer<EndPoint> onClosed)
            throws IOException {
        this.channel = channel;
        this.selector = selector;
        this.key = key;
        this.localAddress = channel.getLocalAddress();
        this.remoteAddress = channel.getRemoteAddress();
        this.onClosed = onClosed;
        this.idleTimeout = idleTimeouts.create(this);
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
    public boolean isOpen() {
        return (state & CLOSED) == 0;
    }

    @Override
    public boolean isInputShutdown() {
        return (state & (INPUT_SHUTDOWN | CLOSED | LINGERING)) != 0;
    }

    @Override
    public boolean isOutputShutdown() {
        return (state & (OUTPUT_SHUTDOWN | CLOSED)) != 0;
    }

    @Override
    public int fill(ByteBuffer buffer) throws IOException {
        if (isInputShutdown()) {
            return -1;
        }
        int read;
        try {
            read = channel.read(buffer);
        } catch (IOException x) {
            close(x);
            throw x;
        }
        if (read > 0) {
            bytesIn += read;
            idleTimeout.notIdle();
        } else if (read < 0) {
            shutdownInput();
        }
        return read;
    }

    private void shutdownInput() {
        while (true) {
            int current = state;
            if ((current & (INPUT_SHUTDOWN | CLOSED)) != 0) {
                return;
            }
            if (STATE.compareAndSet(this, current, current | INPUT_SHUTDOWN)) {
                if ((current & OUTPUT_SHUTDOWN) != 0) {
                    close(); // both directions are done
                }
                return;
            }
        }
    }

    @Override
    public boolean flush(ByteBuffer... buffers) throws IOException {
        if (isOutputShutdown()) {
            throw new ClosedChannelException();
        }
        try {
            long written;
            boolean complete;
            if (buffers.length == 1) {
                ByteBuffer buffer = buffers[0];
                written = buffer.hasRemaining() ? channel.write(buffer) : 0;
                complete = !buffer.hasRemaining();
            } else {
                written = channel.write(buffers);
                complete = true;
                for (ByteBuffer buffer : buffers) {
                    if (buffer.hasRemaining()) {
                        complete = false;
                        break;
                    }
                }
            }
            if (written > 0) {
                bytesOut += written;
                idleTimeout.notIdle();
            }
            return complete;
        } catch (IOException x) {
            close(x);
            throw x;
        }
    }

    @Override
    public void fillInterested(Callback callback) {
        if ((state & LINGERING) != 0) {
            displace(callback);
            return;
        }
        if (!FILL_CALLBACK.compareAndSet(this, null, callback)) {
            if ((state & LINGERING) != 0) {
                displace(callback); // closeLingering() won the slot for its LingeringDrain meanwhile
                return;
            }
            throw new ReadPendingException();
        }
        onFillArmed();
    }

    private void onFillArmed() {
        if (!isOpen()) {
            failFill(new ClosedChannelException());
            return;
        }
        addInterest(SelectionKey.OP_READ);
    }

    /** @return how the pending fill callback behaves, for the read task */
    InvocationType fillInvocationType() {
        return Invocable.invocationTypeOf(fillCallback);
    }

    /** @return how the pending write callback behaves, for the write task */
    InvocationType writeInvocationType() {
        return Invocable.invocationTypeOf(writeCallback);
    }

    @Override
    public boolean isFillInterested() {
        return fillCallback != null;
    }

    @Override
    public void write(Callback callback, ByteBuffer... buffers) {
        if (!WRITE_CALLBACK.compareAndSet(this, null, callback)) {
            throw new WritePendingException();
        }
        boolean complete;
        try {
            complete = flush(buffers);
        } catch (IOException x) {
            failWrite(x);
            return;
        }
        if (complete) {
            succeedWrite();
        } else {
            pendingWrite = buffers;
            addInterest(SelectionKey.OP_WRITE);
        }
    }

    @Override
    public boolean canTransferFiles() {
        return true;
    }

    @Override
    public void transfer(Callback callback, FileChannel file, long position, long count) {
        if (position < 0 || count < 0) {
            throw new IllegalArgumentException("bad file region: position " + position + ", count " + count);
        }
        if (!WRITE_CALLBACK.compareAndSet(this, null, callback)) {
            throw new WritePendingException();
        }
        transfer = new FileTransfer(file, position, count);
        continueTransfer();
    }

    /** Sends what the socket takes of the pending transfer, then completes it or waits to be writable. */
    private void continueTransfer() {
        FileTransfer current = transfer;
        if (current == null) {
            return; // failed and cleared by a concurrent close
        }
        try {
            if (isOutputShutdown()) {
                throw new ClosedChannelException();
            }
            long sent = current.send(channel, TRANSFER_TURN);
            if (sent > 0) {
                bytesOut += sent;
                idleTimeout.notIdle();
            }
            if (current.isDone()) {
                transfer = null;
                succeedWrite();
            } else {
                // Full socket: wait until writable. Turn used up: the key is writable already, so the selector comes
                // straight back here after serving the other ready endpoints.
                addInterest(SelectionKey.OP_WRITE);
            }
        } catch (IOException x) {
            // The peer gets a truncated response: the connection decides (it aborts the exchange and closes).
            failWrite(x);
        }
    }

    private void succeedWrite() {
        Callback callback = (Callback) WRITE_CALLBACK.getAndSet(this, null);
        if (callback != null) {
            callback.succeeded();
        }
    }

    private void failWrite(Throwable failure) {
        pendingWrite = null;
        transfer = null;
        Callback callback = (Callback) WRITE_CALLBACK.getAndSet(this, null);
        if (callback != null) {
            callback.failed(failure);
        }
    }

    private void failFill(Throwable failure) {
        Callback callback = (Callback) FILL_CALLBACK.getAndSet(this, null);
        if (callback != null) {
            callback.failed(failure);
        }
    }

    void completeWrite() {
        if (transfer != null) {
            continueTransfer();
            return;
        }
        ByteBuffer[] buffers = pendingWrite;
        if (buffers == null) {
            return;
        }
        try {
            if (flush(buffers)) {
                pendingWrite = null;
                succeedWrite();
            } else {
                addInterest(SelectionKey.OP_WRITE);
            }
        } catch (IOException x) {
            failWrite(x);
        }
    }

    void completeFill() {
        wakeFill();
    }

    @Override
    public boolean wakeFill() {
        // Whoever takes the callback completes it: the selector's read task and a waker never both do.
        Callback callback = (Callback) FILL_CALLBACK.getAndSet(this, null);
        if (callback == null) {
            return false;
        }
        callback.succeeded();
        return true;
    }

    private void addInterest(int op) {
        while (true) {
            int current = interest;
            if ((current & op) != 0) {
                return;
            }
            int next = current | op;
            if (INTEREST.compareAndSet(this, current, next)) {
                if ((next & 0xFF) != (next >>> 8)) {
                    selector.submit(syncKey);
                }
                return;
            }
        }
    }

    /** Drops ops from the desired interest only: the key keeps them until something else syncs it (see onSelected). */
    private void dropDesiredInterest(int ops) {
        while (true) {
            int current = interest;
            if (INTEREST.compareAndSet(this, current, current & ~ops)) {
                return;
            }
        }
    }

    private void removeInterest(int ops) {
        while (true) {
            int current = interest;
            if ((current & ops) == 0) {
                return;
            }
            int next = current & ~ops;
            if (INTEREST.compareAndSet(this, current, next)) {
                if ((next & 0xFF) != (next >>> 8)) {
                    selector.submit(syncKey);
                }
                return;
            }
        }
    }

    /** On the producing thread: makes the key's interest ops what the connection wants now. */
    private void syncKey() {
        // What this call set on the key. When the CAS below fails because the connection changed its interest
        // meanwhile, the key holds what we set, not what the word's registered byte says: comparing with that stale
        // byte could skip the update (set 0, the connection wants OP_WRITE again, 'registered' still reads OP_WRITE)
        // and leave a pending write waiting for an event the selector no longer asks for.
        int applied = -1;
        while (true) {
            int current = interest;
            int desired = current & 0xFF;
            int registered = applied >= 0 ? applied : current >>> 8;
            if (desired != registered) {
                try {
                    key.interestOps(desired);
                } catch (CancelledKeyException x) {
                    close();
                    return;
                }
                applied = desired;
            }
            if (INTEREST.compareAndSet(this, current, desired | (desired << 8))) {
                return;
            }
        }
    }

    /**
     * On the producing thread: the key is ready; drops the ready ops from the interest (so the key is not selected
     * again while its task is pending) and returns the task to run.
     *
     * <p>A read whose task is non-blocking is the exception: the producing thread runs that task before it selects
     * again (produce-consume), so the key cannot be selected again while it is pending, and {@code OP_READ} stays on
     * the key, dropped only from the desired ops. A connection that asks to read again before new bytes arrive, as a
     * request/response connection does once its response is written (often from a handler's virtual thread), then
     * finds the key still reading: no update, no selector wake-up and no {@code epoll_ctl}, where an eager drop costs
     * two {@code epoll_ctl} and a wake-up per request. If bytes arrive while nobody wants them, the key is reported
     * with no fill interest, and only then synced (below).
     */
    Runnable onSelected(int readyOps) {
        boolean read = (readyOps & SelectionKey.OP_READ) != 0 && fillCallback != null;
        boolean write = (readyOps & SelectionKey.OP_WRITE) != 0 && writeCallback != null;
        if (!read && !write) {
            // Selected for ops nobody wants any more (the key lags the desired ops): sync it before the next
            // select, or a level-triggered selector would report it again and again.
            int current = interest;
            if ((current & 0xFF) != (current >>> 8)) {
                selector.submit(syncKey);
            }
            return null;
        }
        if (read && !write && fillInvocationType() == InvocationType.NON_BLOCKING) {
            dropDesiredInterest(SelectionKey.OP_READ);
            return readTask;
        }
        removeInterest((read ? SelectionKey.OP_READ : 0) | (write ? SelectionKey.OP_WRITE : 0));
        if (read && write) {
            return readWriteTask;
        }
        return read ? readTask : writeTask;
    }

    @Override
    public void shutdownOutput() {
        while (true) {
            int current = state;
            if ((current & (OUTPUT_SHUTDOWN | CLOSED)) != 0) {
                return;
            }
            if (STATE.compareAndSet(this, current, current | OUTPUT_SHUTDOWN)) {
                try {
                    channel.shutdownOutput();
                } catch (IOException x) {
                    LOG.log(Level.DEBUG, "shutdownOutput failed for " + this, x);
                    close(x);
                    return;
                }
                if ((current & INPUT_SHUTDOWN) != 0) {
                    close();
                }
                return;
            }
        }
    }

    @Override
    public void close() {
        close(null);
    }

    @Override
    public void close(Throwable cause) {
        while (true) {
            int current = state;
            if ((current & CLOSED) != 0) {
                return;
            }
            if (STATE.compareAndSet(this, current, current | CLOSED)) {
                break;
            }
        }
        idleTimeout.stop();
        try {
            channel.close();
        } catch (IOException x) {
            LOG.log(Level.DEBUG, "close failed for " + this, x);
        }
        // A registered channel is only really closed (FIN or RST sent, descriptor released) when the selector
        // deregisters its key at the start of its next select: make sure that happens now.
        selector.wakeup();
        Throwable failure = cause != null ? cause : new ClosedChannelException();
        failFill(failure);
        failDisplacedFill(failure);
        failWrite(failure);
        Connection current = connection;
        if (current != null) {
            try {
                current.onClose(cause);
            } catch (Throwable x) {
                LOG.log(Level.WARNING, "onClose failed for " + current, x);
            }
        }
        onClosed.accept(this);
    }

    @Override
    public void abort() {
        try {
            if (channel.isOpen() && channel.supportedOptions().contains(StandardSocketOptions.SO_LINGER)) {
                channel.setOption(StandardSocketOptions.SO_LINGER, 0);
            }
        } catch (IOException x) {
            LOG.log(Level.DEBUG, "SO_LINGER failed for " + this, x);
        }
        close(new IOException("connection aborted"));
    }

    @Override
    public void closeLingering(long lingerMillis) {
        while (true) {
            int current = state;
            if ((current & (CLOSED | LINGERING)) != 0) {
                return;
            }
            if (STATE.compareAndSet(this, current, current | LINGERING)) {
                break;
            }
        }
        shutdownOutput();
        if ((state & (INPUT_SHUTDOWN | CLOSED)) != 0) {
            close(); // the peer already ended its side: nothing can arrive that would turn our FIN into RST
            return;
        }
        idleTimeout.setTimeoutMillis(lingerMillis);
        LingeringDrain drain = new LingeringDrain(this, lingerMillis);
        // The connection's pending fill interest, if any, waits for the close instead: failing it now would make most
        // connections close at once, which is what lingering avoids.
        Callback displaced = (Callback) FILL_CALLBACK.getAndSet(this, drain);
        if (displaced != null) {
            displace(displaced);
        }
        if (!isOpen()) {
            failFill(new ClosedChannelException());
            return;
        }
        addInterest(SelectionKey.OP_READ);
    }

    /**
     * Keeps the connection's fill interest while lingering, to fail it when the endpoint closes: a reader waiting for
     * input (a handler reading a request body) then learns that none will come, within the linger time.
     */
    private void displace(Callback callback) {
        if (!DISPLACED_FILL.compareAndSet(this, null, callback)) {
            callback.failed(new ReadPendingException());
            return;
        }
        if (!isOpen()) {
            failDisplacedFill(new ClosedChannelException()); // close() may have looked before the slot was set
        }
    }

    private void failDisplacedFill(Throwable failure) {
        Callback callback = (Callback) DISPLACED_FILL.getAndSet(this, null);
        if (callback != null) {
            callback.failed(failure);
        }
    }

    /** LingeringDrain's read: what the connection's {@link #fill} no longer returns. */
    int drainRead(ByteBuffer scratch) throws IOException {
        int read = channel.read(scratch);
        if (read > 0) {
            bytesIn += read; // counted, but not as activity: the linger is a deadline, not an idle timeout
        }
        return read;
    }

    /** LingeringDrain waits for more input. */
    void drainInterested(Callback drain) {
        while (!FILL_CALLBACK.compareAndSet(this, null, drain)) {
            // A connection thread that checked the state just before closeLingering() armed its callback since:
            // it waits for the close like any other displaced fill interest.
            Callback occupant = (Callback) FILL_CALLBACK.getAndSet(this, null);
            if (occupant != null && occupant != drain) {
                displace(occupant);
            }
        }
        onFillArmed();
    }

    /** Called by the idle timeout when the endpoint was idle for too long. */
    void onIdleExpired() {
        if ((state & LINGERING) != 0) {
            close(new TimeoutException("the peer did not close within the linger time of " + idleTimeout() + " ms"));
            return;
        }
        Connection current = connection;
        boolean close;
        try {
            close = current == null || current.onIdleExpired();
        } catch (Throwable x) {
            LOG.log(Level.WARNING, "onIdleExpired failed for " + current, x);
            close = true;
        }
        if (close) {
            close(new TimeoutException("idle timeout expired after " + idleTimeout() + " ms"));
        }
    }

    /** @return whether a fill interest or a write is pending, i.e. whether the endpoint is waiting on the network */
    boolean isWaiting() {
        return fillCallback != null || writeCallback != null;
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
        return idleTimeout.timeoutMillis();
    }

    @Override
    public void setIdleTimeout(long millis) {
        idleTimeout.setTimeoutMillis(millis);
    }

    @Override
    public long bytesIn() {
        return bytesIn;
    }

    @Override
    public long bytesOut() {
        return bytesOut;
    }

    @Override
    public long createdNanos() {
        return createdNanos;
    }

    /** Starts the idle timeout; called once the connection is set. */
    void onOpen() {
        idleTimeout.start();
    }

    @Override
    public String toString() {
        int current = interest;
        return "SocketEndPoint@" + Integer.toHexString(hashCode()) + "{" + localAddress + "<->" + remoteAddress
                + (isOpen() ? "" : ",CLOSED") + (isInputShutdown() && isOpen() ? ",ISHUT" : "")
                + (isOutputShutdown() && isOpen() ? ",OSHUT" : "") + ",desired=" + (current & 0xFF) + ",registered="
                + (current >>> 8) + (fillCallback != null ? ",FI" : "") + (writeCallback != null ? ",W" : "") + "}";
    }
}
