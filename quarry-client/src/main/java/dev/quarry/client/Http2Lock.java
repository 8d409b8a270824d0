package dev.quarry.client;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The lock of one client HTTP/2 connection's state (streams, flow-control windows, the queue of frames to write),
 * shared by the selector thread that parses the server's frames and the virtual threads that write requests and read
 * responses.
 *
 * <p>Its critical sections are short and never run application code, I/O or anything else that may block, so the
 * selector thread may wait here, briefly, for another thread to leave one: the one wait the tests' blocking detector
 * allows on a selector thread (its allowance names {@link #lock()}).
 */
final class Http2Lock extends ReentrantLock {
    // A class of its own so that the blocking detector can allow exactly this wait and nothing else.
    @Override
    public void lock() {
        super.lock();
    }
}
