package dev.quarry.io;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The lock of one TLS connection's engine and buffers, shared by the thread that reads (decrypts) and the threads that
 * write (encrypt) the connection.
 *
 * <p>Its critical sections are one {@code wrap} or {@code unwrap} of at most a few records and one non-blocking
 * socket read or write: CPU work of microseconds, never application code, never a delegated task (those run on the
 * executor, outside the lock). So a thread that must not block may still wait here, briefly, for another to leave
 * one; that wait is the one blocking call the tests' blocking detector allows on such a thread (its allowance names
 * {@link #lock()}). A connection is never waited for by another connection's threads.
 *
 * <p>Thread-safety: a lock.
 */
final class TlsLock extends ReentrantLock {
    // A class of its own so that the blocking detector can allow exactly this wait and nothing else.
    @Override
    public void lock() {
        super.lock();
    }
}
