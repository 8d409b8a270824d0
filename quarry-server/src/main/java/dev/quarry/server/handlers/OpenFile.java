package dev.quarry.server.handlers;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A file kept open by the cache, shared by the responses that send it (like nginx's {@code open_file_cache}): a hit
 * on a large file then costs no {@code open}, {@code fstat} or {@code close}, and needs no thread that may block, so
 * it is answered where it was parsed, on the selector. Every send positions its own transfer (positional reads and
 * {@code transferTo}), so one channel serves any number of responses at once.
 *
 * <p>Reference counted: the cache holds one reference while the entry is cached and fresh, each response one while it
 * sends; the channel is closed when the last is released, so a file that changes or leaves the cache while responses
 * still send it is closed only after them.
 *
 * <p>Interrupts: a {@link FileChannel} is interruptible, and a thread interrupted while it reads the channel (or
 * transfers from it) closes it, for every response that shares it; the JDK offers no public way to open an
 * uninterruptible one. So a closed channel is not trusted: {@link #isOpen()} says false, and the handler stops keeping
 * the file open and opens it again for the next send. Sends that were using the channel when it was closed fail like
 * any other I/O error (their connections are closed); the ones after them are unaffected.
 *
 * <p>Thread-safety: any thread; {@link #acquire()} and {@link #release()} are one CAS each, lock-free.
 */
final class OpenFile {
    private static final System.Logger LOG = System.getLogger(OpenFile.class.getName());
    private static final VarHandle REFERENCES;

    static {
        try {
            REFERENCES = MethodHandles.lookup().findVarHandle(OpenFile.class, "references", int.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    /**
     * Files up to this size are also mapped, once, when they are kept open. HTTP/1.1 over TLS then encrypts straight
     * from the page cache, and HTTP/2 copies DATA frames from it, with no read system call, no copy into a heap buffer
     * and no thread hop per chunk; and on HTTP/1.1 cleartext a region goes with its head in one gathered write, then
     * one write per socket-full. The bound keeps address space use sane: 1000 files kept open map at most 64 GiB of the
     * 128 TiB a 64-bit process has, and only the pages read count in memory (file-backed, shared with the page cache).
     */
    static final long MAP_LIMIT = 64L * 1024 * 1024;

    private final FileChannel channel;
    // The whole file, read-only, or null (larger than MAP_LIMIT, or the mapping failed). Unmapped by the collector once
    // unreachable: an explicit unmap while a write of another thread might still read it would fault.
    private final MappedByteBuffer mapped;

    @SuppressWarnings("unused") // through REFERENCES
    private volatile int references;
    // A send found the file shrunk in place (its mapping faulted, or a size check after it failed). Set once, read once
    // per send.
    private volatile boolean faulted;

    /**
     * @param channel the file, open for reading
     * @param mapped the file mapped by {@link #map(FileChannel, long)}, or null
     * @param references the references its creator holds (the cache's, and the response's that opened it)
     */
    OpenFile(FileChannel channel, MappedByteBuffer mapped, int references) {
        this.channel = channel;
        this.mapped = mapped;
        this.references = references;
    }

    /**
     * Maps a file to keep open, if it is small enough. A system call that can wait on the process's memory map: the
     * cache calls it before taking its lock, which a selector thread may want.
     *
     * @return the whole file mapped read-only, or null (larger than {@link #MAP_LIMIT}, or the mapping failed)
     */
    static MappedByteBuffer map(FileChannel channel, long size) {
        if (size > MAP_LIMIT) {
            return null;
        }
        try {
            return channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
        } catch (IOException | UnsupportedOperationException x) {
            LOG.log(Level.DEBUG, () -> "cannot map " + channel + ", sending it from the channel: " + x);
            return null;
        }
    }

    /**
     * @param position where the region starts
     * @param count its length
     * @return the region of the mapped file, a new read-only view; or null if the file is not mapped
     */
    ByteBuffer mapped(long position, long count) {
        return mapped == null ? null : mapped.slice((int) position, (int) count);
    }

    /** @return the channel; valid between a successful {@link #acquire()} and its {@link #release()} */
    FileChannel channel() {
        return channel;
    }

    /** @return whether a reference was taken; false once the channel is closed (or about to be) */
    boolean acquire() {
        while (true) {
            int current = references;
            if (current <= 0) {
                return false;
            }
            if (REFERENCES.compareAndSet(this, current, current + 1)) {
                return true;
            }
        }
    }

    /** Gives a reference back; the last one closes the channel. */
    void release() {
        int left = (int) REFERENCES.getAndAdd(this, -1) - 1;
        if (left == 0) {
            try {
                channel.close();
            } catch (IOException x) {
                LOG.log(Level.DEBUG, "closing " + channel + " failed", x);
            }
        } else if (left < 0) {
            throw new IllegalStateException("released more often than acquired: " + this);
        }
    }

    /**
     * A send of this file found it truncated in place: it faulted reading the mapping, or it failed and the file is now
     * shorter than the region it sent. The handler then stops keeping it open, and the next request opens it again,
     * which checks its size and so reloads its entry, instead of failing again until the entry is next checked.
     */
    void markFaulted() {
        faulted = true;
    }

    /** @return whether a send found the file truncated ({@link #markFaulted()}) */
    boolean faulted() {
        return faulted;
    }

    /** @return the references held now (for tests) */
    int references() {
        return references;
    }

    /**
     * @return whether the file can still be sent: referenced, and its channel not closed under the cache by an
     *     interrupted reader
     */
    boolean isOpen() {
        return references > 0 && channel.isOpen();
    }

    @Override
    public String toString() {
        return "OpenFile{references=" + references + "}";
    }
}
