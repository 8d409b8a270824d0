package dev.quarry.client;

import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.Http2Exception;
import dev.quarry.http.h2.Http2Settings;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The send side of a client HTTP/2 connection's flow control (RFC 9113 §6.9): the connection's window, the window the
 * server gives each new stream, and the request writers parked until a WINDOW_UPDATE or SETTINGS opens their windows.
 *
 * <p>Thread-safety: every method except {@link #unpark} runs under the connection's lock; the threads it hands out are
 * unparked by the caller after unlocking, so that a woken writer does not at once block on that lock.
 */
final class Http2SendWindows {
    private final List<Http2Stream> waiters = new ArrayList<>();
    private long connectionWindow = Http2Settings.DEFAULT_INITIAL_WINDOW_SIZE;
    private int initialStreamWindow = Http2Settings.DEFAULT_INITIAL_WINDOW_SIZE;

    /** @return the send window a new stream starts with: the server's SETTINGS_INITIAL_WINDOW_SIZE */
    int initialStreamWindow() {
        return initialStreamWindow;
    }

    /**
     * Takes credit for up to {@code want} bytes from the stream's and the connection's windows; when either is closed,
     * registers the calling thread to be handed out by {@link #takeWaiters()}.
     *
     * @return the bytes granted, or 0 if the caller must park and ask again
     */
    int take(Http2Stream stream, int want) {
        int n = (int) Math.min(want, Math.min(stream.sendWindow, connectionWindow));
        if (n > 0) {
            stream.sendWindow -= n;
            connectionWindow -= n;
            return n;
        }
        stream.creditWaiter = Thread.currentThread();
        waiters.add(stream);
        return 0;
    }

    /** Credit taken for a DATA frame that was never sent goes back to the connection's window. */
    void giveBack(int bytes) {
        connectionWindow += bytes;
    }

    /** A WINDOW_UPDATE for the connection. */
    void creditConnection(int increment) {
        connectionWindow += increment;
        if (connectionWindow > Http2Settings.MAX_WINDOW_SIZE) {
            throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "connection send window above 2^31-1");
        }
    }

    /** A WINDOW_UPDATE for one stream. */
    static void creditStream(Http2Stream stream, int increment) {
        stream.sendWindow += increment;
        if (stream.sendWindow > Http2Settings.MAX_WINDOW_SIZE) {
            throw Http2Exception.stream(stream.id, ErrorCode.FLOW_CONTROL_ERROR, "stream send window above 2^31-1");
        }
    }

    /**
     * The server changed SETTINGS_INITIAL_WINDOW_SIZE: the difference applies to every open stream's window, which may
     * go negative; one pushed past 2^31-1 is a connection error (RFC 9113 §6.9.2).
     */
    void initialStreamWindow(int value, List<Http2Stream> open) {
        int delta = value - initialStreamWindow;
        initialStreamWindow = value;
        for (Http2Stream stream : open) {
            stream.sendWindow += delta;
            if (stream.sendWindow > Http2Settings.MAX_WINDOW_SIZE) {
                throw Http2Exception.connection(
                        ErrorCode.FLOW_CONTROL_ERROR,
                        "SETTINGS_INITIAL_WINDOW_SIZE " + value + " pushes stream " + stream.id
                                + "'s send window above 2^31-1");
            }
        }
    }

    /** @return the threads of every writer waiting for credit (to unpark after unlocking); none wait afterwards */
    List<Thread> takeWaiters() {
        if (waiters.isEmpty()) {
            return List.of();
        }
        List<Thread> threads = new ArrayList<>(waiters.size());
        for (Http2Stream stream : waiters) {
            Thread thread = takeWaiter(stream);
            if (thread != null) {
                threads.add(thread);
            }
        }
        waiters.clear();
        return threads;
    }

    /**
     * @return the thread of the stream's writer if it waits for credit (to unpark after unlocking, so that it sees the
     *     stream ended), or null
     */
    static Thread takeWaiter(Http2Stream stream) {
        Thread thread = stream.creditWaiter;
        stream.creditWaiter = null;
        return thread;
    }

    /** Unparks the threads {@link #takeWaiters()} handed out; called without the lock. */
    static void unpark(List<Thread> threads) {
        for (Thread thread : threads) {
            LockSupport.unpark(thread);
        }
    }
}
