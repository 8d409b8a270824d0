package dev.quarry.server;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.IteratingCallback;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Writes a file region through {@link Response#write(boolean, ByteBuffer, Callback)}, one chunk at a time: read a
 * chunk, write it, and read the next only when the write completed, so at most one chunk is buffered however slow the
 * client. Used when zero-copy transfer is not possible (chunked framing, TLS, HTTP/2, a wrapped response).
 *
 * <p>A file read may block (a slow disk, a network file system), so it never runs on a thread that must not block: the
 * writer declares {@link InvocationType#BLOCKING}, so that a write completed by a selector resumes it on a thread that
 * may block, and when it is resumed on a marked thread anyway (a write that completed at once, in place) it moves to a
 * virtual thread before reading. Either way the next chunk is read only once the previous one was written.
 */
final class FileRegionWriter extends IteratingCallback {
    static final int CHUNK = 32 * 1024;

    private final Response response;
    private final FileChannel file;
    private final long end;
    private final boolean last;
    private final Callback callback;
    private final ByteBuffer buffer;
    private long position;

    private FileRegionWriter(
            Response response, FileChannel file, long position, long count, boolean last, Callback callback) {
        this.response = response;
        this.file = file;
        this.position = position;
        this.end = position + count;
        this.last = last;
        this.callback = callback;
        this.buffer = ByteBuffer.allocate((int) Math.min(CHUNK, Math.max(count, 1)));
    }

    static void write(Response response, FileChannel file, long position, long count, boolean last, Callback callback) {
        if (count < 0 || position < 0) {
            callback.failed(new IllegalArgumentException("bad file region " + position + "+" + count));
            return;
        }
        if (count == 0) {
            response.write(last, ByteBuffer.allocate(0), callback);
            return;
        }
        new FileRegionWriter(response, file, position, count, last, callback).iterate();
    }

    @Override
    protected Action process() {
        if (position >= end) {
            return Action.SUCCEEDED;
        }
        if (Invocable.isNonBlockingInvocation()) {
            // Resumed where reading must not happen: the step (read, then write) runs on a virtual thread.
            Thread.ofVirtual().name("quarry-file-read").start(this::step);
        } else {
            step();
        }
        return Action.SCHEDULED;
    }

    /** Reads the next chunk and writes it; the write's completion (this callback) continues the iteration. */
    private void step() {
        buffer.clear();
        buffer.limit((int) Math.min(buffer.capacity(), end - position));
        int read;
        try {
            read = file.read(buffer, position);
            if (read < 0) {
                throw new EOFException("file ended at " + position + ", before the region end " + end);
            }
        } catch (IOException x) {
            failed(x);
            return;
        }
        position += read;
        buffer.flip();
        response.write(last && position >= end, buffer, this);
    }

    @Override
    protected void onCompleteSuccess() {
        callback.succeeded();
    }

    @Override
    protected void onCompleteFailure(Throwable cause) {
        callback.failed(cause);
    }

    @Override
    public InvocationType invocationType() {
        return InvocationType.BLOCKING;
    }
}
