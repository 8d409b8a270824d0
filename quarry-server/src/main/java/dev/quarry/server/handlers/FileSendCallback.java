package dev.quarry.server.handlers;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.io.MappingFaults;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

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
 * <p>A failed send of a file the cache keeps open may mean the file shrank in place, and the next sends would fail the
 * same way until its entry is next checked: the callback then tells the file so ({@link OpenFile#markFaulted()}), and
 * the handler opens it again for the next request. HTTP/2 and TLS copy the mapping in the JVM, which answers a read of
 * the pages a truncation removed with an {@link InternalError}: a sure sign. HTTP/1.1 cleartext hands the mapping to
 * the kernel, whose gathering write fails with an ordinary {@link java.io.IOException} ({@code EFAULT}, whose message
 * is the C library's, in the locale's language) that looks like a client's reset: there the file's size is checked
 * instead, on an error path only, so that a reset never costs the file its place.
 *
 * <p>Thread-safety: any thread; the release is one CAS.
 */
final class FileSendCallback implements Callback {
    private static final System.Logger LOG = System.getLogger(FileSendCallback.class.getName());
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
    private final Path path;
    private final long end;
    private final boolean checkSizeOnFailure;
    private final Callback callback;

    @SuppressWarnings("unused") // through RELEASED
    private volatile boolean released;

    /**
     * @param file the file sent
     * @param shared the file the cache keeps open, whose reference this send holds; null if {@code file} was opened for
     *     this send alone (then it is closed)
     * @param path the file's path, for the log
     * @param end where the region sent ends in the file: a failed send of a file kept open that is now shorter stops
     *     the cache keeping it open
     * @param checkSizeOnFailure whether a failure that is no fault of the mapping checks the file's size: over
     *     HTTP/1.1 only (where the kernel reads the mapping, and a failure costs a connection), never over HTTP/2,
     *     where a flood of stream resets would cost a thread and a system call each
     * @param callback the handler's callback
     */
    FileSendCallback(
            FileChannel file, OpenFile shared, Path path, long end, boolean checkSizeOnFailure, Callback callback) {
        this.file = file;
        this.shared = shared;
        this.path = path;
        this.end = end;
        this.checkSizeOnFailure = checkSizeOnFailure;
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
        if (shared == null) {
            fail(failure);
        } else if (MappingFaults.causedByReadFault(failure)) {
            LOG.log(Level.DEBUG, () -> "stopped keeping " + path + " open: its mapping faulted while it was sent");
            shared.markFaulted();
            fail(failure);
        } else if (!checkSizeOnFailure) {
            fail(failure);
        } else {
            // Asking the file its size is a system call (an fstat, which a network file system may answer late), so
            // never on the thread that completed the write (a selector's, most often); nor on a thread that may be
            // interrupted, since an interrupt during a FileChannel call closes the channel every response shares.
            // The file is marked before the handler's callback fails, so that the response after it sees the new
            // size (a client that reconnects the moment its connection closes may still get the old mapping once).
            try {
                Thread.ofVirtual().name("quarry-file-check").start(() -> {
                    try {
                        checkSize();
                    } finally {
                        fail(failure);
                    }
                });
            } catch (RuntimeException | Error x) {
                // No thread (the JVM is out of memory or shutting down): the failure still completes, unchecked.
                fail(failure);
            }
        }
    }

    /** Marks the file kept open if it is now shorter than the region this send failed to send. */
    private void checkSize() {
        long size;
        try {
            size = shared.channel().size();
        } catch (IOException x) {
            // Closed under the cache (an interrupted reader): the handler already opens it again for the next send.
            LOG.log(Level.DEBUG, () -> "cannot check the size of " + path + " after a failed send: " + x);
            return;
        }
        if (size < end) {
            LOG.log(
                    Level.DEBUG,
                    () -> "stopped keeping " + path + " open: it shrank to " + size + " bytes while bytes up to " + end
                            + " were sent");
            shared.markFaulted();
        }
    }

    private void fail(Throwable failure) {
        release();
        callback.failed(failure);
    }

    @Override
    public InvocationType invocationType() {
        // Giving a file back is a CAS, or a close() of a regular file: never worth a thread of its own.
        return InvocationType.NON_BLOCKING;
    }
}
