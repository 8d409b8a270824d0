package dev.quarry.server.test;

import dev.quarry.core.Callback;
import java.net.SocketAddress;
import java.nio.ByteBuffer;

/**
 * An endpoint that, like a TLS endpoint holding bytes for its reader, answers the first fill interest by waking the
 * reader on another thread right away, and returns only once that wake-up ran: the worst case of the race between a
 * connection still inside its read loop and the wake-up it caused, made certain. Later interests wait, as a socket
 * with nothing to read does. Writes complete at once. Shared by the server's and the client's wake-up tests.
 */
public final class WakesAtOnceEndPoint extends FakeEndPoint {
    private volatile ByteBuffer firstInterest;

    /** The interest registered last, which waits (the first one is answered at once); null before. */
    public volatile Callback pendingInterest;

    /** The thread inside {@link #fillInterested} while the wake-up it caused runs on another thread, else null. */
    public volatile Thread registering;

    /** How many fill interests were registered. */
    public volatile int interests;

    /**
     * @param local this side's address
     * @param remote the peer's address
     */
    public WakesAtOnceEndPoint(SocketAddress local, SocketAddress remote) {
        super(local, remote);
    }

    /** @param bytes bytes that arrive with the first fill interest, whose wake-up runs on another thread at once */
    public void onFirstInterest(ByteBuffer bytes) {
        firstInterest = bytes;
    }

    @Override
    public void fillInterested(Callback callback) {
        interests++;
        ByteBuffer bytes = firstInterest;
        if (bytes == null) {
            pendingInterest = callback;
            return;
        }
        firstInterest = null;
        arrive(bytes);
        registering = Thread.currentThread();
        Thread waker = Thread.ofPlatform().name("tls-wake-up").start(callback::succeeded);
        try {
            waker.join();
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(x);
        } finally {
            registering = null;
        }
    }

    @Override
    public boolean isFillInterested() {
        return pendingInterest != null;
    }

    @Override
    public boolean isSecure() {
        return true;
    }
}
