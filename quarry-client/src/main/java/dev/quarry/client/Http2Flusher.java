package dev.quarry.client;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.core.IteratingCallback;
import dev.quarry.io.EndPoint;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Writes the frames of one client HTTP/2 connection: frames from any thread are queued, and one thread at a time
 * generates as many as fit into its buffer and writes them with one write. Frames are generated only then, in queue
 * order, so that HPACK encoding order and stream id order are wire order (RFC 9113 4.3, 5.1.1).
 *
 * <p>Flow control is not the flusher's business: the writer of a request takes send-window credit before it queues a
 * DATA frame. A frame that finds its stream gone when it is generated writes nothing.
 *
 * <p>Thread-safety: {@link #offer} from any thread; the queue is guarded by the connection's lock, which is held while
 * frames are generated (short, no I/O) and never during the write.
 */
final class Http2Flusher extends IteratingCallback {
    private static final int MAX_SINGLE_FRAME = 16 * 1024 * 1024 + 9;

    /** One frame (or header block) to write, generated at flush time under the connection's lock. */
    abstract static class Frame {
        /**
         * Writes the frame into {@code out}, or nothing (the stream is gone).
         *
         * @throws BufferOverflowException with {@code out} unchanged when it does not fit
         */
        abstract void generate(ByteBuffer out);

        /** The frame was written (or skipped). Runs on the flushing thread: must not block. */
        void written() {}

        /** The frame could not be written. Runs on any thread: must not block. */
        void failed(Throwable cause) {}
    }

    private final Http2Lock lock;
    private final EndPoint endPoint;
    private final ByteBuffer output;
    private final ArrayDeque<Frame> queue = new ArrayDeque<>();
    private List<Frame> writing = new ArrayList<>();
    private List<Frame> done = new ArrayList<>();
    private Throwable terminated;
    private long frames;

    /**
     * @param bufferSize the size of the write buffer: a frame larger than it (a very large header block) is written
     *     from a buffer of its own
     */
    Http2Flusher(Http2Lock lock, EndPoint endPoint, int bufferSize) {
        this.lock = lock;
        this.endPoint = endPoint;
        // A heap buffer per connection, owned by the flusher for the connection's life: no pooled buffer to return
        // from whichever thread sees the connection close while a write is pending.
        this.output = ByteBuffer.allocate(bufferSize);
    }

    /** @return the most payload of one DATA frame that fits the write buffer */
    int maxDataPayload() {
        return output.capacity() - 9;
    }

    /** Queues a frame and flushes. A frame queued after the connection failed fails at once. */
    void offer(Frame frame) {
        Throwable failure;
        lock.lock();
        try {
            failure = terminated;
            if (failure == null) {
                queue.add(frame);
            }
        } finally {
            lock.unlock();
        }
        if (failure != null) {
            frame.failed(failure);
            return;
        }
        iterate();
    }

    @Override
    protected Action process() {
        List<Frame> completed;
        ByteBuffer single = null;
        lock.lock();
        try {
            completed = writing;
            writing = done;
            done = completed;
            output.clear();
            Frame frame;
            while ((frame = queue.peek()) != null) {
                try {
                    frame.generate(output);
                } catch (BufferOverflowException full) {
                    if (output.position() > 0) {
                        break; // written next time
                    }
                    single = generateAlone(frame);
                }
                queue.poll();
                writing.add(frame);
                frames++;
                if (single != null) {
                    break;
                }
            }
            if (single == null && output.position() == 0) {
                completed.addAll(writing); // frames that wrote nothing
                writing.clear();
            }
        } finally {
            lock.unlock();
        }
        for (Frame frame : completed) {
            frame.written();
        }
        completed.clear();
        if (single != null) {
            endPoint.write(this, single);
            return Action.SCHEDULED;
        }
        if (output.position() > 0) {
            output.flip();
            endPoint.write(this, output);
            return Action.SCHEDULED;
        }
        return Action.IDLE;
    }

    /** A frame larger than the write buffer (a huge header block): written from a heap buffer of its own. */
    private static ByteBuffer generateAlone(Frame frame) {
        for (int size = 64 * 1024; ; size *= 2) {
            ByteBuffer alone = ByteBuffer.allocate(Math.min(size, MAX_SINGLE_FRAME));
            try {
                frame.generate(alone);
                return alone.flip();
            } catch (BufferOverflowException tooSmall) {
                if (size >= MAX_SINGLE_FRAME) {
                    throw tooSmall;
                }
            }
        }
    }

    @Override
    protected void onCompleteFailure(Throwable cause) {
        terminate(cause);
    }

    /** Fails every queued frame and every later one. Idempotent. */
    void terminate(Throwable cause) {
        List<Frame> failed = new ArrayList<>();
        lock.lock();
        try {
            if (terminated == null) {
                terminated = cause;
            }
            failed.addAll(queue);
            queue.clear();
            // Frames of a write that will never complete (the endpoint closed under it); completing a callback twice
            // does nothing, in case the write completes after all.
            failed.addAll(writing);
        } finally {
            lock.unlock();
        }
        for (Frame frame : failed) {
            frame.failed(cause);
        }
        close();
    }

    @Override
    public InvocationType invocationType() {
        return InvocationType.NON_BLOCKING; // generating frames and completing their callbacks never blocks
    }

    @Override
    public String toString() {
        return "Http2Flusher@" + Integer.toHexString(hashCode()) + "{frames=" + frames + ", " + super.toString() + "}";
    }

    /** A frame whose completion is a callback. */
    static Frame of(Consumer<ByteBuffer> generator, Callback callback) {
        return new Frame() {
            @Override
            void generate(ByteBuffer out) {
                generator.accept(out);
            }

            @Override
            void written() {
                callback.succeeded();
            }

            @Override
            void failed(Throwable cause) {
                callback.failed(cause);
            }
        };
    }
}
