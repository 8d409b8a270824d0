package dev.quarry.core.pool;

/**
 * Padding laid out after {@link EntryState}'s state word, so that the fields of {@link Pool.Entry} (read by every
 * acquirer) and whatever object follows the entry in memory stay off the state word's cache line. See
 * {@link EntryLeftPadding}.
 */
abstract class EntryRightPadding extends EntryState {
    long p11, p12, p13, p14, p15, p16, p17;
}
