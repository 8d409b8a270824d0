package dev.quarry.core.pool;

/**
 * Padding laid out before {@link EntryState}'s state word. The JVM places a superclass's fields before its subclass's,
 * so these 56 bytes plus the object header put the state word at least 64 bytes (one cache line) after the end of
 * whatever object precedes the entry in memory. Entries are often allocated one after another, and their state words
 * are written by different threads on every acquire and release: without padding, two entries' words would share a
 * cache line and every CAS on one would invalidate the other (false sharing).
 */
abstract class EntryLeftPadding {
    long p01, p02, p03, p04, p05, p06, p07;
}
