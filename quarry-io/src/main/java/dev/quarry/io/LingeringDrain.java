package dev.quarry.io;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeoutException;

/**
 * The read side of {@link SocketEndPoint#closeLingering(long)}: after our FIN, reads and discards what the peer still
 * sends, and closes the endpoint when the peer closes too, when the linger time is up or when {@link #MAX_BYTES} were
 * discarded. The bounds make a peer that keeps sending cost at most that much time and reading, never memory: the
 * bytes land in one array shared by all drains.
 *
 * <p>Thread-safety: runs as the endpoint's fill callback, so one thread at a time; fields are confined to it.
 */
final class LingeringDrain implements Callback {
    /** The most bytes discarded before giving up on an orderly close. */
    static final long MAX_BYTES = 1024 * 1024;

    private final SocketEndPoint endPoint;
    private final long deadline;
    // What is read is thrown away, so every drain reads into the same array: concurrent writes to it are harmless,
    // and a close costs a small wrapper instead of a 4 KiB buffer (every Connection: close response lingers).
    private static final byte[] DISCARDED = new byte[4096];

    private final ByteBuffer scratch = ByteBuffer.wrap(DISCARDED);
    private long discarded;

    LingeringDrain(SocketEndPoint endPoint, long lingerMillis) {
        this.endPoint = endPoint;
        this.deadline = System.nanoTime() + lingerMillis * 1_000_000L;
    }

    @Override
    public void succeeded() {
        try {
            while (true) {
                scratch.clear();
                int read = endPoint.drainRead(scratch);
                if (read < 0) {
                    endPoint.close(); // orderly on both sides
                    return;
                }
                if (read == 0) {
                    break;
                }
                discarded += read;
                if (discarded >= MAX_BYTES) {
                    endPoint.close(new IOException("the peer sent " + discarded + " bytes after our close"));
                    return;
                }
            }
        } catch (IOException x) {
            endPoint.close(x);
            return;
        }
        if (System.nanoTime() - deadline >= 0) {
            endPoint.close(new TimeoutException("the peer did not close within the linger time"));
            return;
        }
        endPoint.drainInterested(this);
    }

    @Override
    public void failed(Throwable failure) {
        endPoint.close(failure);
    }

    @Override
    public InvocationType invocationType() {
        return InvocationType.NON_BLOCKING;
    }

    @Override
    public String toString() {
        return "LingeringDrain[" + discarded + " bytes discarded, " + endPoint + "]";
    }
}
