package dev.quarry.server.internal.h2;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The open streams of one HTTP/2 connection, the highest client stream id seen, and the ids of the streams we reset
 * recently; also how a stream is failed (its handler's pending reads and writes).
 *
 * <p>Threading: the map is guarded by the connection's lock. {@link #get}, {@link #put}, {@link #remove},
 * {@link #size} and {@link #values} expect the caller to hold it (so that a caller can combine them with stream state
 * in one critical section); the other accessors take it themselves, briefly. {@code lastStreamId} is written by the
 * producer under the lock and read by the producer, or by anyone under the lock. The recently-reset ring is written,
 * without the lock, by whichever thread resets a stream and read by the producer: a lost entry only makes a late
 * frame on that stream a STREAM_CLOSED stream error instead of being ignored. Lookups are O(1), the ring scans are
 * O(64); nothing here allocates except {@link #failAll}.
 */
final class Http2StreamTable {
    private static final int RECENTLY_RESET = 64;

    private final ReentrantLock lock;
    private final Http2Flusher flusher;
    private final Map<Integer, Http2Stream> streams = new HashMap<>();
    // Made at the first reset: most connections never reset a stream, and an idle one should not carry 64 ids.
    private int[] recentlyReset;
    private int recentlyResetIndex;
    private int lastStreamId;
    // Streams of the map closed on the wire (both sides sent END_STREAM) whose exchange has not completed yet; under
    // the lock. They do not count toward the concurrency limit.
    private int closedOnWire;

    Http2StreamTable(ReentrantLock lock, Http2Flusher flusher) {
        this.lock = lock;
        this.flusher = flusher;
    }

    // --- under the caller's lock -----------------------------------------------------------------------------------

    /** @return the open stream with this id, or null; the caller holds the lock */
    Http2Stream get(int streamId) {
        assert lock.isHeldByCurrentThread();
        return streams.get(streamId);
    }

    /** Registers a stream; the caller holds the lock. */
    void put(Http2Stream stream) {
        assert lock.isHeldByCurrentThread();
        streams.put(stream.id(), stream);
        stream.inTable(true);
    }

    /** @return the removed stream, or null if it was not open; the caller holds the lock */
    Http2Stream remove(int streamId) {
        assert lock.isHeldByCurrentThread();
        Http2Stream removed = streams.remove(streamId);
        if (removed != null) {
            removed.inTable(false);
            if (removed.countedClosed()) {
                removed.countedClosed(false);
                closedOnWire--;
            }
        }
        return removed;
    }

    /** @return the number of streams in the table, including those closed on the wire; the caller holds the lock */
    int size() {
        assert lock.isHeldByCurrentThread();
        return streams.size();
    }

    /**
     * @return the streams open or half-closed on the wire, those that count toward SETTINGS_MAX_CONCURRENT_STREAMS
     *     (RFC 9113 5.1.2); the caller holds the lock
     */
    int activeCount() {
        assert lock.isHeldByCurrentThread();
        return streams.size() - closedOnWire;
    }

    /** Both sides ended this stream; the caller holds the lock. Counted if the stream is in the table. */
    void onClosedOnWire(Http2Stream stream) {
        assert lock.isHeldByCurrentThread();
        if (!stream.countedClosed() && stream.inTable()) {
            stream.countedClosed(true);
            closedOnWire++;
        }
    }

    /** @return a live view of the open streams; the caller holds the lock while it iterates */
    Collection<Http2Stream> values() {
        assert lock.isHeldByCurrentThread();
        return streams.values();
    }

    // --- taking the lock -------------------------------------------------------------------------------------------

    /** @return the open stream with this id, or null */
    Http2Stream find(int streamId) {
        lock.lock();
        try {
            return streams.get(streamId);
        } finally {
            lock.unlock();
        }
    }

    /** Registers a stream. */
    void register(Http2Stream stream) {
        lock.lock();
        try {
            put(stream);
        } finally {
            lock.unlock();
        }
    }

    /** @return whether no stream is open */
    boolean isEmpty() {
        lock.lock();
        try {
            return streams.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /** @return the number of open streams */
    int count() {
        lock.lock();
        try {
            return streams.size();
        } finally {
            lock.unlock();
        }
    }

    /** Removes every open stream and fails it (the connection ends). */
    void failAll(Throwable cause) {
        List<Http2Stream> all;
        lock.lock();
        try {
            all = new ArrayList<>(streams.values());
            streams.clear();
            closedOnWire = 0;
            for (Http2Stream stream : all) {
                stream.inTable(false);
                stream.countedClosed(false);
            }
        } finally {
            lock.unlock();
        }
        for (Http2Stream stream : all) {
            fail(stream, cause);
        }
    }

    /** Fails a stream already removed: its handler's pending reads and writes fail, its queued frames are dropped. */
    void fail(Http2Stream stream, Throwable cause) {
        boolean wake;
        lock.lock();
        try {
            wake = stream.onFailure(cause);
            stream.releaseContent();
        } finally {
            lock.unlock();
        }
        flusher.removeStream(stream, cause);
        if (wake && stream.exchange() != null) {
            stream.exchange().onContentAvailable();
        }
    }

    // --- stream ids ------------------------------------------------------------------------------------------------

    /** @return the highest client stream id seen (0 before the first) */
    int lastStreamId() {
        return lastStreamId;
    }

    /** @param streamId the new highest client stream id; by the producer, under the lock */
    void lastStreamId(int streamId) {
        this.lastStreamId = streamId;
    }

    /** Remembers a stream we reset, so that frames the client sent before it saw our RST_STREAM are ignored. */
    void rememberReset(int streamId) {
        int[] ids = recentlyReset;
        if (ids == null) {
            ids = new int[RECENTLY_RESET];
            recentlyReset = ids;
        }
        ids[recentlyResetIndex++ % RECENTLY_RESET] = streamId;
    }

    /** Streams the client reset: a later frame on them is a STREAM_CLOSED error (RFC 9113 5.1), not ignored. */
    void rememberPeerReset(int streamId) {
        int[] ids = recentlyReset;
        if (ids == null) {
            return;
        }
        for (int i = 0; i < RECENTLY_RESET; i++) {
            if (ids[i] == streamId) {
                ids[i] = 0;
            }
        }
    }

    /** @return whether we reset this stream recently (and the client did not reset it too) */
    boolean wasRecentlyReset(int streamId) {
        int[] ids = recentlyReset;
        if (ids == null) {
            return false;
        }
        for (int id : ids) {
            if (id == streamId) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "Http2StreamTable{streams=" + count() + ", last=" + lastStreamId + "}";
    }
}
