package dev.quarry.server;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.core.IteratingCallback;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Writes a file region through {@link Response#write(boolean, ByteBuffer, Callback)}, one chunk at a time: read a
 * chunk, write it, and read the next only when the write completed, so at most one chunk is buffered however slow the
 * client. Used when zero-copy transfer is not possible. File reads are plain positional reads: for a file in the page
 * cache they do not block in any meaningful sense, and a server that must never touch the disk on an I/O thread should
 * run its file handler as blocking.
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
    protected Action process() throws IOException {
        if (position >= end) {
            return Action.SUCCEEDED;
        }
        buffer.clear();
        buffer.limit((int) Math.min(buffer.capacity(), end - position));
        int read = file.read(buffer, position);
        if (read < 0) {
            throw new EOFException("file ended at " + position + ", before the region end " + end);
        }
        position += read;
        buffer.flip();
        response.write(last && position >= end, buffer, this);
        return Action.SCHEDULED;
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
        return InvocationType.NON_BLOCKING;
    }
}
