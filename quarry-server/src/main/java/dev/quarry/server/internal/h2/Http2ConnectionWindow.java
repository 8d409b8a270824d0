package dev.quarry.server.internal.h2;

import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.Http2Exception;
import dev.quarry.http.h2.Http2Settings;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The connection-level flow-control windows (RFC 9113 6.9) of one HTTP/2 connection: the send window the flusher
 * spends and WINDOW_UPDATE on stream 0 refills, and the receive window DATA spends and our WINDOW_UPDATE refills. Pure
 * accounting: the connection sends the frames. Stream windows live in {@link Http2Stream}.
 *
 * <p>Threading: the send window is guarded by the connection's lock (the flusher reads and spends it under that
 * lock); the receive window and the unacknowledged credit belong to the producer. O(1), allocation-free.
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
     * DATA arrived; on the producer. Connection-level credit returns as data arrives (each stream's own window bounds
     * what it buffers), in one WINDOW_UPDATE once half of the window was spent.
     *
     * @param flowControlledLength the frame's length, padding included
     * @return the increment of the WINDOW_UPDATE on stream 0 to send now, or 0
     * @throws Http2Exception FLOW_CONTROL_ERROR if the peer overran the window
     */
    int onData(int flowControlledLength) {
        recvWindow -= flowControlledLength;
        if (recvWindow < 0) {
            throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "DATA beyond the connection window");
        }
        unacked += flowControlledLength;
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
