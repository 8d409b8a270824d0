package dev.quarry.io;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import java.util.Objects;

/**
 * Base of connections that read on demand: {@link #fillInterested()} asks the endpoint to call {@link #onFillable()}
 * once when bytes can be read. The read callback declares {@link #readInvocationType()}, which is how a protocol
 * tells the selector whether handling its bytes may block (and must then not run on the producing thread unless
 * production was handed over).
 *
 * <p>Thread-safety: each fill interest calls {@link #onFillable()} once, so the calls follow one another, with one
 * exception that subclasses must handle: an interest registered from inside {@link #onFillable()} may fire on another
 * thread before that call has returned. A TLS endpoint that already holds bytes for the reader (decrypted, or whole
 * records, or after a post-handshake task) wakes it at once, on another thread. A subclass that guards its input
 * against overlapping calls must therefore keep such a wake-up for the thread still inside, never drop it: a dropped
 * wake-up stops the connection's reading for good.
 */
public abstract class AbstractConnection implements Connection {
    private final EndPoint endPoint;
    private final Callback readCallback = new ReadCallback();

    /** @param endPoint the endpoint this connection reads and writes */
    protected AbstractConnection(EndPoint endPoint) {
        this.endPoint = Objects.requireNonNull(endPoint, "endPoint");
    }

    @Override
    public EndPoint endPoint() {
        return endPoint;
    }

    /** Asks to be called back on {@link #onFillable()} when bytes can be read. */
    protected void fillInterested() {
        endPoint.fillInterested(readCallback);
    }

    /** @return whether a fill interest is pending */
    protected boolean isFillInterested() {
        return endPoint.isFillInterested();
    }

    /** Called once per {@link #fillInterested()} when bytes can be read, or the stream ended. */
    protected abstract void onFillable();

    /**
     * Called instead of {@link #onFillable()} when the fill interest failed (the endpoint closed or timed out).
     *
     * @param cause why
     */
    protected void onFillInterestedFailed(Throwable cause) {
        endPoint.close(cause);
    }

    /**
     * @return how {@link #onFillable()} behaves; {@link InvocationType#BLOCKING} unless a subclass knows better. It is
     *     read each time the selector produces the read task, so it may change with the connection's state.
     */
    protected InvocationType readInvocationType() {
        return InvocationType.BLOCKING;
    }

    @Override
    public void onOpen() {
        fillInterested();
    }

    @Override
    public void onClose(Throwable cause) {}

    @Override
    public String toString() {
        return getClass().getSimpleName() + "@" + Integer.toHexString(hashCode()) + "{" + protocol() + ", " + endPoint
                + "}";
    }

    private final class ReadCallback implements Callback {
        @Override
        public void succeeded() {
            onFillable();
        }

        @Override
        public void failed(Throwable failure) {
            onFillInterestedFailed(failure);
        }

        @Override
        public InvocationType invocationType() {
            return readInvocationType();
        }

        @Override
        public String toString() {
            return "ReadCallback[" + AbstractConnection.this + "]";
        }
    }
}
