package dev.quarry.server.handlers;

/**
 * A snapshot of the counters of the {@link StaticFiles} cache.
 *
 * @param hits lookups answered from the cache (fresh, or revalidated as unchanged)
 * @param misses lookups that found nothing cached and read the file system
 * @param invalidations cached entries found changed or gone when revalidated
 * @param evictions entries dropped to stay within the bound
 * @param entries entries now cached
 * @param bytes what they cost now, content and overhead
 * @param maxBytes the bound; 0 when the cache is off
 */
public record CacheStatistics(
        long hits, long misses, long invalidations, long evictions, long entries, long bytes, long maxBytes) {}
