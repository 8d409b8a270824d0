package dev.quarry.server.internal.h2;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.IteratingCallback;
import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.buffer.RetainableByteBuffer;
import dev.quarry.core.timer.HashedWheelTimer;
import dev.quarry.core.timer.Timeout;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.io.EndPoint;
import dev.quarry.io.MappingFaults;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Writes the frames of one HTTP/2 connection: entries from any thread are queued, and one thread at a time turns as
 * many as fit into frames — control frames first, then streams in the order they queued — and writes them with one
 * gathering write. DATA respects both the connection's and the stream's send windows; a stream whose window is closed
 * waits without holding up the others. Header blocks are HPACK-encoded here, at the moment they are framed, so that
 * encoding order is wire order.
 *
 * <p>Small payloads are copied into the frame buffer (so that many small responses go out in one system call); large
 * ones are written from their own buffer, without a copy. Content that is a region of a file mapping is always copied,
 * frame by frame, under a guard: a read of a file truncated meanwhile faults, and handed to the kernel (EFAULT, maybe
 * after part of a frame) or to the TLS engine that would fail the whole connection, while a fault in the copy leaves
 * nothing half-framed and fails only that stream's write ({@link UnreadableContentException}). Compiled code may deliver
 * the fault late, though, at the thread's next safepoint poll, which may lie past the guard: the flusher then fails the
 * whole connection (GOAWAY, then close), never writing the round it interrupted ({@link #onMappingFault}).
 *
 * <p>Thread-safety: {@link #offer} from any thread; the window counters and queues are guarded by the connection's
 * lock, held only while frames are generated, never during the write.
 */
final class Http2Flusher extends IteratingCallback {
    private static final System.Logger LOG = System.getLogger(Http2Flusher.class.getName());
    private static final int COPY_THRESHOLD = 4096;
    private static final int FRAME_HEADER = 9;
    /**
     * The smallest DATA frame worth cutting out of a window that is bound to reopen: a client that credits each frame
     * it receives answers a smaller one with WINDOW_UPDATEs below {@link Http2ControlFrames#MIN_USEFUL_WINDOW_UPDATE},
     * which our own flood defence counts as control frames.
     */
    static final int MIN_DATA_FRAME = Http2ControlFrames.MIN_USEFUL_WINDOW_UPDATE;

    private static final long NOT_HELD = Long.MIN_VALUE;

    private final ReentrantLock lock;
    private final HashedWheelTimer timer;
    /**
     * How long the silly-window rule may hold a small DATA fragment back while it waits for credit
     * ({@code Http2Config.smallFrameWait}). A client that credits as it consumes answers within a round trip; one that
     * credits only once a window is completely used (RFC 9113 lets it) never does, and without this bound its stream
     * would wait for its idle timeout.
     */
    private final Duration smallFrameWait;

    private final EndPoint endPoint;
    private final ByteBufferPool buffers;
    private final FrameGenerator generator;
    private final Windows windows;
    private final int bufferSize;
    // Small at first (an idle connection keeps them: the default 16 slots each were a fifth of its heap); they grow
    // once to what the connection's concurrency needs.
    private final ArrayDeque<Entry> control = new ArrayDeque<>(2);
    private final ArrayDeque<Entry> queue = new ArrayDeque<>(2);
    // The lists too start without room (ArrayList's default is 10 slots at the first entry) and grow once.
    private final List<Entry> active = new ArrayList<>(0);
    // Under the lock, while an entry generates: whether other entries come after it in this round.
    private boolean othersFollow;
    // Entries fully generated into the current write; swapped with `completing` (under the lock) to be completed.
    private List<Entry> completed = new ArrayList<>(0);
    private List<Entry> completing = new ArrayList<>(0);
    private final List<ByteBuffer> gather = new ArrayList<>(0);
    // Entries generate() could not encode, failed by the flushing thread (the only one in generate()) after unlocking.
    private final List<Entry> rejected = new ArrayList<>();
    private final List<Throwable> rejections = new ArrayList<>();
    private RetainableByteBuffer output;
    private Throwable terminated;
    // Set once a mapping fault surfaced outside the copy's guard (see process()): stream entries are failed with it
    // from then on, never generated; only control frames (the GOAWAY) still go out. Under the lock.
    private IOException faulted;
    // Told once of such a fault, after the flusher failed the queued stream entries: sends GOAWAY and closes.
    private final Consumer<IOException> connectionFault;
    private int maxFrameSize = 16_384;
    private int peerInitialStreamWindow = Http2Settings.DEFAULT_INITIAL_WINDOW_SIZE;
    // Whether the round being generated held a fragment back (silly-window rule), and the timer that will look at the
    // held fragments again; both under the lock.
    private boolean heldThisRound;
    private Timeout holdTimer;
    // Runs the callbacks that may block when they complete on a thread that must not (see complete()).
    private final Executor blockingCallbacks;

    Http2Flusher(
            ReentrantLock lock,
            HashedWheelTimer timer,
            Duration smallFrameWait,
            EndPoint endPoint,
            ByteBufferPool buffers,
            FrameGenerator generator,
            Windows windows,
            int bufferSize,
            Executor blockingCallbacks,
            Consumer<IOException> connectionFault) {
        this.lock = lock;
        this.connectionFault = connectionFault;
        this.blockingCallbacks = blockingCallbacks;
        this.timer = timer;
        this.smallFrameWait = smallFrameWait;
        this.endPoint = endPoint;
        this.buffers = buffers;
        this.generator = generator;
        this.windows = windows;
        this.bufferSize = bufferSize;
    }

    /** The send windows, owned by the connection, read and written under its lock. */
    interface Windows {
        /** @return the connection's send window */
        int connectionSendWindow();

        /** @param bytes consumed from the connection's send window */
        void consumeConnectionSendWindow(int bytes);
    }

    /**
     * Queues an entry; control entries jump the queue.
     *
     * @return false if the flusher is terminated (the entry's callback was failed)
     */
    boolean offer(Entry entry) {
        Throwable failure;
        lock.lock();
        try {
            failure = terminated;
            if (failure == null) {
                if (entry.isControl()) {
                    control.add(entry);
                } else {
                    queue.add(entry);
                }
            }
        } finally {
            lock.unlock();
        }
        if (failure != null) {
            if (entry.stream != null) {
                entry.stream
                        .markBroken(); // as in terminate(): a write after the connection failed is not the handler's
            }
            complete(entry, failure);
            return false;
        }
        return true;
    }

    /**
     * @return control frames queued and not yet written: they only pile up when the peer does not read, since the
     *     peer's own frames are what most of them answer
     */
    int controlBacklog() {
        lock.lock();
        try {
            return control.size();
        } finally {
            lock.unlock();
        }
    }

    /** @param maxFrameSize the peer's SETTINGS_MAX_FRAME_SIZE */
    void setMaxFrameSize(int maxFrameSize) {
        lock.lock();
        try {
            this.maxFrameSize = maxFrameSize;
            generator.setMaxFrameSize(maxFrameSize);
        } finally {
            lock.unlock();
        }
    }

    /** @param window the peer's SETTINGS_INITIAL_WINDOW_SIZE: the window of a stream with nothing in flight */
    void setPeerInitialStreamWindow(int window) {
        lock.lock();
        try {
            this.peerInitialStreamWindow = window;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The length of the next DATA frame of a stream with {@code remaining} octets to send in its current write, under
     * the lock; 0 to wait for a WINDOW_UPDATE. O(1), allocation-free.
     *
     * <p>Sender-side silly-window avoidance, as TCP's (RFC 1122 4.2.3.4): a frame is not cut smaller than
     * {@link #MIN_DATA_FRAME} (at most half the peer's initial stream window) out of a window that is bound to reopen,
     * nor so as to leave a smaller tail of the write behind it. Otherwise a window credited frame by frame and shared by
     * several streams fragments, down to one-octet frames each credited with a one-octet WINDOW_UPDATE; and every
     * write's tail, cut off by the window, comes back as tiny WINDOW_UPDATEs too. "Bound to reopen": the window that
     * limits the frame has some of our data in flight (the stream window below the peer's initial stream window, or
     * the connection window below its initial 65,535 octets, which only our DATA lowers (RFC 9113 6.9.2)), so a
     * WINDOW_UPDATE is due. A window with nothing in flight (the peer configured it tiny) is used as it is, and the
     * last piece of a write goes as soon as the windows hold all of it, however small. And the WINDOW_UPDATE that is
     * due may never come, since a client may credit only once a window is completely used: a fragment held back for
     * {@code smallFrameWait} goes anyway ({@code holdExpired}). Nothing waits forever here.
     *
     * @param holdExpired whether this fragment has already waited {@code smallFrameWait} for credit: whatever
     *     the windows allow goes
     */
    int dataFrameLength(Http2Stream stream, int remaining, boolean holdExpired) {
        int streamWindow = stream.sendWindow();
        int connectionWindow = windows.connectionSendWindow();
        int length = Math.min(Math.min(remaining, maxFrameSize), Math.min(streamWindow, connectionWindow));
        if (length <= 0 || holdExpired) {
            return Math.max(length, 0);
        }
        int tail = remaining - length;
        int small = Math.max(1, Math.min(MIN_DATA_FRAME, peerInitialStreamWindow / 2));
        if (tail == 0 || (length >= small && tail >= small)) {
            return length; // all of it, or a frame and a tail both worth their frames: the common case
        }
        boolean creditDue = (streamWindow == length && streamWindow < peerInitialStreamWindow)
                || (connectionWindow == length && connectionWindow < Http2Settings.DEFAULT_INITIAL_WINDOW_SIZE);
        if (length >= small && remaining - small >= small) {
            return remaining - small; // a shorter frame, that leaves a tail worth a frame of its own
        }
        return creditDue ? 0 : length;
    }

    /**
     * Under the lock, when {@link #dataFrameLength} returned 0: notes a fragment held back by the silly-window rule
     * (both windows are open), so that the timer looks at it again after {@code smallFrameWait}; a closed window
     * is the peer's to open and holds nothing back.
     *
     * @param heldSince when this fragment was first held back, or {@code NOT_HELD}
     * @return when it was first held back ({@code heldSince}, or now), or {@code NOT_HELD} if a window is closed
     */
    long hold(Http2Stream stream, long heldSince) {
        if (stream.sendWindow() <= 0 || windows.connectionSendWindow() <= 0) {
            return NOT_HELD;
        }
        heldThisRound = true;
        // System.nanoTime(), not the timer's coarse clock, which lags by as long as its ticker is kept from running: a
        // late tick would make a fragment held a moment ago look held for long. Only a held fragment reads the clock.
        return heldSince != NOT_HELD ? heldSince : System.nanoTime();
    }

    /** @return whether a fragment held back since {@code heldSince} has waited long enough for credit; under the lock */
    boolean holdExpired(long heldSince) {
        return heldSince != NOT_HELD && System.nanoTime() - heldSince >= smallFrameWait.toNanos();
    }

    /**
     * Under the lock, at the end of a round: if it held a fragment back, makes sure the timer will run a round again
     * (the hold of a fragment expires only in a round, and no WINDOW_UPDATE may come to start one). One timer per
     * connection, armed only while something is held back.
     */
    private void armHoldTimer() {
        if (!heldThisRound || holdTimer != null || terminated != null) {
            heldThisRound = false;
            return;
        }
        heldThisRound = false;
        try {
            holdTimer = timer.schedule(Invocable.task(InvocationType.NON_BLOCKING, this::onHoldTimer), smallFrameWait);
        } catch (IllegalStateException stopped) {
            // The server is stopping: its connections are being closed, this one with them.
        }
    }

    private void onHoldTimer() {
        lock.lock();
        try {
            holdTimer = null;
        } finally {
            lock.unlock();
        }
        iterate();
    }

    @Override
    protected Action process() {
        boolean writing = false;
        try {
            while (true) {
                generate();
                if (!gather.isEmpty()) {
                    writing = true;
                    endPoint.write(this, gather.toArray(ByteBuffer[]::new));
                    return Action.SCHEDULED;
                }
                if (completed.isEmpty()) {
                    // Nothing to write: idle, or everything left waits for a WINDOW_UPDATE.
                    return Action.IDLE;
                }
                // Entries that completed without writing a byte (an empty, non-last write): complete them and look
                // again.
                succeedCompleted();
            }
        } catch (InternalError x) {
            if (!MappingFaults.isReadFault(x)) {
                throw x;
            }
            return onMappingFault(x, writing);
        }
    }

    /**
     * A mapping fault that surfaced outside the copy's guard: compiled code may have the JVM throw it asynchronously,
     * at the thread's next safepoint poll (a return, a loop's back edge), after the copy returned with whatever it did
     * not read (a standalone C2-compiled copy on JDK 25 does so; how the JIT shapes the code decides). Where it surfaced says nothing certain about which stream's frame holds unread bytes,
     * nor what state the interrupted generation left, so none of this round is written and the connection fails: its
     * stream entries are failed (a file mapping's with the fault, so that its file is opened again), and the
     * connection is told, to send GOAWAY and close. If it surfaced once the write was started, the endpoint may hold
     * that write: the connection closes at once.
     *
     * @param writing whether the endpoint's write was called in this round
     */
    private Action onMappingFault(InternalError fault, boolean writing) {
        IOException cause = new IOException(
                "cannot read a file being sent (truncated while it was sent?), failing the connection: "
                        + fault.getMessage(),
                fault);
        LOG.log(Level.DEBUG, () -> "HTTP/2 connection failed on " + endPoint + ": " + cause.getMessage());
        gather.clear();
        if (writing) {
            // Closed first: the write in flight fails before the entries' callbacks give their buffers back.
            endPoint.close(cause);
            terminate(cause);
            return Action.SCHEDULED;
        }
        List<Entry> failed = new ArrayList<>();
        lock.lock();
        try {
            if (faulted == null) {
                faulted = cause;
            }
            failed.addAll(completed); // generated into this round, which is not written
            completed.clear();
            takeStreamEntries(active, failed);
            takeStreamEntries(queue, failed);
        } finally {
            lock.unlock();
        }
        IOException connectionFailure = new IOException("HTTP/2 connection failed: " + cause.getMessage());
        for (Entry entry : failed) {
            if (entry.stream != null) {
                entry.stream.markBroken();
            }
        }
        for (Entry entry : failed) {
            complete(entry, entry.isFileMapping() ? cause : connectionFailure);
        }
        failRejected(); // rejected before the fault, in the round it interrupted
        connectionFault.accept(cause);
        // The GOAWAY the connection queued goes in the next round (the connection's iterate() asked for one).
        return Action.IDLE;
    }

    /** Under the lock: moves the stream entries of {@code entries} (not the control ones) to {@code into}. */
    private static void takeStreamEntries(java.util.Collection<Entry> entries, List<Entry> into) {
        entries.removeIf(entry -> {
            if (!entry.isControl()) {
                into.add(entry);
                return true;
            }
            return false;
        });
    }

    /**
     * Completes the entries of the write that finished, outside the lock. They leave {@code completed} first: a
     * callback may close the connection (the GOAWAY's does), which terminates this flusher, and terminate() must
     * neither fail entries that were written nor modify the list being iterated.
     */
    private void succeedCompleted() {
        List<Entry> entries;
        lock.lock();
        try {
            entries = completed;
            completed = completing;
            completing = entries;
        } finally {
            lock.unlock();
        }
        try {
            for (Entry entry : entries) {
                complete(entry, null);
            }
        } finally {
            entries.clear();
        }
    }

    /** Turns queued entries into frames in the output buffer, and fills {@link #gather} with what to write. */
    private void generate() {
        gather.clear();
        lock.lock();
        try {
            if (terminated != null) {
                return;
            }
            // Control frames go before every stream entry, including those still in `active` from an earlier round
            // (stalled on a closed window): a SETTINGS ACK must precede the DATA that the new settings release.
            active.addAll(0, control);
            control.clear();
            active.addAll(queue);
            queue.clear();
            if (active.isEmpty()) {
                // Nothing to write (the last write completed, or nothing was queued): the buffer goes back to the
                // pool, as HTTP/1.1's does, so that an idle connection holds none. The next round takes one again.
                releaseOutput();
                return;
            }
            if (output == null) {
                output = buffers.acquire(bufferSize, true);
            }
            ByteBuffer out = output.byteBuffer();
            out.clear();
            int segmentStart = 0;
            for (int i = 0; i < active.size(); ) {
                Entry entry = active.get(i);
                Generated result;
                if (faulted != null && !entry.isControl()) {
                    // Queued after a mapping fault failed the connection: only its GOAWAY and close go out now.
                    active.remove(i);
                    rejected.add(entry);
                    rejections.add(faulted);
                    continue;
                }
                othersFollow = i < active.size() - 1;
                try {
                    result = entry.generate(this, out);
                } catch (BufferOverflowException x) {
                    if (out.position() == 0) {
                        // The entry alone does not fit an empty buffer: a huge header block. Fail that stream only.
                        active.remove(i);
                        rejected.add(entry);
                        rejections.add(new IllegalStateException(
                                "frame larger than the " + out.capacity() + "-byte write buffer"));
                        continue;
                    }
                    break; // the buffer is full: write what we have, the rest goes in the next round
                } catch (IllegalArgumentException x) {
                    // Fields that cannot be sent (checked before anything was encoded, so the buffer and the HPACK
                    // table are untouched): fail that stream only, never the connection.
                    active.remove(i);
                    rejected.add(entry);
                    rejections.add(x);
                    continue;
                } catch (UnreadableContentException x) {
                    // A file mapping that faulted: what the entry generated before (its head, whole frames) stays, the
                    // frame being copied was not started. The stream's write fails, and the exchange resets it.
                    active.remove(i);
                    rejected.add(entry);
                    rejections.add(x.getCause());
                    continue;
                }
                if (result.payload != null) {
                    // A large payload is gathered from its own buffer, right after its frame header.
                    gather.add(slice(out, segmentStart, out.position()));
                    gather.add(result.payload);
                    segmentStart = out.position();
                }
                if (result.done) {
                    active.remove(i);
                    completed.add(entry);
                } else {
                    i++; // stalled (window closed) or partly sent: keep it, look at the next stream
                }
                if (gather.size() >= 64) {
                    break;
                }
            }
            if (out.position() > segmentStart) {
                gather.add(slice(out, segmentStart, out.position()));
            }
            if (gather.isEmpty()) {
                releaseOutput(); // every entry waits for a WINDOW_UPDATE: nothing of the buffer is in use
            }
            armHoldTimer();
        } finally {
            lock.unlock();
        }
        failRejected();
    }

    /**
     * Completes an entry's callback, or fails it with {@code failure}. A callback that may block (an asynchronous
     * handler's {@code Callback.from(...)}, say) is not run on a thread that must not block, typically the selector that
     * completed the write or parsed the frame that ended the stream: it goes to a thread that may, as the endpoint does
     * with an HTTP/1.1 write's callback. Blocking handlers' own writes wait with non-blocking callbacks, which run here.
     */
    private void complete(Entry entry, Throwable failure) {
        if (entry.callback.invocationType() == InvocationType.BLOCKING && Invocable.isNonBlockingInvocation()) {
            Runnable completion = failure == null ? entry::succeed : () -> entry.fail(failure);
            try {
                blockingCallbacks.execute(Invocable.task(InvocationType.BLOCKING, completion));
                return;
            } catch (RejectedExecutionException x) {
                // The server is stopping: complete it here rather than lose it.
            }
        }
        if (failure == null) {
            entry.succeed();
        } else {
            entry.fail(failure);
        }
    }

    /**
     * Fails the entries that could not be generated, outside the lock: their callbacks may call back in. Each leaves
     * the lists before its callback runs, so that a fault surfacing meanwhile (see {@link #onMappingFault}), which
     * fails the rest, never completes one twice.
     */
    private void failRejected() {
        while (!rejected.isEmpty()) { // in order; a handful at most
            Entry entry = rejected.remove(0);
            complete(entry, rejections.remove(0));
        }
    }

    private static ByteBuffer slice(ByteBuffer out, int from, int to) {
        return out.duplicate().position(from).limit(to);
    }

    @Override
    public void succeeded() {
        succeedCompleted();
        super.succeeded();
    }

    @Override
    protected void onCompleteFailure(Throwable cause) {
        // Terminated first (the connection closed, or a fault failed it): whoever terminated it closes the endpoint. A
        // racy read: at worst the endpoint is closed twice, which does nothing the second time.
        // A write refused because the output is shut down or the channel closed: the connection is closing already
        // (a lingering close must not be cut short).
        boolean closing = terminated != null || cause instanceof ClosedChannelException || endPoint.isOutputShutdown();
        if (!closing) {
            // A failed write, or an error of ours in process(): a connection that can no longer write would otherwise
            // go on reading, its streams' writes failing, until its idle timeout. Closed before the entries fail, so
            // that no write is in flight from the buffers their callbacks give back.
            endPoint.close(cause);
        }
        terminate(cause);
    }

    /**
     * Fails everything queued and refuses new entries; releases the buffer when no write is in progress.
     *
     * @param cause why
     */
    void terminate(Throwable cause) {
        List<Entry> failed = new ArrayList<>();
        lock.lock();
        try {
            if (terminated == null) {
                terminated = cause;
            }
            failed.addAll(control);
            failed.addAll(queue);
            failed.addAll(active);
            failed.addAll(completed);
            control.clear();
            queue.clear();
            active.clear();
            completed.clear();
            if (holdTimer != null) {
                holdTimer.cancel();
                holdTimer = null;
            }
        } finally {
            lock.unlock();
        }
        for (Entry entry : failed) {
            if (entry.stream != null) {
                // The connection failed under the stream (typically the client reset it): a handler whose write fails
                // now is not at fault, and must not be logged as if it were, once per stream of the connection.
                entry.stream.markBroken();
            }
        }
        for (Entry entry : failed) {
            complete(entry, cause);
        }
        close();
    }

    /** Releases the output buffer; only once no write can be in progress (the endpoint is closed). */
    void release() {
        lock.lock();
        try {
            releaseOutput();
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock, with no write in progress: gives the output buffer back to the pool, if one is held. */
    private void releaseOutput() {
        RetainableByteBuffer held = output;
        if (held != null) {
            output = null;
            held.release();
        }
    }

    /** @return whether the output buffer is held (between a round that wrote frames and the next that has none) */
    boolean holdsOutput() {
        lock.lock();
        try {
            return output != null;
        } finally {
            lock.unlock();
        }
    }

    /** Fails and removes the queued entries of one stream (it was reset). */
    void removeStream(Http2Stream stream, Throwable cause) {
        List<Entry> failed = new ArrayList<>();
        lock.lock();
        try {
            collect(queue, stream, failed);
            collect(active, stream, failed);
        } finally {
            lock.unlock();
        }
        for (Entry entry : failed) {
            complete(entry, cause);
        }
    }

    private static void collect(java.util.Collection<Entry> entries, Http2Stream stream, List<Entry> into) {
        entries.removeIf(entry -> {
            if (entry.stream == stream) {
                into.add(entry);
                return true;
            }
            return false;
        });
    }

    @Override
    public InvocationType invocationType() {
        return InvocationType.NON_BLOCKING;
    }

    int maxFrameSize() {
        return maxFrameSize;
    }

    FrameGenerator generator() {
        return generator;
    }

    Windows windows() {
        return windows;
    }

    /** What generating an entry produced. */
    record Generated(boolean done, ByteBuffer payload) {
        static final Generated DONE = new Generated(true, null);
        static final Generated STALLED = new Generated(false, null);
        /** Some of the entry was generated in the buffer; it goes on in a later round. */
        static final Generated PARTLY_SENT = new Generated(false, null);
    }

    /** Something to write: control frames, a stream's headers, data, trailers. */
    abstract static class Entry {
        final Http2Stream stream;
        final Callback callback;

        Entry(Http2Stream stream, Callback callback) {
            this.stream = stream;
            this.callback = callback;
        }

        boolean isControl() {
            return false;
        }

        /**
         * @return whether this entry is copied whole into the frame buffer (a head, a small payload): worth writing
         *     together with other streams' entries rather than with a system call of its own
         */
        boolean isSmall() {
            return false;
        }

        /** @return whether this entry copies from a file mapping, whose read faults if the file was truncated */
        boolean isFileMapping() {
            return false;
        }

        /**
         * Writes frames into {@code out} under the connection lock.
         *
         * @throws BufferOverflowException if nothing more fits (nothing was written for this entry by this call)
         */
        abstract Generated generate(Http2Flusher flusher, ByteBuffer out);

        void succeed() {
            callback.succeeded();
        }

        void fail(Throwable failure) {
            callback.failed(failure);
        }
    }

    /** A pre-generated control frame (SETTINGS, PING, WINDOW_UPDATE, RST_STREAM, GOAWAY): goes first. */
    static final class ControlEntry extends Entry {
        private final Consumer<ByteBuffer> frame;

        ControlEntry(Consumer<ByteBuffer> frame, Callback callback) {
            super(null, callback);
            this.frame = frame;
        }

        @Override
        boolean isControl() {
            return true;
        }

        @Override
        Generated generate(Http2Flusher flusher, ByteBuffer out) {
            frame.accept(out);
            return Generated.DONE;
        }
    }

    /** A response head, optionally followed by content (the common case: a whole small response in one entry). */
    static final class ResponseEntry extends Entry {
        private final int status;
        private final HttpFields fields;
        private final HttpFields trailers;
        private ByteBuffer content;
        // Whether content is a region of a file mapping: copied into frames under a guard, never gathered.
        private final boolean fileMapping;
        private final boolean last;
        // Decided by the sending thread before the entry is queued: the flusher moves the content's position later.
        private final boolean small;
        private boolean headersSent;
        // When the silly-window rule first held back the next fragment of this write (System.nanoTime()), or NOT_HELD.
        private long heldSince = NOT_HELD;

        ResponseEntry(
                Http2Stream stream,
                int status,
                HttpFields fields,
                ByteBuffer content,
                boolean last,
                HttpFields trailers,
                Callback callback) {
            this(stream, status, fields, content, false, last, trailers, callback);
        }

        /** @param fileMapping whether {@code content} is a region of a file mapping, which faults if truncated */
        ResponseEntry(
                Http2Stream stream,
                int status,
                HttpFields fields,
                ByteBuffer content,
                boolean fileMapping,
                boolean last,
                HttpFields trailers,
                Callback callback) {
            super(stream, callback);
            this.status = status;
            this.fields = fields;
            this.content = content;
            this.fileMapping = fileMapping;
            this.last = last;
            this.trailers = trailers;
            this.small = content == null || content.remaining() <= COPY_THRESHOLD;
        }

        @Override
        boolean isSmall() {
            return small;
        }

        @Override
        boolean isFileMapping() {
            return fileMapping;
        }

        @Override
        Generated generate(Http2Flusher flusher, ByteBuffer out) {
            if (!headersSent && fields != null && HttpStatus.isInformational(status) && stream.isFinalHeadSent()) {
                // A 100 Continue queued by a demand on one thread after the final head queued on another (RFC 9110
                // 15.2: interim responses come before the final one). Decided here, under the lock and in the
                // stream's order, where the head has either gone out already or not.
                LOG.log(Level.DEBUG, () -> "dropping a " + status + " after the final response head on " + stream);
                return Generated.DONE;
            }
            if (!headersSent && fields != null) {
                if (!HttpStatus.isInformational(status)) {
                    stream.onFinalHeadSent();
                }
                boolean endWithHeaders = last && (content == null || !content.hasRemaining()) && trailers == null;
                flusher.generator().responseHeaders(out, stream.id(), status, fields, endWithHeaders);
                headersSent = true;
                if (endWithHeaders) {
                    stream.onEndStreamSent();
                    return Generated.DONE;
                }
            }
            headersSent = true;
            return generateData(flusher, out);
        }

        /**
         * Under the lock: copies the next DATA frame of a file mapping into {@code out}, payload first, under a guard,
         * then its header; the windows are consumed only once the copy succeeded, so a fault leaves no trace.
         *
         * @param length the frame length the windows allow; the frame may be cut shorter to fit {@code out}
         * @throws BufferOverflowException if {@code out} is too full to be worth a frame now (nothing was written)
         * @throws UnreadableContentException if the mapping faulted (nothing was written)
         */
        private void copyMappedFrame(Http2Flusher flusher, ByteBuffer out, int length) {
            int room = out.remaining() - FRAME_HEADER;
            // Less than a quarter of the buffer left: write what it holds first, rather than cut a short frame. An
            // empty buffer always takes a frame (the quarter is below its capacity less a frame header).
            if ((room < length && room < out.capacity() / 4) || room <= 0) {
                throw new BufferOverflowException();
            }
            int copied = Math.min(length, room);
            int start = out.position();
            try {
                out.put(start + FRAME_HEADER, content, content.position(), copied);
            } catch (InternalError fault) {
                throw new UnreadableContentException(new IOException(
                        "cannot read the file being sent (truncated while it was sent?): " + fault.getMessage(),
                        fault));
            }
            boolean end = last && trailers == null && copied == content.remaining();
            flusher.generator().dataHeader(out, stream.id(), copied, end);
            out.position(start + FRAME_HEADER + copied);
            content.position(content.position() + copied);
            flusher.windows().consumeConnectionSendWindow(copied);
            stream.consumeSendWindow(copied);
            if (end) {
                stream.onEndStreamSent();
            }
        }

        private Generated generateData(Http2Flusher flusher, ByteBuffer out) {
            ByteBuffer payload = null;
            while (content != null && content.hasRemaining()) {
                int length = flusher.dataFrameLength(stream, content.remaining(), flusher.holdExpired(heldSince));
                if (length == 0) {
                    heldSince = flusher.hold(stream, heldSince);
                    stream.sendStalled(true); // waiting on the peer to open a window (wider)
                    return Generated.STALLED;
                }
                heldSince = NOT_HELD;
                if (fileMapping) {
                    copyMappedFrame(flusher, out, length);
                    if (flusher.othersFollow && (content.hasRemaining() || (last && trailers != null))) {
                        // Other streams' entries come after this one in the round: one frame now, the rest of the
                        // buffer for them, as a large payload gives up its turn after one frame. Otherwise a large
                        // file would fill every buffer until it is sent, and a small response queued behind it
                        // (a page's script behind its image) would wait for all of it. The last entry of a round
                        // may fill the buffer: nobody waits behind it.
                        return Generated.PARTLY_SENT;
                    }
                    continue;
                }
                boolean end = last && trailers == null && length == content.remaining();
                if (out.remaining() < FRAME_HEADER + (length <= COPY_THRESHOLD ? length : 0)) {
                    throw new BufferOverflowException();
                }
                flusher.generator().dataHeader(out, stream.id(), length, end);
                flusher.windows().consumeConnectionSendWindow(length);
                stream.consumeSendWindow(length);
                if (end) {
                    stream.onEndStreamSent();
                }
                if (length <= COPY_THRESHOLD) {
                    ByteBuffer part = content.duplicate();
                    part.limit(part.position() + length);
                    out.put(part);
                    content.position(content.position() + length);
                    continue;
                }
                payload = content.duplicate();
                payload.limit(payload.position() + length);
                content.position(content.position() + length);
                // One large payload per round for this entry: it is gathered right after its header.
                return content.hasRemaining() || (last && trailers != null)
                        ? new Generated(false, payload)
                        : new Generated(true, payload);
            }
            if (last && trailers != null) {
                flusher.generator().trailers(out, stream.id(), trailers);
                stream.onEndStreamSent();
                return Generated.DONE;
            }
            if (last && (content == null || !content.hasRemaining()) && !stream.isEndStreamSent()) {
                // No content at all, and headers were already sent earlier: an empty DATA frame ends the stream.
                if (out.remaining() < FRAME_HEADER) {
                    throw new BufferOverflowException();
                }
                flusher.generator().dataHeader(out, stream.id(), 0, true);
                stream.onEndStreamSent();
            }
            return Generated.DONE;
        }
    }

    /**
     * The content of a write could not be read: a region of a file mapping whose file was truncated while it was sent
     * (the JVM answers the fault with an {@link InternalError}). Thrown by an entry's generation, with nothing of the
     * frame it was copying generated; the flusher fails that entry with the cause.
     */
    static final class UnreadableContentException extends RuntimeException {
        UnreadableContentException(IOException cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    /** A RST_STREAM we send. */
    static ControlEntry reset(int streamId, ErrorCode error, FrameGenerator generator) {
        return new ControlEntry(out -> generator.rstStream(out, streamId, error), Callback.NOOP);
    }
}
