package dev.quarry.server.internal.h2;

import dev.quarry.server.ServerStatistics;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * How many files the responses of one HTTP/2 connection keep open: at most {@code max}; a stream that wants one more
 * waits, holding no file, until a response before it closes its file. Without this bound a client that opens every
 * stream it may (128) on file downloads and then stops reading pins a file per stream, and a buffer per stream, until
 * the idle timeout: 170 such connections held 19,999 of 20,000 descriptors. Waiting rather than refusing keeps a
 * browser that opens many downloads at once correct: its files come a few at a time, as over HTTP/1.1 connections.
 *
 * <p>Threading: any thread; state is guarded by the connection's lock, held briefly. The granted stream's callback
 * runs outside it, on the thread that released the permit.
 */
final class Http2OpenFiles {
    private final ReentrantLock lock;
    private final int max;
    private final ServerStatistics statistics;
    private final ArrayDeque<Waiter> waiting = new ArrayDeque<>(1); // rarely used: small until it is
    private int open;
    private boolean closed;

    private record Waiter(Http2Stream stream, Runnable onGranted) {}

    /**
     * @param lock the connection's lock
     * @param max files the connection's responses may keep open at once
     * @param statistics where waits are counted
     */
    Http2OpenFiles(ReentrantLock lock, int max, ServerStatistics statistics) {
        this.lock = lock;
        this.max = max;
        this.statistics = statistics;
    }

    /** @return true if the stream holds a permit now; otherwise {@code onGranted} runs once it does */
    boolean acquire(Http2Stream stream, Runnable onGranted) {
        lock.lock();
        try {
            if (stream.holdsFilePermit()) {
                return true;
            }
            if (open < max || closed) {
                // Once closed, nothing will be written: the response fails at its first write and closes its file.
                open++;
                stream.holdsFilePermit(true);
                return true;
            }
            waiting.add(new Waiter(stream, onGranted));
        } finally {
            lock.unlock();
        }
        statistics.onFileResponseWaited();
        return false;
    }

    /** The stream closed its file: its permit goes to the first waiting stream, if any. */
    void release(Http2Stream stream) {
        Waiter next;
        lock.lock();
        try {
            if (!stream.holdsFilePermit()) {
                return;
            }
            stream.holdsFilePermit(false);
            next = waiting.poll();
            if (next == null) {
                open--;
                return;
            }
            next.stream().holdsFilePermit(true); // handed over: `open` stays
        } finally {
            lock.unlock();
        }
        next.onGranted().run();
    }

    /** The connection closed: waiting streams go on (their writes fail at once), so that every response completes. */
    void close() {
        List<Waiter> all;
        lock.lock();
        try {
            closed = true;
            all = new ArrayList<>(waiting);
            waiting.clear();
            for (Waiter waiter : all) {
                open++;
                waiter.stream().holdsFilePermit(true);
            }
        } finally {
            lock.unlock();
        }
        for (Waiter waiter : all) {
            waiter.onGranted().run();
        }
    }

    @Override
    public String toString() {
        lock.lock();
        try {
            return "Http2OpenFiles{open=" + open + "/" + max + ", waiting=" + waiting.size() + "}";
        } finally {
            lock.unlock();
        }
    }
}
