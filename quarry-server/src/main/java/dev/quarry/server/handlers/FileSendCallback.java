package dev.quarry.server.handlers;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;

/**
 * The callback of a response's file send: gives the file back (the reference to a file the cache keeps open, or the
 * file opened for this response, closed) exactly once, then completes the handler's callback.
 *
 * <p>Why once, and why {@link #release()} is also called from outside: once the file is handed to
 * {@link dev.quarry.server.Response#write(FileChannel, long, long, boolean, Callback)} the send owns it, but a write
 * that throws (a response wrapper that fails before delegating, say) never completes its callback, and a write that
 * completes its callback and then throws would otherwise give the file back twice. Releasing twice would close a file
 * that the cache and other responses still send; releasing never would keep a reference, and so the descriptor, for as
 * long as the process lives.
 *
 * <p>Thread-safety: any thread; the release is one CAS.
 */
final class FileSendCallback implements Callback {
    private static final VarHandle RELEASED;

    static {
        try {
            RELEASED = MethodHandles.lookup().findVarHandle(FileSendCallback.class, "released", boolean.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final FileChannel file;
    private final OpenFile shared;
    private final Callback callback;

    @SuppressWarnings("unused") // through RELEASED
    private volatile boolean released;

    /**
     * @param file the file sent
     * @param shared the file the cache keeps open, whose reference this send holds; null if {@code file} was opened for
     *     this send alone (then it is closed)
     * @param callback the handler's callback
     */
    FileSendCallback(FileChannel file, OpenFile shared, Callback callback) {
        this.file = file;
        this.shared = shared;
        this.callback = callback;
    }

    /** Gives the file back unless that was done already. */
    void release() {
        if (RELEASED.compareAndSet(this, false, true)) {
            StaticFiles.finish(file, shared);
        }
    }

    @Override
    public void succeeded() {
        release();
        callback.succeeded();
    }

    @Override
    public void failed(Throwable failure) {
        if (shared != null && isFault(failure)) {
            shared.markFaulted();
        }
        release();
        callback.failed(failure);
    }

    /**
     * @return whether the send failed on a fault reading the file's mapping: the JVM's {@link InternalError} for a read
     *     of pages a truncation removed, as the cause of the I/O error that HTTP/2 and TLS make of it
     */
    private static boolean isFault(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof InternalError) {
                return true;
            }
        }
        return false;
    }

    @Override
    public InvocationType invocationType() {
        // Giving a file back is a CAS, or a close() of a regular file: never worth a thread of its own.
        return InvocationType.NON_BLOCKING;
    }
}
