package dev.quarry.server.internal.h2;

import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.Http2Exception;
import dev.quarry.http.h2.Http2Settings;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The connection-level flow-control windows (RFC 9113 6.9) of one HTTP/2 connection: the send window the flusher
 * spends and WINDOW_UPDATE on stream 0 refills, and the receive window DATA spends and our WINDOW_UPDATE refills as
 * handlers consume. Pure accounting: the connection sends the frames. Stream windows live in {@link Http2Stream}.
 *
 * <p>Threading: both windows and the unacknowledged credit are guarded by the connection's lock (the flusher spends
 * the send window under it, the producer the receive window, and whichever thread consumes content gives credit back
 * under it). O(1), allocation-free.
 */
final class Http2ConnectionWindow implements Http2Flusher.Windows {
    private final ReentrantLock lock;
    private final int window;
    private int sendWindow = Http2Settings.DEFAULT_INITIAL_WINDOW_SIZE;
    private int recvWindow;
    private int unacked;

    /**
     * @param lock the connection's lock
     * @param window our connection receive window (announced in the preface)
     */
    Http2ConnectionWindow(ReentrantLock lock, int window) {
        this.lock = lock;
        this.window = window;
        this.recvWindow = window;
    }

    @Override
    public int connectionSendWindow() {
        return sendWindow;
    }

    @Override
    public void consumeConnectionSendWindow(int bytes) {
        sendWindow -= bytes;
    }

    /**
     * DATA arrived; by the producer, under the lock.
     *
     * @param flowControlledLength the frame's length, padding included
     * @throws Http2Exception FLOW_CONTROL_ERROR if the peer overran the window
     */
    void onData(int flowControlledLength) {
        recvWindow -= flowControlledLength;
        if (recvWindow < 0) {
            throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "DATA beyond the connection window");
        }
    }

    /**
     * Request content was consumed by its handler, or discarded (padding, a stream that ended or was reset); under the
     * lock. Connection-level credit returns only then, not as DATA arrives: so the window bounds what the whole
     * connection holds unread, whatever its streams' windows add up to. One WINDOW_UPDATE once half of the window was
     * given back.
     *
     * @param bytes flow-controlled bytes
     * @return the increment of the WINDOW_UPDATE on stream 0 to send now, or 0
     */
    int onConsumed(int bytes) {
        unacked += bytes;
        if (unacked >= window / 2) {
            int increment = unacked;
            unacked = 0;
            recvWindow += increment;
            return increment;
        }
        return 0;
    }

    /**
     * WINDOW_UPDATE on stream 0; takes the lock.
     *
     * @throws Http2Exception FLOW_CONTROL_ERROR if the window would exceed 2^31-1
     */
    void onWindowUpdate(int increment) {
        lock.lock();
        try {
            long next = (long) sendWindow + increment;
            if (next > Integer.MAX_VALUE) {
                throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "connection window above 2^31-1");
            }
            sendWindow = (int) next;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "Http2ConnectionWindow{send=" + sendWindow + ", recv=" + recvWindow + ", unacked=" + unacked + "}";
    }
}
