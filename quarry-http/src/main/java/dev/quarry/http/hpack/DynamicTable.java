package dev.quarry.http.hpack;

import java.io.IOException;

/**
 * The HPACK dynamic table (RFC 7541 2.3.2, 4): a FIFO of fields, newest first, bounded by a maximum size in octets.
 *
 * <p>Entries live in a ring of parallel name/value arrays addressed by an <em>absolute</em> insertion number that never
 * changes while the entry lives: entry number {@code a} sits in slot {@code a & mask}, and its HPACK dynamic index is
 * {@code inserted - a} (1 is the newest). Adding and looking up are O(1); evicting is O(1) per evicted entry; the ring
 * is made at the first entry, doubles when it fills (amortised O(1)) and never holds more than {@code maxSize / 32}
 * entries.
 *
 * <p>An entry's size is its name octets + value octets + 32 (RFC 7541 4.1). Strings here are octet strings (one octet
 * per {@code char}), so {@code length()} is the octet count.
 *
 * <p>Not thread-safe: owned by one encoder or decoder, confined to the connection's thread. Subclasses hear of every
 * addition and eviction through {@link #added} and {@link #evicted} (the encoder keeps its lookup maps that way).
 */
class DynamicTable {

    /** Per-entry overhead counted by RFC 7541 4.1. */
    static final int ENTRY_OVERHEAD = 32;

    private static final String[] NO_ENTRIES = new String[0];
    /** The ring's size when the first entry is added. */
    private static final int INITIAL_CAPACITY = 8;

    // Empty until the first entry: a peer that never indexes (many clients send literals only) costs no ring.
    private String[] names = NO_ENTRIES;
    private String[] values = NO_ENTRIES;
    private int mask;
    /** Number of entries ever added: the absolute number the next entry will get. */
    private long inserted;

    private int length;
    private int size;
    private int maxSize;

    /** @param maxSize the initial maximum size in octets */
    DynamicTable(int maxSize) {
        if (maxSize < 0) {
            throw new IllegalArgumentException("dynamic table size must not be negative: " + maxSize);
        }
        this.maxSize = maxSize;
    }

    /** @return the number of entries */
    final int length() {
        return length;
    }

    /** @return the current size in octets: the sum of the entries' sizes */
    final int size() {
        return size;
    }

    /** @return the maximum size in octets, as last set by a dynamic table size update */
    final int maxSize() {
        return maxSize;
    }

    /** @return the number of entries ever added */
    final long inserted() {
        return inserted;
    }

    /** @return the name of the entry at dynamic index {@code index}, 1 (newest) to {@link #length()} */
    final String name(int index) {
        return names[(int) (inserted - index) & mask];
    }

    /** @return the value of the entry at dynamic index {@code index}, 1 (newest) to {@link #length()} */
    final String value(int index) {
        return values[(int) (inserted - index) & mask];
    }

    /** @return the dynamic index (1 is the newest) of the live entry with absolute number {@code absolute} */
    final int indexOfAbsolute(long absolute) {
        return (int) (inserted - absolute);
    }

    /**
     * Adds an entry, first evicting the oldest entries until it fits (RFC 7541 4.4). An entry larger than the maximum
     * size empties the table and is not added; that is not an error.
     */
    final void add(String name, String value) {
        int entrySize = name.length() + value.length() + ENTRY_OVERHEAD;
        if (entrySize > maxSize) {
            evictTo(0);
            return;
        }
        evictTo(maxSize - entrySize);
        if (length == names.length) {
            grow();
        }
        long absolute = inserted++;
        int slot = (int) absolute & mask;
        names[slot] = name;
        values[slot] = value;
        length++;
        size += entrySize;
        added(absolute, name, value);
    }

    /** Applies a dynamic table size update (RFC 7541 4.3): evicts the oldest entries until the table fits. */
    final void setMaxSize(int maxSize) {
        if (maxSize < 0) {
            throw new IllegalArgumentException("dynamic table size must not be negative: " + maxSize);
        }
        this.maxSize = maxSize;
        evictTo(maxSize);
    }

    /** Called after an entry is added. */
    void added(long absolute, String name, String value) {}

    /** Called after an entry is evicted; entries are evicted oldest first. */
    void evicted(long absolute, String name, String value) {}

    private void evictTo(int targetSize) {
        while (size > targetSize) {
            long absolute = inserted - length;
            int slot = (int) absolute & mask;
            String name = names[slot];
            String value = values[slot];
            // Drop the references so that an evicted field's strings can be collected.
            names[slot] = null;
            values[slot] = null;
            length--;
            size -= name.length() + value.length() + ENTRY_OVERHEAD;
            evicted(absolute, name, value);
        }
    }

    private void grow() {
        int capacity = Math.max(INITIAL_CAPACITY, names.length * 2);
        String[] newNames = new String[capacity];
        String[] newValues = new String[capacity];
        int newMask = capacity - 1;
        for (long absolute = inserted - length; absolute < inserted; absolute++) {
            newNames[(int) absolute & newMask] = names[(int) absolute & mask];
            newValues[(int) absolute & newMask] = values[(int) absolute & mask];
        }
        names = newNames;
        values = newValues;
        mask = newMask;
    }

    /** Writes the entries, newest first, as RFC 7541 Appendix C prints them. */
    final void dumpEntries(Appendable out, String indent) throws IOException {
        for (int index = 1; index <= length; index++) {
            String name = name(index);
            String value = value(index);
            out.append(indent)
                    .append('[')
                    .append(Integer.toString(index))
                    .append("] (s = ")
                    .append(Integer.toString(name.length() + value.length() + ENTRY_OVERHEAD))
                    .append(") ")
                    .append(name)
                    .append(": ")
                    .append(value)
                    .append('\n');
        }
    }

    /** @return the entries, newest first, as {@code name: value} strings (for tests and diagnostics) */
    final String[] entries() {
        String[] entries = new String[length];
        for (int index = 1; index <= length; index++) {
            entries[index - 1] = name(index) + ": " + value(index);
        }
        return entries;
    }

    @Override
    public String toString() {
        return String.format(
                "%s@%x{entries=%d, size=%d/%d, inserted=%d}",
                getClass().getSimpleName(), hashCode(), length, size, maxSize, inserted);
    }
}
