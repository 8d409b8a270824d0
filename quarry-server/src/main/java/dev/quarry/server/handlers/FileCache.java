package dev.quarry.server.handlers;

import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The cache of {@link StaticResource}s by key, bounded in bytes, evicting with CLOCK (second chance).
 *
 * <p>Why CLOCK rather than LRU: a hit must stay cheap on every selector thread at once. With CLOCK a hit is a map
 * lookup and, at most, one write of a flag that is usually set already (so the cache line stays shared); an LRU list
 * would move the entry on every hit, under a lock. Only insertions, replacements and evictions take the lock, and
 * they happen on misses, which read the file system anyway.
 *
 * <p>Every entry costs {@link StaticResource#cost()}: a fixed overhead plus the bytes it caches, so that entries
 * without bytes (large files, whose metadata is still worth keeping) are bounded too.
 *
 * <p>Besides bytes, the cache keeps up to {@code maxOpenFiles} large files open ({@link #keepOpen}), so that their hits
 * need no {@code open}: an entry's open files are released when it leaves the cache or is replaced by a changed
 * version (they close once the responses sending them are done). The bound is on descriptors, apart from the bytes.
 *
 * <p>Thread-safety: any thread; lookups lock-free, changes under one lock. Cost: lookup O(1); insertion amortised
 * O(1) (the hand clears at most one flag per entry before it evicts); removal of a deleted file O(n).
 */
final class FileCache {
    private final long maxBytes;
    private final int maxOpenFiles;
    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    // The clock: the hand is the head; entries get a second chance at the tail. Under the lock.
    private final ArrayDeque<Slot> clock = new ArrayDeque<>();
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder invalidations = new LongAdder();
    private final LongAdder evictions = new LongAdder();
    // Under the lock; volatile for statistics.
    private volatile long bytes;
    // Files kept open by cached entries. Under the lock; volatile for statistics.
    private volatile int openFiles;

    /**
     * @param maxBytes the bound; 0 disables the cache
     * @param maxOpenFiles how many files cached entries may keep open; 0 keeps none
     */
    FileCache(long maxBytes, int maxOpenFiles) {
        this.maxBytes = maxBytes;
        this.maxOpenFiles = maxOpenFiles;
    }

    /** One key's place in the clock; its resource is replaced in place when the file changes. */
    private static final class Slot {
        final String key;
        volatile StaticResource resource;
        volatile boolean referenced;
        long cost;

        Slot(String key, StaticResource resource, long cost) {
            this.key = key;
            this.resource = resource;
            this.cost = cost;
        }
    }

    /**
     * @param key the key
     * @return the cached resource, or null; marks it recently used
     */
    StaticResource get(String key) {
        Slot slot = slots.get(key);
        if (slot == null) {
            return null;
        }
        if (!slot.referenced) {
            slot.referenced = true;
        }
        return slot.resource;
    }

    /**
     * @param key the key
     * @return the cached resource, or null; does not mark it used
     */
    StaticResource peek(String key) {
        Slot slot = slots.get(key);
        return slot == null ? null : slot.resource;
    }

    /** Adds or replaces the resource of its key, evicting as needed; drops the key if the resource is too big. */
    void put(StaticResource resource) {
        long cost = resource.cost();
        lock.lock();
        try {
            Slot slot = slots.get(resource.key);
            if (cost > maxBytes) {
                // Too big to cache: an older, smaller version of it must not stay and be served instead.
                if (slot != null) {
                    slots.remove(resource.key, slot);
                    clock.remove(slot);
                    bytes = bytes - slot.cost;
                    retire(slot.resource, null);
                }
                return;
            }
            long total = bytes;
            if (slot != null) {
                total += cost - slot.cost;
                slot.cost = cost;
                retire(slot.resource, resource);
                slot.resource = resource;
            } else {
                slot = new Slot(resource.key, resource, cost);
                slots.put(resource.key, slot);
                clock.addLast(slot);
                total += cost;
            }
            while (total > maxBytes) {
                total -= evictOne();
            }
            bytes = total;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Replaces {@code old} with {@code updated}, a version of it with more content (its compression), unless the key
     * now holds another resource (the file changed meanwhile); adds it if the key was evicted.
     */
    void replace(StaticResource old, StaticResource updated) {
        lock.lock();
        try {
            Slot slot = slots.get(old.key);
            if (slot == null || slot.resource == old) {
                put(updated);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Removes the entry of the key if it still holds {@code resource} (the file is gone or changed). */
    void remove(StaticResource resource) {
        lock.lock();
        try {
            Slot slot = slots.get(resource.key);
            if (slot != null && slot.resource == resource) {
                slots.remove(resource.key, slot);
                clock.remove(slot);
                bytes = bytes - slot.cost;
                retire(resource, null);
            }
        } finally {
            lock.unlock();
        }
    }

    /** @return the cost freed; under the lock, with at least one entry */
    private long evictOne() {
        while (true) {
            Slot slot = clock.pollFirst();
            if (slot.referenced) {
                slot.referenced = false;
                clock.addLast(slot);
                continue;
            }
            slots.remove(slot.key, slot);
            evictions.increment();
            retire(slot.resource, null);
            return slot.cost;
        }
    }

    /**
     * Keeps a file that a request just opened for a representation of a cached resource open for the requests that
     * follow, if the resource is still the cached one for its key and the bound on open files allows.
     *
     * @param resource the resource, as found in the cache
     * @param representation the representation of it that {@code channel} is the file of
     * @param channel the file, just opened and checked
     * @return the file kept open, with one reference for the caller (to release when its send is done); or null when
     *     it is not kept (then the caller closes {@code channel} itself)
     */
    OpenFile keepOpen(StaticResource resource, Representation representation, FileChannel channel) {
        if (maxOpenFiles <= 0) {
            return null;
        }
        // Mapped before the lock (a mapping not kept is dropped, and unmapped by the collector): forgetClosed takes the
        // lock on the thread that parsed the request, possibly a selector, which must not wait on a system call.
        MappedByteBuffer mapped = OpenFile.map(channel, representation.size);
        lock.lock();
        try {
            Slot slot = slots.get(resource.key);
            // Only under the lock, and only for the cached resource: whatever removes it from the cache (under the
            // lock) then releases the file, so no file stays open for an entry that is gone.
            if (slot == null
                    || slot.resource != resource
                    || !resource.holds(representation)
                    || representation.hasOpenFile()
                    || openFiles >= maxOpenFiles) {
                return null;
            }
            OpenFile file = new OpenFile(channel, mapped, 2); // the cache's reference and the caller's
            representation.keepOpen(file);
            openFiles = openFiles + 1;
            return file;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops keeping a file open whose channel was closed under the cache (an interrupted reader closes a
     * {@link FileChannel} for everyone), so that the next send opens the file again instead of failing.
     *
     * @param representation the representation the file was kept open for
     * @param broken the file found closed
     */
    void forgetClosed(Representation representation, OpenFile broken) {
        lock.lock();
        try {
            if (representation.openFile() == broken && representation.forgetOpenFile()) {
                openFiles = openFiles - 1;
            }
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: releases the files {@code old} keeps open that {@code replacement} (or null) does not share. */
    private void retire(StaticResource old, StaticResource replacement) {
        retire(old.identity, replacement);
        retire(old.gzip, replacement);
        retire(old.brotli, replacement);
    }

    private void retire(Representation representation, StaticResource replacement) {
        if (representation != null
                && (replacement == null || !replacement.holds(representation))
                && representation.forgetOpenFile()) {
            openFiles = openFiles - 1;
        }
    }

    /** @return how many files cached entries keep open */
    int openFiles() {
        return openFiles;
    }

    void onHit() {
        hits.increment();
    }

    void onMiss() {
        misses.increment();
    }

    void onInvalidation() {
        invalidations.increment();
    }

    /** @return a snapshot of the counters */
    CacheStatistics statistics() {
        return new CacheStatistics(
                hits.sum(), misses.sum(), invalidations.sum(), evictions.sum(), slots.size(), bytes, maxBytes);
    }

    @Override
    public String toString() {
        return "FileCache{" + slots.size() + " entries, " + bytes + "/" + maxBytes + " bytes, " + openFiles + "/"
                + maxOpenFiles + " open files}";
    }
}
