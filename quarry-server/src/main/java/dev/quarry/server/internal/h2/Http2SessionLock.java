package dev.quarry.server.internal.h2;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The lock of one HTTP/2 connection's state (streams, windows, the flusher's queue), shared by the thread that parses
 * the connection's frames and the threads that write its responses.
 *
 * <p>Its critical sections are short and never run application code, I/O or anything else that may block, so a thread
 * that must not block may still wait here, briefly, for another to leave one; that wait is the one blocking call the
 * tests' blocking detector allows on such a thread (its allowance names {@link #lock()}). A connection is never waited
 * for by another connection's threads.
 *
 * <p>Thread-safety: a lock.
 */
final class Http2SessionLock extends ReentrantLock {
    // A class of its own so that the blocking detector can allow exactly this wait and nothing else.
    @Override
    public void lock() {
        super.lock();
    }
}
