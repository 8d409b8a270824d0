package dev.quarry.io;

import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;

/**
 * A file region on its way into a socket with {@link FileChannel#transferTo} ({@code sendfile}): the region still to
 * send, advanced turn by turn. One per {@link EndPoint#transfer}, so that the many connections that never send a file
 * carry no transfer state.
 *
 * <p>Thread-safety: written by the thread that starts or continues the transfer; the endpoint publishes it to the
 * thread that continues it through its write interest (a happens-before edge), so the fields need no volatile.
 */
final class FileTransfer {
    private final FileChannel file;
    private long position;
    private long remaining;

    FileTransfer(FileChannel file, long position, long count) {
        this.file = file;
        this.position = position;
        this.remaining = count;
    }

    /**
     * Sends what the socket takes now, at most {@code turn} bytes, so that one large download does not keep its
     * selector from the other endpoints.
     *
     * @return the bytes sent by this call
     * @throws EOFException if the file ends before the region does
     * @throws IOException if the transfer fails
     */
    long send(SocketChannel channel, long turn) throws IOException {
        long sent = 0;
        while (remaining > 0 && sent < turn) {
            long n = file.transferTo(position, remaining, channel);
            if (n == 0) {
                if (position >= file.size()) {
                    throw new EOFException("file ended at " + position + ", " + remaining
                            + " bytes before the end of the region to send");
                }
                break; // the socket is full
            }
            position += n;
            remaining -= n;
            sent += n;
        }
        return sent;
    }

    /** @return whether the whole region was sent */
    boolean isDone() {
        return remaining == 0;
    }

    @Override
    public String toString() {
        return "FileTransfer{position=" + position + ", remaining=" + remaining + "}";
    }
}
